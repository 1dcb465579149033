/**
 * What happens after a booking is written, in the same transaction and in list order: the next side effect of a
 * booking is one more entry in AFTER_BOOKING (after-booking-change.ts has a change's). An effect may complete the
 * booking the caller answers with (the calendar write-back sets `calendarEvents`), so effects that send the booking
 * on come after it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueNewBookingEvents } from '../calendars/booking-events.ts';
import { refreshLockedContact } from '../contacts/contacts.projection.ts';
import { readLead } from '../leads/lead.rows.ts';
import { queueNewBookingMessages } from '../booking-messages/message-outbox.ts';
import type { Reminder } from '../event-types/event-type.rows.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
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

export type AfterBookingEffect = (tx: EntityManager, booked: NewBooking) => Promise<void>;

/** The invitee's contact, recomputed under the contact lock that the booking's own statement took. */
const refreshInviteeContact: AfterBookingEffect = (tx, { ownerId, inviteeEmail }) => refreshLockedContact(tx, ownerId, inviteeEmail);

/** The hosts' CalDAV calendars that receive bookings get the event, through the write-back's outbox. */
const writeToHostCalendars: AfterBookingEffect = async (tx, { booking, writesBack, now }) => {
  booking.calendarEvents = writesBack === false ? [] : await queueNewBookingEvents(tx, booking.id, now);
};

/** A booking that waits for the host's confirmation is a request (`booking.requested`), not yet a meeting. */
const announceBooking: AfterBookingEffect = (tx, { booking, ownerId, now }) =>
  emitWebhookEvent(tx, ownerId, booking.status === 'pending' ? 'booking.requested' : 'booking.created', booking, now);

const announceConvertedLeads: AfterBookingEffect = async (tx, { ownerId, convertedLeadIds, now }) => {
  for (const leadId of convertedLeadIds) {
    await emitWebhookEvent(tx, ownerId, 'lead.converted', await readLead(tx, ownerId, leadId), now);
  }
};

/** Nothing at all (no plan, no sealed link) for an event type without e-mail. */
const queueMessages: AfterBookingEffect = async (tx, { booking, notifications, reminders, manageToken, inSeries, now }) => {
  if (notifications) await queueNewBookingMessages(tx, booking, reminders, manageToken, now, inSeries);
};

export const AFTER_BOOKING: readonly AfterBookingEffect[] = [
  refreshInviteeContact,
  writeToHostCalendars,
  announceBooking,
  announceConvertedLeads,
  queueMessages,
];

export async function runAfterBooking(tx: EntityManager, booked: NewBooking): Promise<void> {
  for (const effect of AFTER_BOOKING) await effect(tx, booked);
}
