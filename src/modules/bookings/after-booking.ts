/**
 * What happens after a booking is written, in the same transaction and in list order: the next side effect of a
 * booking is one more entry in AFTER_BOOKING (after-booking-change.ts has a change's). An effect may complete the
 * booking the caller answers with (the calendar write-back sets `calendarEvents`), so effects that send the booking
 * on come after it. The writes that need no answer go together in one statement at the end.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueNewBookingEvents } from '../calendars/booking-events.ts';
import { contactRefreshWrite } from '../contacts/contacts.projection.ts';
import { readLead } from '../leads/lead.rows.ts';
import { newBookingMessagesWrite } from '../booking-messages/message-outbox.ts';
import type { Reminder } from '../event-types/event-type.rows.ts';
import { webhookEventWrite } from '../webhooks/outbox.ts';
import { WriteBatch } from '../../lib/sql-writes.ts';
import type { Booking } from './bookings.schemas.ts';

export interface NewBooking {
  booking: Booking;
  ownerId: string;
  inviteeEmail: string;
  /** The invitee's leads on this event type that the booking converted. */
  convertedLeadIds: readonly string[];
  /** Whether the event type sends e-mail at all, and its reminders. */
  notifications: boolean;
  reminders: readonly Reminder[];
  /** The invitee's manage link secret (public bookings only): their confirmation carries the link. */
  manageToken?: string | undefined;
  /** An occurrence of a series: the series sends one confirmation for all of them (queueNewSeriesMessages). */
  inSeries?: boolean;
  /** False when the decision under the hosts' locks saw no calendar of theirs that receives bookings. */
  writesBack?: boolean | undefined;
  now: Date;
}

/**
 * An effect either does its work at once (it needs an answer) or adds its write to the batch, which runs as ONE
 * statement once every effect has run: the transaction holds its hosts' locks meanwhile, so round trips count.
 */
export type AfterBookingEffect = (tx: EntityManager, booked: NewBooking, batch: WriteBatch) => Promise<void>;

/** The invitee's contact, recomputed under the contact lock that the booking's own statement took. */
const refreshInviteeContact: AfterBookingEffect = async (_tx, { ownerId, inviteeEmail }, batch) => {
  batch.add(contactRefreshWrite(ownerId, inviteeEmail));
};

/** The hosts' CalDAV calendars that receive bookings get the event, through the write-back's outbox. */
const writeToHostCalendars: AfterBookingEffect = async (tx, { booking, writesBack, now }) => {
  booking.calendarEvents = writesBack === false ? [] : await queueNewBookingEvents(tx, booking.id, now);
};

/** A booking that waits for the host's confirmation is a request (`booking.requested`), not yet a meeting. */
const announceBooking: AfterBookingEffect = async (_tx, { booking, ownerId, now }, batch) => {
  batch.add(webhookEventWrite(ownerId, booking.status === 'pending' ? 'booking.requested' : 'booking.created', booking, now));
};

const announceConvertedLeads: AfterBookingEffect = async (tx, { ownerId, convertedLeadIds, now }, batch) => {
  for (const leadId of convertedLeadIds) {
    batch.add(webhookEventWrite(ownerId, 'lead.converted', await readLead(tx, ownerId, leadId), now));
  }
};

/** Nothing at all (no plan, no sealed link) for an event type without e-mail. */
const queueMessages: AfterBookingEffect = async (tx, { booking, notifications, reminders, manageToken, inSeries, now }, batch) => {
  if (notifications) batch.add(await newBookingMessagesWrite(tx, booking, reminders, manageToken, now, inSeries));
};

export const AFTER_BOOKING: readonly AfterBookingEffect[] = [
  refreshInviteeContact,
  writeToHostCalendars,
  announceBooking,
  announceConvertedLeads,
  queueMessages,
];

/** With `shared` (a series' occurrences), the writes are added to it and its owner flushes it once for all. */
export async function runAfterBooking(tx: EntityManager, booked: NewBooking, shared?: WriteBatch): Promise<void> {
  const batch = shared ?? new WriteBatch();
  for (const effect of AFTER_BOOKING) await effect(tx, booked, batch);
  if (!shared) await batch.flush(tx);
}
