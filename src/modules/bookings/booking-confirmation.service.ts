/**
 * Approval of bookings by the host (event types with `requiresConfirmation`): a `pending` booking holds its time
 * until the host confirms it (`active`) or declines it (`declined`, its time freed), and one still pending when it
 * starts is declined by the background worker below (with its series' other requests, when it is a series').
 * Every change runs its list of side effects (webhook event, e-mail: after-booking-change.ts) in its transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PENDING_EXPIRY } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError, notFound } from '../../lib/errors.ts';
import { startPollingWorker } from '../../lib/polling-worker.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { toDate } from '../../lib/sql-values.ts';
import { contactLockKey, refreshContacts } from '../contacts/contacts.projection.ts';
import { findEventType } from '../availability/availability.service.ts';
import type { SeriesPart } from '../booking-messages/message-plan.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { runAfterConfirm, runAfterDecline } from './after-booking-change.ts';
import { readBooking, readBookingRow } from './booking.rows.ts';
import type { Booking } from './bookings.schemas.ts';
import { releaseBusyBlocks } from './busy-blocks.ts';

/** The decline reason the service gives a booking nobody confirmed before it started. */
export const UNCONFIRMED_REASON = 'Not confirmed before the start.';

/**
 * POST /bookings/{id}/confirm: a pending booking becomes active. Confirming an active booking changes nothing;
 * a canceled or declined one, or one whose start has passed, is 409.
 */
export async function confirmBooking(em: EntityManager, ownerId: string, id: string, now: Date): Promise<Booking> {
  return em.transactional(async (tx) => {
    const locked = await readBookingRow(tx, ownerId, id, { forUpdate: true });
    if (!locked) throw notFound('Booking');
    if (locked.status === 'active') return readBooking(tx, ownerId, id);
    if (locked.status !== 'pending') {
      throw new DomainError('conflict', `This booking is ${locked.status} and cannot be confirmed; create a new booking instead.`);
    }
    if (toDate(locked.start_at) <= now) {
      throw new DomainError('conflict', 'This booking was not confirmed before its start, so it is declined; create a new booking instead.');
    }
    const eventType = await findEventType(tx, locked.event_type_id, ownerId);
    if (!eventType) throw notFound('Booking');
    return confirmPending(tx, { id, ownerId, inviteeEmail: locked.invitee_email }, eventType, now);
  });
}

/**
 * A pending booking, locked by the caller and not started, becomes active, with its effects. `series`: its part in
 * its series' one confirmation e-mail, when the host confirms the series' requests at once.
 */
export async function confirmPending(tx: EntityManager, booking: PendingBooking, eventType: EventTypeRecord, now: Date, series?: SeriesPart): Promise<Booking> {
  await tx.execute(`update booking set status = 'active', updated_at = ? where id = ?`, [now, booking.id], 'run');
  await refreshContacts(tx, booking.ownerId, [booking.inviteeEmail]);
  const confirmed = await readBooking(tx, booking.ownerId, booking.id);
  await runAfterConfirm(tx, { booking: confirmed, eventType, ownerId: booking.ownerId, now, series });
  return confirmed;
}

/**
 * POST /bookings/{id}/decline: a pending booking becomes declined and frees its time. Declining a declined
 * booking changes nothing (the first reason stays); an active one must be canceled instead (409).
 */
export async function declineBooking(
  em: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
): Promise<Booking> {
  return em.transactional(async (tx) => {
    const locked = await readBookingRow(tx, ownerId, input.id, { forUpdate: true });
    if (!locked) throw notFound('Booking');
    if (locked.status === 'declined') return readBooking(tx, ownerId, input.id);
    if (locked.status !== 'pending') {
      const instead = locked.status === 'active' ? ': it is confirmed already; cancel it instead (DELETE /bookings/{id})' : '';
      throw new DomainError('conflict', `This booking is ${locked.status} and cannot be declined${instead}.`);
    }
    return declinePending(tx, { id: input.id, ownerId, inviteeEmail: locked.invitee_email }, input.reason?.trim() || null, now);
  });
}

/** A pending booking, locked by the caller. */
export interface PendingBooking {
  id: string;
  ownerId: string;
  inviteeEmail: string;
}

/**
 * The host declines a pending booking the caller locked, with its effects. `series`: its part in its series' one
 * decline e-mail, when the host declines the series' requests at once.
 */
export function declinePending(tx: EntityManager, booking: PendingBooking, reason: string | null, now: Date, series?: SeriesPart): Promise<Booking> {
  return decline(tx, booking, now, reason, now, false, series);
}

/**
 * The service declines a pending booking the caller locked because nobody confirmed it in time: dated
 * `declinedAt`, with `reason`, and its part (`series`) when its series' requests lapse together (see
 * declineUnconfirmedSeries in booking-series.service.ts).
 */
export function declineExpired(
  tx: EntityManager,
  booking: PendingBooking,
  declinedAt: Date,
  reason: string,
  now: Date,
  series?: SeriesPart,
): Promise<Booking> {
  return decline(tx, booking, declinedAt, reason, now, true, series);
}

/** `expired`: the service declines it because its start passed unconfirmed. */
async function decline(
  tx: EntityManager,
  booking: PendingBooking,
  declinedAt: Date,
  reason: string | null,
  now: Date,
  expired: boolean,
  series?: SeriesPart,
): Promise<Booking> {
  await tx.execute(
    `update booking set status = 'declined', declined_at = ?, decline_reason = ?, updated_at = ? where id = ?`,
    [declinedAt, reason, now, booking.id],
    'run',
  );
  await releaseBusyBlocks(tx, booking.id);
  await refreshContacts(tx, booking.ownerId, [booking.inviteeEmail]);
  const declined = await readBooking(tx, booking.ownerId, booking.id);
  await runAfterDecline(tx, { booking: declined, ownerId: booking.ownerId, now, expired, series });
  return declined;
}

/** How a series' requests lapse together (booking-series.service.ts, a module built on this one, so passed in). */
export type DeclineUnconfirmedSeries = (em: EntityManager, now: Date, batch: number) => Promise<number>;

/**
 * Declines up to a batch of single pending bookings whose start has passed, as of the app's clock, in one
 * transaction, then (`series`) the series whose first pending occurrence has. `for update skip locked` lets every
 * instance run this at once without two declining the same booking; the decline is dated at the booking's start,
 * when it stopped being confirmable. Returns how many bookings whose start passed it declined.
 */
export async function declineUnconfirmed(
  em: EntityManager,
  now: Date,
  batch: number = PENDING_EXPIRY.batch,
  series?: DeclineUnconfirmedSeries,
): Promise<number> {
  // One indexed look first (booking_pending_start_idx), so an idle poll is a single statement, not a transaction.
  const [due] = await executePrepared(em, 'booking.pending-due', `select 1 from booking where status = 'pending' and start_at <= ? limit 1`, [now]);
  if (!due) return 0;
  const single = await em.transactional(async (tx) => {
    const due = await tx.execute<{ id: string; owner_id: string; invitee_email: string; start_at: string }[]>(
      `select id, owner_id, invitee_email, start_at from booking
        where status = 'pending' and start_at <= ? and series_id is null
        order by start_at, id
        limit ? for update skip locked`,
      [now, batch],
    );
    // Each decline refreshes its invitee's contact under that contact's lock until the commit: taken in one order
    // (the locks' keys), so two instances' batches sharing invitees queue instead of deadlocking.
    const byContact = (row: (typeof due)[number]) => contactLockKey(row.owner_id, row.invitee_email);
    due.sort((a, b) => (byContact(a) < byContact(b) ? -1 : byContact(a) > byContact(b) ? 1 : 0));
    for (const row of due) {
      await decline(tx, { id: row.id, ownerId: row.owner_id, inviteeEmail: row.invitee_email }, toDate(row.start_at), UNCONFIRMED_REASON, now, true);
    }
    return due.length;
  });
  return single + (series ? await series(em, now, batch) : 0);
}

/** The background loop of declineUnconfirmed, on every instance (each with the app's clock). */
export function startPendingExpiryWorker(options: {
  emOf: () => EntityManager;
  clock: Clock;
  series: DeclineUnconfirmedSeries;
  onError: (error: unknown) => void;
}): {
  stop(): Promise<void>;
} {
  return startPollingWorker({
    runBatch: () => declineUnconfirmed(options.emOf(), options.clock.now(), PENDING_EXPIRY.batch, options.series),
    batch: PENDING_EXPIRY.batch,
    pollMs: PENDING_EXPIRY.pollMs,
    onError: options.onError,
  });
}
