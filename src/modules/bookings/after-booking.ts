/**
 * What happens after a booking is written, rescheduled or canceled, in the same transaction and in list order: the
 * next side effect of a booking is one more entry in AFTER_BOOKING (AFTER_RESCHEDULE, AFTER_CANCEL). An effect may
 * complete the booking the caller answers with (the calendar write-back sets `calendarEvents`), so effects that
 * send the booking on come after it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  bookingEventStates,
  queueCanceledBookingEvents,
  queueNewBookingEvents,
  queueRescheduledBookingEvents,
} from '../calendars/booking-events.ts';
import { refreshLockedContact } from '../contacts/contacts.projection.ts';
import { readLead } from '../leads/lead.rows.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { Booking } from './bookings.schemas.ts';

export interface NewBooking {
  booking: Booking;
  ownerId: string;
  inviteeEmail: string;
  /** The invitee's leads on this event type that the booking converted. */
  convertedLeadIds: readonly string[];
  now: Date;
}

export type AfterBookingEffect = (tx: EntityManager, booked: NewBooking) => Promise<void>;

/** The invitee's contact, recomputed under the contact lock that the booking's own statement took. */
const refreshInviteeContact: AfterBookingEffect = (tx, { ownerId, inviteeEmail }) => refreshLockedContact(tx, ownerId, inviteeEmail);

/** The hosts' CalDAV calendars that receive bookings get the event, through the write-back's outbox. */
const writeToHostCalendars: AfterBookingEffect = async (tx, { booking, now }) => {
  booking.calendarEvents = await queueNewBookingEvents(tx, booking.id, now);
};

const announceBooking: AfterBookingEffect = (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.created', booking, now);

const announceConvertedLeads: AfterBookingEffect = async (tx, { ownerId, convertedLeadIds, now }) => {
  for (const leadId of convertedLeadIds) {
    await emitWebhookEvent(tx, ownerId, 'lead.converted', await readLead(tx, ownerId, leadId), now);
  }
};

export const AFTER_BOOKING: readonly AfterBookingEffect[] = [refreshInviteeContact, writeToHostCalendars, announceBooking, announceConvertedLeads];

export async function runAfterBooking(tx: EntityManager, booked: NewBooking): Promise<void> {
  for (const effect of AFTER_BOOKING) await effect(tx, booked);
}

/** A booking moved to another time (possibly another host), or canceled, as it now is. */
export interface ChangedBooking {
  booking: Booking;
  ownerId: string;
  now: Date;
}

export type AfterChangeEffect = (tx: EntityManager, changed: ChangedBooking) => Promise<void>;

const moveHostCalendarEvents: AfterChangeEffect = async (tx, { booking, now }) => {
  await queueRescheduledBookingEvents(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
};

const removeHostCalendarEvents: AfterChangeEffect = async (tx, { booking, now }) => {
  await queueCanceledBookingEvents(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
};

const announceReschedule: AfterChangeEffect = (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.rescheduled', booking, now);

const announceCancel: AfterChangeEffect = (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.canceled', booking, now);

export const AFTER_RESCHEDULE: readonly AfterChangeEffect[] = [moveHostCalendarEvents, announceReschedule];

export const AFTER_CANCEL: readonly AfterChangeEffect[] = [removeHostCalendarEvents, announceCancel];

export async function runAfterChange(effects: readonly AfterChangeEffect[], tx: EntityManager, changed: ChangedBooking): Promise<void> {
  for (const effect of effects) await effect(tx, changed);
}
