import type { EntityManager } from '@mikro-orm/postgresql';
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';
import type { BusyTime, BusyTimesInput, BusyTimesOutput } from './busy-times.schemas.ts';

interface BookedRow {
  start_at: SqlTimestamp;
  end_at: SqlTimestamp;
  booking_ids: string[];
  held: boolean;
}

/**
 * The host's busy blocks, busy now, whose meeting overlaps the window (`busy && …` lets the exclusion constraint's
 * index answer), each with its active bookings the caller owns, or marked as a live slot hold's.
 */
const BOOKED_SQL = `select bb.start_at, bb.end_at, bb.hold_id is not null as held,
       array(select b.id from booking_busy_block bbb join booking b on b.id = bbb.booking_id
              where bbb.busy_block_id = bb.id and b.owner_id = ? and b.status = 'active' order by b.id) as booking_ids
  from busy_block bb
 where bb.host_id = ? and bb.active and bb.busy && tstzrange(?, ?) and bb.start_at < ? and bb.end_at > ?
   and (bb.hold_expires_at is null or bb.hold_expires_at > ?)
 order by bb.start_at, bb.id`;

interface CalendarRow {
  connection_id: string;
  connection_name: string;
  start_at: SqlTimestamp;
  end_at: SqlTimestamp;
}

/**
 * The host's stored calendar busy times that count, merged per connection (overlapping events are one stretch)
 * and clipped to the window, so an all-day series or a long event stays one bounded row.
 */
const CALENDAR_SQL = `select c.id as connection_id, c.name as connection_name,
       greatest(lower(m.busy), ?::timestamptz) as start_at, least(upper(m.busy), ?::timestamptz) as end_at
  from (select cb.connection_id, unnest(range_agg(cb.busy)) as busy
          from calendar_busy cb
         where cb.host_id = ? and cb.counts and cb.busy && tstzrange(?, ?)
         group by cb.connection_id) m
  join calendar_connection c on c.id = m.connection_id and c.owner_id = ?
 order by start_at, c.id`;

/** GET /availability/busy: the caller's own busy time in a window, from bookings and connected calendars. */
export async function listBusyTimes(em: EntityManager, userId: string, input: BusyTimesInput, now: Date): Promise<BusyTimesOutput> {
  const from = new Date(input.from);
  const to = new Date(input.to);
  const booked = await em.execute<BookedRow[]>(BOOKED_SQL, [userId, userId, from, to, to, from, now]);
  const calendar = await em.execute<CalendarRow[]>(CALENDAR_SQL, [from, to, userId, from, to, userId]);
  const data: BusyTime[] = [
    ...booked.map(
      (row): BusyTime =>
        row.held
          ? { source: 'hold', start: toIsoString(row.start_at), end: toIsoString(row.end_at) }
          : { source: 'booking', start: toIsoString(row.start_at), end: toIsoString(row.end_at), bookingIds: row.booking_ids },
    ),
    ...calendar.map(
      (row): BusyTime => ({
        source: 'calendar',
        start: toIsoString(row.start_at),
        end: toIsoString(row.end_at),
        connectionId: row.connection_id,
        connectionName: row.connection_name,
      }),
    ),
  ];
  return { data: data.sort((a, b) => a.start.localeCompare(b.start)) };
}
