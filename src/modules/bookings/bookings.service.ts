import type { EntityManager } from '@mikro-orm/postgresql';
import { runAfterCancel } from './after-booking-change.ts';
import { notFound } from '../../lib/errors.ts';
import { openKeyset, type Page, sortKeySql } from '../../lib/keyset.ts';
import { releaseBusyBlocks } from './busy-blocks.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import {
  BOOKING_COLUMNS,
  BOOKING_FROM,
  type BookingRow,
  readBooking,
  readBookingRow,
  toBooking,
} from './booking.rows.ts';
import type { Booking, BookingStatus } from './bookings.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import type { SeriesPart } from '../booking-messages/message-plan.ts';

export interface ListBookingsQuery {
  status?: BookingStatus;
  eventTypeId?: string;
  /** By start time: latest first (the default) or earliest first. */
  order?: 'desc' | 'asc';
  /** Instants, already validated (from ≤ to). */
  from?: Date;
  to?: Date;
  cursor?: string;
  limit: number;
}

type BookingPageRow = BookingRow & { sort_key: string };

/**
 * The user's bookings, newest first: by start time descending, then id descending so that bookings
 * starting together still have one fixed order (or both ascending with `order: 'asc'`). Keyset paging over
 * booking_owner_start_idx, which serves either direction.
 */
export async function listBookings(em: EntityManager, ownerId: string, query: ListBookingsQuery): Promise<Page<Booking>> {
  const keyset = await openKeyset(
    em,
    {
      resource: 'bookings',
      userId: ownerId,
      filter: {
        status: query.status,
        eventTypeId: query.eventTypeId,
        // Only when not the default, so that a cursor issued before `order` existed stays valid.
        order: query.order === 'asc' ? 'asc' : undefined,
        from: query.from?.toISOString(), to: query.to?.toISOString() },
    },
    query.cursor,
  );
  const after = keyset.after;
  const ascending = query.order === 'asc';

  const conditions = ['b.owner_id = ?'];
  const params: unknown[] = [ownerId];
  if (query.status) {
    conditions.push('b.status = ?');
    params.push(query.status);
  }
  if (query.eventTypeId) {
    conditions.push('b.event_type_id = ?');
    params.push(query.eventTypeId);
  }
  if (query.from) {
    conditions.push('b.start_at >= ?');
    params.push(query.from);
  }
  if (query.to) {
    conditions.push('b.start_at <= ?');
    params.push(query.to);
  }
  if (after) {
    // A row-value comparison: an index range scan, so a deep page costs what the first one does.
    conditions.push(`(b.start_at, b.id) ${ascending ? '>' : '<'} (?::timestamptz, ?)`);
    params.push(after.key, after.id);
  }
  params.push(query.limit + 1);
  const rows = await executePrepared<BookingPageRow>(
    em,
    'bookings.list',
    `select ${BOOKING_COLUMNS}, ${sortKeySql('b.start_at')} as sort_key
       from ${BOOKING_FROM}
      where ${conditions.join(' and ')}
      order by b.start_at ${ascending ? 'asc' : 'desc'}, b.id ${ascending ? 'asc' : 'desc'}
      limit ?`,
    params,
  );
  return keyset.page(rows, query.limit, toBooking);
}

/** GET /bookings/{id}: one of the owner's bookings; 404 when it is not theirs. */
export function getBooking(em: EntityManager, ownerId: string, id: string): Promise<Booking> {
  return readBooking(em, ownerId, id);
}

/** Who cancels: the host (through the API or the dashboard) or the invitee (through their private manage link). */
export type CanceledBy = 'host' | 'invitee';

/**
 * Cancels a booking the user owns (active or pending), as the host (or for the invitee, `by: 'invitee'`).
 * Idempotent: a canceled booking is returned as it is, with the first cancellation's time and reason; so is a
 * declined one. The booking row is locked first, so
 * concurrent cancels serialise on it; a busy block stops being active, freeing the host's time, once no active
 * booking remains on it.
 */
export async function cancelBooking(
  em: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
  by: CanceledBy = 'host',
): Promise<Booking> {
  return em.transactional((tx) => cancelBookingIn(tx, ownerId, input, now, by));
}

/**
 * cancelBooking's work inside the caller's transaction (a series cancels its occurrences in one, each with its
 * part in the series' one cancellation e-mail, `series`).
 */
export async function cancelBookingIn(
  tx: EntityManager,
  ownerId: string,
  input: { id: string; reason?: string | undefined },
  now: Date,
  by: CanceledBy = 'host',
  series?: SeriesPart,
): Promise<Booking> {
  const reason = input.reason?.trim() || null;
  const locked = await readBookingRow(tx, ownerId, input.id, { forUpdate: true });
  if (!locked) throw notFound('Booking');
  if (locked.status === 'active' || locked.status === 'pending') {
    await tx.execute(
      `update booking
          set status = 'canceled', canceled_at = ?, cancel_reason = ?, canceled_by = ?, sequence = sequence + 1, updated_at = ?
        where id = ?`,
      [now, reason, by, now, input.id],
      'run',
    );
    await releaseBusyBlocks(tx, input.id);
    await refreshContacts(tx, ownerId, [locked.invitee_email]);
    const canceled = await readBooking(tx, ownerId, input.id);
    await runAfterCancel(tx, { booking: canceled, ownerId, now, wasPending: locked.status === 'pending', series });
    return canceled;
  }
  return readBooking(tx, ownerId, input.id);
}
