/**
 * The `booking` table as the service reads it. The table itself is described by its migrations alone (no ORM
 * entity): every query of it is SQL (keyset paging, the booking transaction with its advisory locks), and this
 * is its one row type, select list and mapper. `busy_block` and `booking_busy_block` are written and read
 * only by the booking transaction (booking-creation.service.ts, busy-blocks.ts) and the slot engine's busy-time
 * query; no other code reads their rows.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import type { Booking } from './bookings.schemas.ts';

export const BOOKING_STATUSES = ['active', 'canceled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

/** A booking joined with its event type's name and slug (the reference a Booking carries). */
export interface BookingRow {
  id: string;
  owner_id: string;
  host_id: string;
  event_type_id: string;
  event_type_name: string;
  event_type_slug: string;
  start_at: SqlTimestamp;
  end_at: SqlTimestamp;
  duration_min: number;
  status: BookingStatus;
  location_kind: string | null;
  location_value: string | null;
  invitee_name: string;
  invitee_email: string;
  invitee_timezone: string;
  notes: string | null;
  answers: { questionId: string; value: string }[];
  guests: string[];
  no_show: boolean;
  canceled_at: SqlTimestamp | null;
  cancel_reason: string | null;
  canceled_by: string | null;
  created_at: SqlTimestamp;
}

/** BookingRow's own columns, all but the event type's name and slug. */
const BOOKING_OWN_COLUMNS = [
  'id', 'owner_id', 'host_id', 'event_type_id', 'start_at', 'end_at', 'duration_min', 'status', 'location_kind',
  'location_value', 'invitee_name', 'invitee_email', 'invitee_timezone', 'notes', 'answers', 'guests', 'no_show',
  'canceled_at', 'cancel_reason', 'canceled_by', 'created_at',
];

/** The select list that produces a BookingRow from BOOKING_FROM. */
export const BOOKING_COLUMNS = [
  ...BOOKING_OWN_COLUMNS.map((column) => `b.${column}`),
  'et.name as event_type_name',
  'et.slug as event_type_slug',
].join(', ');

/** A RETURNING clause on `booking` for BookingRow's own columns (the event type's name and slug come from elsewhere). */
export const BOOKING_RETURNING = BOOKING_OWN_COLUMNS.join(', ');

export const BOOKING_FROM = 'booking b join event_type et on et.id = b.event_type_id';

export function toBooking(row: BookingRow): Booking {
  return {
    id: row.id,
    eventType: { id: row.event_type_id, name: row.event_type_name, slug: row.event_type_slug },
    startAt: toIsoString(row.start_at),
    endAt: toIsoString(row.end_at),
    durationMin: row.duration_min,
    status: row.status,
    location: row.location_kind ? { kind: row.location_kind, value: row.location_value } : null,
    invitee: { name: row.invitee_name, email: row.invitee_email, timezone: row.invitee_timezone },
    notes: row.notes,
    answers: row.answers,
    guests: row.guests,
    noShow: row.no_show,
    canceledAt: toIsoStringOrNull(row.canceled_at),
    cancelReason: row.cancel_reason,
    canceledBy: row.canceled_by,
    createdAt: toIsoString(row.created_at),
  };
}

/**
 * One of the owner's bookings as its row; with `forUpdate`, the booking row is locked for the rest of the
 * transaction (two writers of one booking serialise on it; the event type is not locked).
 */
export async function readBookingRow(
  em: EntityManager,
  ownerId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<BookingRow | undefined> {
  const [row] = await em.execute<BookingRow[]>(
    `select ${BOOKING_COLUMNS} from ${BOOKING_FROM} where b.id = ? and b.owner_id = ?${options.forUpdate ? ' for update of b' : ''}`,
    [id, ownerId],
  );
  return row;
}

/** One of the owner's bookings as the API shows it; 404 when it is not theirs. */
export async function readBooking(em: EntityManager, ownerId: string, id: string): Promise<Booking> {
  const row = await readBookingRow(em, ownerId, id);
  if (!row) throw notFound('Booking');
  return toBooking(row);
}
