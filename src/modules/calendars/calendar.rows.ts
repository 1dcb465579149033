/**
 * The calendar tables as the service reads them (SQL, no ORM entity). The sealed secret is never part of what is
 * selected for the API; the masked URL is.
 */
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { column, type RowOf, selectList } from '../../lib/table-columns.ts';
import type { CalendarConnection, ConnectionStatus } from './calendars.schemas.ts';

interface CalendarJson {
  id: string;
  name: string;
  busy: boolean;
  booking_target: boolean;
}

/** What the write-back of bookings to a CalDAV account's calendars is doing. */
interface BookingEventsJson {
  pending: number;
  failed: number;
  last_error: string | null;
}

/** A connection with its calendars (as JSON, in one statement). */
export const CONNECTION_ROW_COLUMNS = {
  id: column<string>(),
  kind: column<'ics' | 'caldav'>(),
  name: column<string>(),
  masked_url: column<string>(),
  status: column<ConnectionStatus>(),
  last_synced_at: column<SqlTimestamp | null>(),
  last_error: column<string | null>(),
  created_at: column<SqlTimestamp>(),
  booking_events: column<BookingEventsJson | null>(
    `case when c.kind = 'caldav' then (select json_build_object(
        'pending', count(*) filter (where e.next_attempt_at is not null),
        'failed', count(*) filter (where e.status = 'failed'),
        'last_error', (array_agg(e.last_error order by e.updated_at desc) filter (where e.last_error is not null))[1])
       from booking_calendar_event e join connected_calendar cal on cal.id = e.calendar_id where cal.connection_id = c.id) end`,
  ),
  calendars: column<CalendarJson[]>(
    `(select coalesce(json_agg(json_build_object('id', cal.id, 'name', cal.name, 'busy', cal.busy, 'booking_target', cal.booking_target) order by cal.name, cal.id), '[]')
        from connected_calendar cal where cal.connection_id = c.id)`,
  ),
};

export type ConnectionRow = RowOf<typeof CONNECTION_ROW_COLUMNS>;

/** The select list that produces a ConnectionRow from `calendar_connection c`. */
export const CONNECTION_COLUMNS = selectList('c', CONNECTION_ROW_COLUMNS);

export function toConnection(row: ConnectionRow): CalendarConnection {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    url: row.masked_url,
    status: row.status,
    lastSyncedAt: toIsoStringOrNull(row.last_synced_at),
    lastError: row.last_error,
    calendars: row.calendars.map((calendar) => ({
      id: calendar.id,
      name: calendar.name,
      busy: calendar.busy,
      bookingTarget: calendar.booking_target,
    })),
    bookingEvents: row.booking_events && {
      pending: row.booking_events.pending,
      failed: row.booking_events.failed,
      lastError: row.booking_events.last_error,
    },
    createdAt: toIsoString(row.created_at),
  };
}
