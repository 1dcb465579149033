/**
 * The `booking_series` table as the service reads it (SQL, like `booking`, whose rows it groups): its columns
 * described once, the insert, and the one read of a series with its occurrences.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';
import { column, insertInto, type RowOf, selectList } from '../../lib/table-columns.ts';
import { BOOKING_COLUMNS, BOOKING_FROM, type BookingRow, toBooking } from '../bookings/booking.rows.ts';
import type { BookingSeries } from './booking-series.schemas.ts';
import type { Frequency } from './occurrences.ts';

export const SERIES_ROW_COLUMNS = {
  id: column<string>(),
  owner_id: column<string>(),
  event_type_id: column<string>(),
  host_id: column<string>(),
  frequency: column<Frequency>(),
  repeat_interval: column<number>(),
  occurrence_count: column<number>(),
  time_zone: column<string>(),
  first_start_at: column<SqlTimestamp>(),
  created_at: column<SqlTimestamp>(),
  event_type_name: column<string>('et.name'),
  event_type_slug: column<string>('et.slug'),
};

export type SeriesRow = RowOf<typeof SERIES_ROW_COLUMNS>;
type SeriesOwnRow = Omit<SeriesRow, 'event_type_name' | 'event_type_slug'>;

export const SERIES_INSERT = insertInto('booking_series', {
  id: '?',
  owner_id: '?',
  event_type_id: '?',
  host_id: '?',
  frequency: '?',
  repeat_interval: '?',
  occurrence_count: '?',
  time_zone: '?',
  first_start_at: '?',
  created_at: '?',
});

export async function insertSeries(tx: EntityManager, row: SeriesOwnRow): Promise<void> {
  await tx.execute(
    SERIES_INSERT,
    [row.id, row.owner_id, row.event_type_id, row.host_id, row.frequency, row.repeat_interval, row.occurrence_count, row.time_zone, row.first_start_at, row.created_at],
    'run',
  );
}

export function toBookingSeries(row: SeriesRow, bookings: BookingRow[]): BookingSeries {
  return {
    id: row.id,
    eventType: { id: row.event_type_id, name: row.event_type_name, slug: row.event_type_slug },
    hostId: row.host_id,
    timeZone: row.time_zone,
    recurrence: { frequency: row.frequency, interval: row.repeat_interval, count: row.occurrence_count },
    startAt: toIsoString(row.first_start_at),
    createdAt: toIsoString(row.created_at),
    bookings: bookings.map(toBooking),
  };
}

/** One of the owner's series with every occurrence, earliest first; with `forUpdate`, the series row is locked. */
export async function readSeries(em: EntityManager, ownerId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<BookingSeries> {
  const [row] = await em.execute<SeriesRow[]>(
    `select ${selectList('s', SERIES_ROW_COLUMNS)} from booking_series s join event_type et on et.id = s.event_type_id
      where s.id = ? and s.owner_id = ?${options.forUpdate ? ' for update of s' : ''}`,
    [id, ownerId],
  );
  if (!row) throw notFound('Booking series');
  const bookings = await em.execute<BookingRow[]>(
    `select ${BOOKING_COLUMNS} from ${BOOKING_FROM} where b.series_id = ? and b.owner_id = ? order by b.start_at, b.id`,
    [id, ownerId],
  );
  return toBookingSeries(row, bookings);
}
