/**
 * Rescheduling moves a booking (the same id) to another slot the engine would offer, in one `bookingTransaction`,
 * so a failure anywhere leaves the booking at its old time. It takes the calendar turns of the old host and of the
 * event type's hosts, releases the booking's own busy time first (so it does not count against the new slot), then
 * runs booking creation's slot check and block writes (`reserveSlot`). Moving to the current time is a no-op, so a
 * retried reschedule gets the same answer.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { toDate, toIsoString } from '../../lib/sql-values.ts';
import { findEventType, loadHosts } from '../availability/availability.service.ts';
import { releaseBusyBlocks } from './busy-blocks.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import { assertBookable, refreshBeforeDeciding } from './booking-creation.service.ts';
import { reserveSlot } from './slot-reservation.ts';
import { bookingTransaction, lockHostCalendars } from './booking-transaction.ts';
import { readBooking, readBookingRow } from './booking.rows.ts';
import { runAfterReschedule } from './after-booking-change.ts';
import type { Booking } from './bookings.schemas.ts';
import type { IdempotencyScope } from '../../lib/idempotency-key.ts';
import { claimIdempotencyKey, requestHash, storeIdempotentResponse } from './idempotency.ts';

export interface RescheduleInput {
  id: string;
  start: string;
  durationMin?: number | undefined;
}

export interface RescheduleOptions {
  now: Date;
  idempotency?: IdempotencyScope;
  /** The request's deadline: once it has passed, the transaction rolls back instead of committing. */
  deadline?: AbortSignal | undefined;
  /** Refreshes the hosts' connected calendars synced too long ago, with a bounded wait, before the slot is decided. */
  calendarRefresh?: StaleRefresh | undefined;
}

export interface RescheduleResult {
  booking: Booking;
  /** True when this is the stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export async function rescheduleBooking(
  em: EntityManager,
  ownerId: string,
  input: RescheduleInput,
  options: RescheduleOptions,
): Promise<RescheduleResult> {
  if (options.calendarRefresh) {
    // Read outside the transaction: an unknown booking is left to its 404 inside.
    const current = await readBookingRow(em, ownerId, input.id);
    if (current) await refreshBeforeDeciding(em, current.event_type_id, options.calendarRefresh);
  }
  // The operation is part of the hash: a key used for another kind of request is never replayed here.
  const hash = options.idempotency ? requestHash({ operation: 'reschedule', ...input }) : '';
  return bookingTransaction(em, async (tx) => {
    if (options.idempotency) {
      const stored = await claimIdempotencyKey(tx, options.idempotency, hash);
      if (stored) return { booking: stored.body as Booking, replayed: true };
    }
    const booking = await moveBooking(tx, ownerId, input, options.now);
    if (options.idempotency) await storeIdempotentResponse(tx, options.idempotency, { status: 200, body: booking });
    return { booking, replayed: false };
  }, options.deadline);
}

async function moveBooking(tx: EntityManager, ownerId: string, input: RescheduleInput, now: Date): Promise<Booking> {
  const locked = await readBookingRow(tx, ownerId, input.id, { forUpdate: true });
  if (!locked) throw notFound('Booking');
  if (locked.status !== 'active' && locked.status !== 'pending') {
    throw new DomainError('conflict', `This booking is ${locked.status} and cannot be rescheduled; create a new booking instead.`);
  }
  const eventType = await findEventType(tx, locked.event_type_id, ownerId);
  if (!eventType) throw notFound('Booking');
  const durationMin = input.durationMin ?? locked.duration_min;
  assertBookable(eventType, durationMin);

  const start = Date.parse(input.start);
  if (start === toDate(locked.start_at).getTime() && durationMin === locked.duration_min) return readBooking(tx, ownerId, input.id);

  // The calendars of the old host and of every host the new time may take, before anything of them is touched,
  // in the one order every booking uses (reserveSlot's own locks are then already held).
  const hosts = await loadHosts(tx, eventType);
  await lockHostCalendars(tx, [locked.host_id, ...hosts.map((host) => host.id)], now);
  // Release the old time as a cancellation would, except that this booking stays active.
  await releaseBusyBlocks(tx, input.id);
  const released = await tx.execute<{ busy_block_id: string }[]>(
    'delete from booking_busy_block where booking_id = ? returning busy_block_id',
    [input.id],
  );
  if (released.length > 0) {
    await tx.execute(
      `delete from busy_block bb
        where bb.id in (?) and not exists (select 1 from booking_busy_block l where l.busy_block_id = bb.id)`,
      [released.map((row) => row.busy_block_id)],
      'run',
    );
  }

  const reserved = await reserveSlot(tx, eventType, start, durationMin, now, {
    preferredHostId: locked.host_id,
    calendarsLocked: true,
  });
  // A no-show belonged to the old time; the moved meeting has not happened yet. The event's iCalendar SEQUENCE grows.
  await tx.execute(
    `update booking set start_at = ?, end_at = ?, duration_min = ?, host_id = ?, no_show = false, sequence = sequence + 1, updated_at = ?
      where id = ?`,
    [reserved.start, reserved.end, durationMin, reserved.hostId, now, input.id],
    'run',
  );
  for (const blockId of reserved.blockIds) {
    await tx.execute('insert into booking_busy_block (booking_id, busy_block_id) values (?, ?)', [input.id, blockId], 'run');
  }
  await refreshContacts(tx, ownerId, [locked.invitee_email]);
  const booking = await readBooking(tx, ownerId, input.id);
  const previous = { startAt: toIsoString(locked.start_at), endAt: toIsoString(locked.end_at) };
  await runAfterReschedule(tx, { booking, previous, eventType, ownerId, now });
  return booking;
}
