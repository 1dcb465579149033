/**
 * What happens after a booking is rescheduled or canceled, in the same transaction and in this order (as
 * AFTER_BOOKING for a new booking): the next side effect of a change is one more entry in its list.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueCancellationMessages, queueRescheduleMessages } from '../booking-messages/message-outbox.ts';
import { bookingEventStates, queueCanceledBookingEvents, queueRescheduledBookingEvents } from '../calendars/booking-events.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { Booking } from './bookings.schemas.ts';

export interface RescheduledBooking {
  booking: Booking;
  /** Its time before the move. */
  previous: { startAt: string; endAt: string };
  eventType: EventTypeRecord;
  ownerId: string;
  now: Date;
}

export interface CanceledBooking {
  booking: Booking;
  ownerId: string;
  now: Date;
}

export type AfterRescheduleEffect = (tx: EntityManager, moved: RescheduledBooking) => Promise<void>;
export type AfterCancelEffect = (tx: EntityManager, canceled: CanceledBooking) => Promise<void>;

/** The hosts' CalDAV copies follow the booking; the booking answered carries their state. */
const moveHostCalendarEvents: AfterRescheduleEffect = async (tx, { booking, now }) => {
  await queueRescheduledBookingEvents(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
};

const removeHostCalendarEvents: AfterCancelEffect = async (tx, { booking, now }) => {
  await queueCanceledBookingEvents(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
};

export const AFTER_RESCHEDULE: readonly AfterRescheduleEffect[] = [
  moveHostCalendarEvents,
  (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.rescheduled', booking, now),
  (tx, { booking, previous, eventType, now }) => queueRescheduleMessages(tx, booking, previous, eventType.reminders, now),
];

export const AFTER_CANCEL: readonly AfterCancelEffect[] = [
  removeHostCalendarEvents,
  (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.canceled', booking, now),
  (tx, { booking, now }) => queueCancellationMessages(tx, booking, now),
];

/**
 * A declined request is over for everyone: the hosts' calendar copies go, and the invitee's invitation is withdrawn
 * (a cancellation, METHOD:CANCEL, with the host's reason).
 */
export const AFTER_DECLINE: readonly AfterCancelEffect[] = [
  removeHostCalendarEvents,
  (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.declined', booking, now),
  (tx, { booking, now }) => queueCancellationMessages(tx, booking, now),
];

export async function runAfterReschedule(tx: EntityManager, moved: RescheduledBooking): Promise<void> {
  for (const effect of AFTER_RESCHEDULE) await effect(tx, moved);
}

export async function runAfterCancel(tx: EntityManager, canceled: CanceledBooking): Promise<void> {
  for (const effect of AFTER_CANCEL) await effect(tx, canceled);
}

export async function runAfterDecline(tx: EntityManager, declined: CanceledBooking): Promise<void> {
  for (const effect of AFTER_DECLINE) await effect(tx, declined);
}
