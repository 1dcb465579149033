/**
 * The `booking_series` table as the service reads it (SQL, like `booking`, whose rows it groups): its columns
 * described once, the insert of a series with its occurrences, and the one read of a series with them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';
import { column, insertInto, type RowOf, selectList } from '../../lib/table-columns.ts';
import { BOOKING_INSERT_COLUMNS, BOOKING_INSERT_VALUES, type BookingValues, type CreatedBookingRow } from '../bookings/booking-creation.service.ts';
import { BOOKING_COLUMNS, BOOKING_FROM, BOOKING_RETURNING, type BookingRow, toBooking } from '../bookings/booking.rows.ts';
import { contactLockKey } from '../contacts/contacts.projection.ts';
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

/** The columns that differ between a series' occurrences, with their types; every other is the same for all. */
const PER_OCCURRENCE = { id: 'text', host_id: 'text', start_at: 'timestamptz', end_at: 'timestamptz', manage_token_hash: 'text' } as const;
const isPerOccurrence = (column: string): column is keyof typeof PER_OCCURRENCE => column in PER_OCCURRENCE;
const SHARED_COLUMNS = BOOKING_INSERT_COLUMNS.filter((column) => !isPerOccurrence(column));

/**
 * A series and all its bookings in ONE statement, each booking as BOOKING_STATEMENTS.create writes one: its row,
 * its links to its busy blocks, the invitee's open leads on the event type converted (by the first occurrence),
 * the invitee's contact lock; foreign keys are checked at its end. Parameters: insertSeriesParams.
 */
const SERIES_WITH_OCCURRENCES_SQL = `with series as (
       ${SERIES_INSERT}
     ), inserted as (
       insert into booking (${BOOKING_INSERT_COLUMNS.join(', ')})
       select ${BOOKING_INSERT_COLUMNS.map((column) => (isPerOccurrence(column) ? `o.${column}` : BOOKING_INSERT_VALUES[column])).join(', ')}
         from unnest(${Object.values(PER_OCCURRENCE)
           .map((type) => `?::${type}[]`)
           .join(', ')}) as o(${Object.keys(PER_OCCURRENCE).join(', ')})
       returning ${BOOKING_RETURNING}
     ), linked as (
       insert into booking_busy_block (booking_id, busy_block_id) select * from unnest(?::text[], ?::text[])
     ), converted as (
       update lead set booking_id = ?, completed_at = ?, updated_at = ?
        where lead.event_type_id = ? and lower(lead.email) = lower(?) and lead.booking_id is null
       returning lead.id
     )
     select inserted.*, array(select id from converted) as converted_lead_ids
       from inserted cross join (select pg_advisory_xact_lock(hashtextextended(?, 0))) as contact_lock`;

/** An occurrence to write: its booking's values (bookingValues) and its busy blocks. */
export interface OccurrenceValues {
  values: BookingValues;
  blockIds: readonly string[];
}

/**
 * Writes the series and its occurrences (the first one converting the invitee's leads); their rows in the same
 * order, as BOOKING_STATEMENTS.create returns one, each with the leads it converted.
 */
export async function insertSeries(tx: EntityManager, series: SeriesOwnRow, occurrences: readonly OccurrenceValues[]): Promise<CreatedBookingRow[]> {
  const first = occurrences[0]!.values;
  const rows = await executePrepared<CreatedBookingRow>(tx, 'booking-series.create', SERIES_WITH_OCCURRENCES_SQL, [
    ...[series.id, series.owner_id, series.event_type_id, series.host_id, series.frequency, series.repeat_interval],
    ...[series.occurrence_count, series.time_zone, series.first_start_at, series.created_at],
    ...SHARED_COLUMNS.map((column) => first[column]),
    ...Object.keys(PER_OCCURRENCE).map((column) => occurrences.map(({ values }) => values[column as keyof typeof PER_OCCURRENCE])),
    occurrences.flatMap(({ values, blockIds }) => blockIds.map(() => values.id)),
    occurrences.flatMap(({ blockIds }) => blockIds),
    ...[first.id, first.created_at, first.created_at, first.event_type_id, first.invitee_email],
    contactLockKey(String(first.owner_id), String(first.invitee_email)),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return occurrences.map(({ values }, index) => {
    const row = byId.get(String(values.id))!;
    return index === 0 ? row : { ...row, converted_lead_ids: [] };
  });
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
