/**
 * A series read, canceled, confirmed or declined as a whole: each occurrence changes exactly as it would alone (its
 * status, webhook event, calendar copies, reminders), in one transaction with the series row locked first, while
 * the e-mail says it once per recipient for the series (on the first occurrence changed, the others keeping a
 * skipped row that says so). A change reaching a single occurrence mails as that occurrence's own. A series of
 * requests nobody answers lapses the same way, as a whole, at its first pending occurrence's start.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { toDate } from '../../lib/sql-values.ts';
import { findEventType } from '../availability/availability.service.ts';
import type { SeriesRef } from '../booking-messages/message-facts.ts';
import { queueSeriesCancellationMessages, queueSeriesConfirmationMessages, queueSeriesDeclineMessages } from '../booking-messages/message-outbox.ts';
import type { SeriesPart } from '../booking-messages/message-plan.ts';
import { confirmPending, declineExpired, declinePending, UNCONFIRMED_REASON } from '../bookings/booking-confirmation.service.ts';
import type { Booking, BookingStatus } from '../bookings/bookings.schemas.ts';
import { cancelBookingIn } from '../bookings/bookings.service.ts';
import { readSeries } from './booking-series.rows.ts';
import type { BookingSeries } from './booking-series.schemas.ts';
import type { Frequency } from './occurrences.ts';

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

/** The decline reason of a series' later requests, declined with the earliest one nobody confirmed before its start. */
export const UNCONFIRMED_SERIES_REASON = 'Not confirmed before an earlier meeting of its series started.';

/**
 * A series of requests the host never answered lapses as a whole: once its earliest pending occurrence starts
 * unconfirmed, every pending occurrence of the series is declined with it, each as the expiry of a single request
 * does it (its `booking.declined`, its time freed), dated at that start, with one decline e-mail per recipient.
 * Each series in its own transaction, its row locked first (skipped while another instance or a change of the
 * series holds it: the next poll sees what is left), then its occurrences earliest first, as the series' other
 * changes lock them. Returns how many occurrences whose start passed it declined (the expiry worker's batch count).
 */
export async function declineUnconfirmedSeries(em: EntityManager, now: Date, batch: number): Promise<number> {
  const due = await em.execute<{ series_id: string }[]>(
    `select distinct series_id from booking where status = 'pending' and start_at <= ? and series_id is not null limit ?`,
    [now, batch],
  );
  let declined = 0;
  for (const { series_id } of due) declined += await declineLapsedSeries(em, series_id, now);
  return declined;
}

async function declineLapsedSeries(em: EntityManager, seriesId: string, now: Date): Promise<number> {
  return em.transactional(async (tx) => {
    const [series] = await tx.execute<{ owner_id: string; frequency: Frequency; repeat_interval: number }[]>(
      'select owner_id, frequency, repeat_interval from booking_series where id = ? for update skip locked',
      [seriesId],
    );
    if (!series) return 0;
    const pending = await tx.execute<{ id: string; invitee_email: string; start_at: string }[]>(
      `select id, invitee_email, start_at from booking
        where series_id = ? and owner_id = ? and status = 'pending'
        order by start_at, id
        for update`,
      [seriesId, series.owner_id],
    );
    // Confirmed, declined or canceled since the look above: nothing has lapsed.
    if (!pending[0] || toDate(pending[0].start_at) > now) return 0;
    const lapsedAt = toDate(pending[0].start_at);
    const declined: Booking[] = [];
    for (const [index, row] of pending.entries()) {
      const booking = { id: row.id, ownerId: series.owner_id, inviteeEmail: row.invitee_email };
      const reason = index === 0 ? UNCONFIRMED_REASON : UNCONFIRMED_SERIES_REASON;
      declined.push(await declineExpired(tx, booking, lapsedAt, reason, now, partOf(index, pending.length)));
    }
    if (declined.length > 1) {
      const ref = { id: seriesId, frequency: series.frequency, interval: series.repeat_interval };
      await queueSeriesDeclineMessages(tx, declined, ref, now, true);
    }
    return pending.filter((row) => toDate(row.start_at) <= now).length;
  });
}
