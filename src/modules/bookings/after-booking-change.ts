/**
 * What happens after a booking is rescheduled, canceled or declined, in the same transaction (as AFTER_BOOKING
 * for a new booking): one row of AFTER_CHANGE per kind of change, its effects run in the columns' order. The hosts'
 * calendar copies come first because the booking sent on (webhook, e-mail) carries their state.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { queueCancellationMessages, queueRescheduleMessages } from '../booking-messages/message-outbox.ts';
import { bookingEventStates, queueCanceledBookingEvents, queueRescheduledBookingEvents } from '../calendars/booking-events.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { WebhookEventType } from '../webhooks/webhooks.schemas.ts';
import type { Booking } from './bookings.schemas.ts';

export interface CanceledBooking {
  booking: Booking;
  ownerId: string;
  now: Date;
}

export interface RescheduledBooking extends CanceledBooking {
  /** Its time before the move. */
  previous: { startAt: string; endAt: string };
  eventType: EventTypeRecord;
}

/** The effects of one kind of change, run in this order. */
interface ChangeEffects<Change extends CanceledBooking> {
  /** The hosts' CalDAV copies, through the write-back's outbox. */
  hostCalendars: (tx: EntityManager, bookingId: string, now: Date) => Promise<void>;
  webhook: Exclude<WebhookEventType, 'ping'>;
  /** The e-mail to the invitee and the hosts, and the reminders not sent yet. */
  messages: (tx: EntityManager, change: Change) => Promise<void>;
}

const cancellationMessages = (tx: EntityManager, { booking, now }: CanceledBooking) => queueCancellationMessages(tx, booking, now);

const AFTER_CHANGE: {
  rescheduled: ChangeEffects<RescheduledBooking>;
  canceled: ChangeEffects<CanceledBooking>;
  declined: ChangeEffects<CanceledBooking>;
} = {
  rescheduled: {
    hostCalendars: queueRescheduledBookingEvents,
    webhook: 'booking.rescheduled',
    messages: (tx, { booking, previous, eventType, now }) => queueRescheduleMessages(tx, booking, previous, eventType.reminders, now),
  },
  canceled: { hostCalendars: queueCanceledBookingEvents, webhook: 'booking.canceled', messages: cancellationMessages },
  // A declined request is over for everyone: the hosts' copies go, and the invitee's invitation is withdrawn (a
  // cancellation, METHOD:CANCEL, with the host's reason).
  declined: { hostCalendars: queueCanceledBookingEvents, webhook: 'booking.declined', messages: cancellationMessages },
};

async function runAfterChange<Change extends CanceledBooking>(tx: EntityManager, effects: ChangeEffects<Change>, change: Change): Promise<void> {
  const { booking, ownerId, now } = change;
  await effects.hostCalendars(tx, booking.id, now);
  booking.calendarEvents = await bookingEventStates(tx, booking.id);
  await emitWebhookEvent(tx, ownerId, effects.webhook, booking, now);
  await effects.messages(tx, change);
}

export const runAfterReschedule = (tx: EntityManager, moved: RescheduledBooking) => runAfterChange(tx, AFTER_CHANGE.rescheduled, moved);

export const runAfterCancel = (tx: EntityManager, canceled: CanceledBooking) => runAfterChange(tx, AFTER_CHANGE.canceled, canceled);

export const runAfterDecline = (tx: EntityManager, declined: CanceledBooking) => runAfterChange(tx, AFTER_CHANGE.declined, declined);
