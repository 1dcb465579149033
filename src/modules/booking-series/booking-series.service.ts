/**
 * A series read, canceled, confirmed or declined as a whole: each occurrence changes exactly as it would alone (its
 * status, webhook event, calendar copies, reminders), in one transaction with the series row locked first, while
 * the e-mail says it once per recipient for the series (on the first occurrence changed, the others keeping a
 * skipped row that says so). A change reaching a single occurrence mails as that occurrence's own.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { findEventType } from '../availability/availability.service.ts';
import type { SeriesRef } from '../booking-messages/message-facts.ts';
import { queueSeriesCancellationMessages, queueSeriesConfirmationMessages, queueSeriesDeclineMessages } from '../booking-messages/message-outbox.ts';
import type { SeriesPart } from '../booking-messages/message-plan.ts';
import { confirmPending, declinePending } from '../bookings/booking-confirmation.service.ts';
import type { Booking, BookingStatus } from '../bookings/bookings.schemas.ts';
import { cancelBookingIn } from '../bookings/bookings.service.ts';
import { readSeries } from './booking-series.rows.ts';
import type { BookingSeries } from './booking-series.schemas.ts';

/** GET /booking-series/{id}: one of the owner's series with every occurrence; another user's is 404. */
export function getBookingSeries(em: EntityManager, ownerId: string, id: string): Promise<BookingSeries> {
  return readSeries(em, ownerId, id);
}

interface UpcomingRow {
  id: string;
  status: BookingStatus;
  invitee_email: string;
}

/**
 * The series' occurrences with one of `statuses` that have not started by `now`, earliest first, each row locked
 * (the caller locked the series row first, so two changes of one series serialise on it).
 */
function lockUpcoming(tx: EntityManager, ownerId: string, seriesId: string, statuses: BookingStatus[], now: Date): Promise<UpcomingRow[]> {
  return tx.execute<UpcomingRow[]>(
    `select id, status, invitee_email from booking
      where series_id = ? and owner_id = ? and status in (select jsonb_array_elements_text(?::jsonb)) and start_at > ?
      order by start_at, id
      for update`,
    [seriesId, ownerId, JSON.stringify(statuses), now],
  );
}

/** Each occurrence's part in the series' one e-mail; none when the change reaches a single occurrence (it mails as its own). */
function partOf(index: number, count: number): SeriesPart | undefined {
  if (count < 2) return undefined;
  return index === 0 ? 'announces' : 'announced';
}

function seriesRefOf(series: BookingSeries): SeriesRef {
  return { id: series.id, frequency: series.recurrence.frequency, interval: series.recurrence.interval };
}

/**
 * Cancels the occurrences still to come (active or pending, not yet started), each as DELETE /bookings/{id} does it
 * (its time freed, its webhook, its reminders dropped and calendar copies), in one transaction, with one
 * cancellation e-mail per recipient for all of them. The series row is locked first, so two cancellations of one
 * series serialise; occurrences already past or canceled are left as they are.
 */
export async function cancelBookingSeries(
  em: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
): Promise<BookingSeries> {
  return em.transactional(async (tx) => {
    const series = await readSeries(tx, ownerId, input.id, { forUpdate: true });
    const upcoming = await lockUpcoming(tx, ownerId, input.id, ['active', 'pending'], now);
    const canceled: { booking: Booking; wasPending: boolean }[] = [];
    for (const [index, row] of upcoming.entries()) {
      const booking = await cancelBookingIn(tx, ownerId, { id: row.id, reason: input.reason }, now, 'host', partOf(index, upcoming.length));
      canceled.push({ booking, wasPending: row.status === 'pending' });
    }
    if (canceled.length > 1) await queueSeriesCancellationMessages(tx, canceled, seriesRefOf(series), now);
    return readSeries(tx, ownerId, input.id);
  });
}

/** The 409 of a series with nothing left to confirm or decline. */
function nothingPending(action: 'confirmed' | 'declined'): DomainError {
  return new DomainError(
    'conflict',
    `This series has no pending occurrence left to be ${action}: each one is confirmed, declined, canceled or has started.`,
  );
}

/**
 * POST /booking-series/{id}/confirm: the series' pending occurrences that have not started become active, each as
 * POST /bookings/{id}/confirm does it (its `booking.confirmed` event, its reminders planned), with one confirmation
 * e-mail per recipient for all of them. 409 when none is left.
 */
export async function confirmBookingSeries(em: EntityManager, ownerId: string, id: string, now: Date): Promise<BookingSeries> {
  return em.transactional(async (tx) => {
    const series = await readSeries(tx, ownerId, id, { forUpdate: true });
    const pending = await lockUpcoming(tx, ownerId, id, ['pending'], now);
    if (pending.length === 0) throw nothingPending('confirmed');
    const eventType = await findEventType(tx, series.eventType.id, ownerId);
    if (!eventType) throw notFound('Booking series');
    const confirmed: Booking[] = [];
    for (const [index, row] of pending.entries()) {
      const booking = { id: row.id, ownerId, inviteeEmail: row.invitee_email };
      confirmed.push(await confirmPending(tx, booking, eventType, now, partOf(index, pending.length)));
    }
    // Nothing at all (no sealed links) for an event type without e-mail.
    if (confirmed.length > 1 && eventType.notifications) await queueSeriesConfirmationMessages(tx, confirmed, seriesRefOf(series), now);
    return readSeries(tx, ownerId, id);
  });
}

/**
 * POST /booking-series/{id}/decline: the series' pending occurrences that have not started become declined, their
 * time freed, each as POST /bookings/{id}/decline does it, with one decline e-mail per recipient for all of them.
 * 409 when none is left.
 */
export async function declineBookingSeries(
  em: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
): Promise<BookingSeries> {
  return em.transactional(async (tx) => {
    const series = await readSeries(tx, ownerId, input.id, { forUpdate: true });
    const pending = await lockUpcoming(tx, ownerId, input.id, ['pending'], now);
    if (pending.length === 0) throw nothingPending('declined');
    const reason = input.reason?.trim() || null;
    const declined: Booking[] = [];
    for (const [index, row] of pending.entries()) {
      const booking = { id: row.id, ownerId, inviteeEmail: row.invitee_email };
      declined.push(await declinePending(tx, booking, reason, now, partOf(index, pending.length)));
    }
    if (declined.length > 1) await queueSeriesDeclineMessages(tx, declined, seriesRefOf(series), now);
    return readSeries(tx, ownerId, input.id);
  });
}
