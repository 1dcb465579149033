/**
 * The `booking` table as the service reads it. The table itself is described by its migrations alone (no ORM
 * entity): every query of it is SQL (keyset paging, the booking transaction with its advisory locks), and its
 * columns are described here once: the row type and the select, RETURNING and INSERT lists derive from them.
 * `busy_block` and `booking_busy_block` are written and read only by the booking transaction
 * (booking-creation.service.ts, slot-reservation.ts, busy-blocks.ts) and the slot engine's busy-time query.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { column, returningList, type RowOf, selectList } from '../../lib/table-columns.ts';
import { CALENDAR_EVENTS_OF_BOOKING, type CalendarEventJson, toCalendarEventStates } from '../calendars/booking-events.ts';
import type { Booking, BookingStatus } from './bookings.schemas.ts';

/** BookingRow's own columns, as the `booking` table has them. */
const BOOKING_OWN_COLUMNS = {
  id: column<string>(),
  owner_id: column<string>(),
  host_id: column<string>(),
  event_type_id: column<string>(),
  start_at: column<SqlTimestamp>(),
  end_at: column<SqlTimestamp>(),
  duration_min: column<number>(),
  status: column<BookingStatus>(),
  location_kind: column<string | null>(),
  location_value: column<string | null>(),
  invitee_name: column<string>(),
  invitee_email: column<string>(),
  invitee_timezone: column<string>(),
  notes: column<string | null>(),
  answers: column<NonNullable<Booking['answers']>>(),
  guests: column<string[]>(),
  no_show: column<boolean>(),
  canceled_at: column<SqlTimestamp | null>(),
  cancel_reason: column<string | null>(),
  canceled_by: column<string | null>(),
  declined_at: column<SqlTimestamp | null>(),
  decline_reason: column<string | null>(),
  series_id: column<string | null>(),
  created_at: column<SqlTimestamp>(),
};

/** The columns of `booking` that are written but never read back into a BookingRow. */
export const BOOKING_WRITE_ONLY_COLUMNS = {
  invitee_phone: column<string | null>(),
  invitee_sms_opt_in: column<boolean>(),
  manage_token_hash: column<string | null>(),
  /** The iCalendar SEQUENCE of the booking's event: one more on every reschedule and cancellation. */
  sequence: column<number>(),
  updated_at: column<SqlTimestamp>(),
};

/** A booking joined with its event type's name and slug (the reference a Booking carries). */
export const BOOKING_ROW_COLUMNS = {
  ...BOOKING_OWN_COLUMNS,
  event_type_name: column<string>('et.name'),
  event_type_slug: column<string>('et.slug'),
};

/**
 * Read with every booking but optional in a BookingRow: the write-back's states, which a new booking's row gets
 * from its after-booking effect instead (and the bench's hand-built rows never have).
 */
const BOOKING_CALENDAR_COLUMNS = {
  calendar_events: column<CalendarEventJson[]>(CALENDAR_EVENTS_OF_BOOKING),
};

export type BookingOwnRow = RowOf<typeof BOOKING_OWN_COLUMNS>;
export type BookingRow = RowOf<typeof BOOKING_ROW_COLUMNS> & Partial<RowOf<typeof BOOKING_CALENDAR_COLUMNS>>;
export type BookingColumn = keyof typeof BOOKING_OWN_COLUMNS | keyof typeof BOOKING_WRITE_ONLY_COLUMNS;

/** The select list that produces a BookingRow from BOOKING_FROM. */
export const BOOKING_COLUMNS = selectList('b', { ...BOOKING_ROW_COLUMNS, ...BOOKING_CALENDAR_COLUMNS });

/** A RETURNING clause on `booking` for BookingRow's own columns (the event type's name and slug come from elsewhere). */
export const BOOKING_RETURNING = returningList(BOOKING_OWN_COLUMNS);

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
    declinedAt: toIsoStringOrNull(row.declined_at),
    declineReason: row.decline_reason,
    seriesId: row.series_id,
    createdAt: toIsoString(row.created_at),
    ...(row.calendar_events ? { calendarEvents: toCalendarEventStates(row.calendar_events) } : {}),
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
