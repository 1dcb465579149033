/**
 * What happens after a booking is rescheduled, canceled, confirmed or declined, in the same transaction and in this
 * order (as AFTER_BOOKING for a new booking): the next side effect of a change is one more entry in its list.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  queueCancellationMessages,
  queueConfirmationMessages,
  queueDeclineMessages,
  queueRescheduleMessages,
} from '../booking-messages/message-outbox.ts';
import type { SeriesPart } from '../booking-messages/message-plan.ts';
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
  /** It was still a request (pending): nobody had an invitation yet. */
  wasPending: boolean;
  /** Canceled with its series, which announces the cancellation once (see SeriesPart); absent when canceled alone. */
  series?: SeriesPart;
}

export interface ConfirmedBooking {
  booking: Booking;
  eventType: EventTypeRecord;
  ownerId: string;
  now: Date;
  /** Confirmed with its series' other requests, announced once (see SeriesPart); absent when confirmed alone. */
  series?: SeriesPart;
}

export interface DeclinedBooking {
  booking: Booking;
  ownerId: string;
  now: Date;
  /** Declined by the service because nobody confirmed it before its start, not by the host. */
  expired: boolean;
  /** Declined with its series' other requests, announced once (see SeriesPart); absent when declined alone. */
  series?: SeriesPart;
}

export type AfterRescheduleEffect = (tx: EntityManager, moved: RescheduledBooking) => Promise<void>;
export type AfterCancelEffect = (tx: EntityManager, canceled: CanceledBooking) => Promise<void>;
export type AfterConfirmEffect = (tx: EntityManager, confirmed: ConfirmedBooking) => Promise<void>;
export type AfterDeclineEffect = (tx: EntityManager, declined: DeclinedBooking) => Promise<void>;

/** The hosts' CalDAV copies follow the booking; the booking answered carries their state. */
const moveHostCalendarEvents: AfterRescheduleEffect = async (tx, { booking, now }) => {
  await queueRescheduledBookingEvents(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
};

const removeHostCalendarEvents = async (tx: EntityManager, { booking, now }: { booking: Booking; now: Date }): Promise<void> => {
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
  (tx, { booking, wasPending, now, series }) => queueCancellationMessages(tx, booking, wasPending, now, series),
];

/**
 * A confirmed request becomes a meeting: the invitee and guests get their invitation (the request had none), the
 * host a note, and the event type's reminders are planned.
 */
export const AFTER_CONFIRM: readonly AfterConfirmEffect[] = [
  (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.confirmed', booking, now),
  (tx, { booking, eventType, now, series }) => queueConfirmationMessages(tx, booking, eventType.reminders, now, series),
];

/**
 * A declined request is over for everyone: the hosts' calendar copies go, and the invitee and guests are told (no
 * invitation to withdraw: a request never carried one), with the host's reason.
 */
export const AFTER_DECLINE: readonly AfterDeclineEffect[] = [
  removeHostCalendarEvents,
  (tx, { booking, ownerId, now }) => emitWebhookEvent(tx, ownerId, 'booking.declined', booking, now),
  (tx, { booking, expired, now, series }) => queueDeclineMessages(tx, booking, expired, now, series),
];

export async function runAfterReschedule(tx: EntityManager, moved: RescheduledBooking): Promise<void> {
  for (const effect of AFTER_RESCHEDULE) await effect(tx, moved);
}

export async function runAfterCancel(tx: EntityManager, canceled: CanceledBooking): Promise<void> {
  for (const effect of AFTER_CANCEL) await effect(tx, canceled);
}

export async function runAfterConfirm(tx: EntityManager, confirmed: ConfirmedBooking): Promise<void> {
  for (const effect of AFTER_CONFIRM) await effect(tx, confirmed);
}

export async function runAfterDecline(tx: EntityManager, declined: DeclinedBooking): Promise<void> {
  for (const effect of AFTER_DECLINE) await effect(tx, declined);
}
