/**
 * The write-back's outbox: what a booking, a reschedule or a cancellation asks of its hosts' CalDAV calendars,
 * written in that change's own transaction (so a rolled-back booking writes nothing) and worked later by
 * booking-event-worker.ts. One row per booking and host whose calendar receives bookings; each change bumps its
 * `revision` and makes it due now, so the worker always writes the booking as it is at that moment.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../../lib/prepared-sql.ts';

export type CalendarEventStatus = 'pending' | 'written' | 'deleted' | 'failed';

export interface CalendarEventState {
  hostId: string;
  status: CalendarEventStatus;
  lastError: string | null;
}

/** One write-back state as SQL's json_build_object writes it. */
export interface CalendarEventJson {
  host_id: string;
  status: CalendarEventStatus;
  last_error: string | null;
}

/** A booking's write-back states as one JSON array, for a select list over `booking b`. */
export const CALENDAR_EVENTS_OF_BOOKING = `coalesce((select json_agg(json_build_object('host_id', e.host_id, 'status', e.status, 'last_error', e.last_error) order by e.host_id)
     from booking_calendar_event e where e.booking_id = b.id), '[]')`;

export function toCalendarEventStates(rows: readonly CalendarEventJson[]): CalendarEventState[] {
  return rows.map((row) => ({ hostId: row.host_id, status: row.status, lastError: row.last_error }));
}

/** A booking's write-back states, as the booking shows them. */
export async function bookingEventStates(em: EntityManager, bookingId: string): Promise<CalendarEventState[]> {
  const rows = await em.execute<CalendarEventJson[]>(
    'select host_id, status, last_error from booking_calendar_event where booking_id = ? order by host_id',
    [bookingId],
  );
  return toCalendarEventStates(rows);
}

/** The hosts the booking holds time of (one, or every host of a collective booking). */
const BOOKING_HOSTS = `select bb.host_id from booking_busy_block l join busy_block bb on bb.id = l.busy_block_id where l.booking_id = ?`;

/** The calendar receiving each host's bookings: at most one per user, and only a CalDAV account's. */
const TARGETS = `join calendar_connection c on c.owner_id = h.host_id and c.kind = 'caldav'
  join connected_calendar cal on cal.connection_id = c.id and cal.booking_target`;

/** Whether this host (an SQL expression) has a calendar that receives bookings: the condition of TARGETS. */
export const receivesBookingsSql = (hostId: string) => `exists (select 1 from calendar_connection c
       join connected_calendar cal on cal.connection_id = c.id and cal.booking_target
      where c.owner_id = ${hostId} and c.kind = 'caldav')`;

/** A new booking: one event to write per host whose calendar receives bookings. One round trip. */
export async function queueNewBookingEvents(tx: EntityManager, bookingId: string, now: Date): Promise<CalendarEventState[]> {
  const rows = await executePrepared<{ host_id: string }>(
    tx,
    'calendar-event.queue',
    `insert into booking_calendar_event (id, booking_id, host_id, calendar_id, next_attempt_at, updated_at)
     select gen_random_uuid()::text, ?, h.host_id, cal.id, ?, ?
       from (${BOOKING_HOSTS}) as h ${TARGETS}
     on conflict (booking_id, host_id) do nothing
     returning host_id`,
    [bookingId, now, now, bookingId],
  );
  return rows.map((row) => ({ hostId: row.host_id, status: 'pending', lastError: null }));
}

/**
 * A moved booking: its events are written again with SEQUENCE + 1; a host it no longer has (round robin) loses
 * the event, and a new host whose calendar receives bookings gets one.
 */
export async function queueRescheduledBookingEvents(tx: EntityManager, bookingId: string, now: Date): Promise<void> {
  await tx.execute(
    `with hosts as (${BOOKING_HOSTS}), changed as (
       update booking_calendar_event e
          set wanted = e.host_id in (select host_id from hosts), sequence = e.sequence + 1, status = 'pending',
              last_error = null, attempts = 0, revision = e.revision + 1, next_attempt_at = ?, updated_at = ?
        where e.booking_id = ? and (e.status <> 'deleted' or e.host_id in (select host_id from hosts))
     )
     insert into booking_calendar_event (id, booking_id, host_id, calendar_id, next_attempt_at, updated_at)
     select gen_random_uuid()::text, ?, h.host_id, cal.id, ?, ?
       from hosts h ${TARGETS}
      where not exists (select 1 from booking_calendar_event e where e.booking_id = ? and e.host_id = h.host_id)
     on conflict (booking_id, host_id) do nothing`,
    [bookingId, now, now, bookingId, bookingId, now, now, bookingId],
    'run',
  );
}

/** A canceled booking: its events are deleted. */
export async function queueCanceledBookingEvents(tx: EntityManager, bookingId: string, now: Date): Promise<void> {
  await tx.execute(
    `update booking_calendar_event
        set wanted = false, status = 'pending', last_error = null, attempts = 0, revision = revision + 1, next_attempt_at = ?, updated_at = ?
      where booking_id = ? and status <> 'deleted'`,
    [now, now, bookingId],
    'run',
  );
}

/**
 * The UIDs of the events the service wrote to a host's calendars for bookings that end after `since`: busy
 * already as bookings, so a sync does not count them again (nor the copy of a moved or canceled booking that the
 * worker has not updated yet).
 */
export async function ownEventUids(em: EntityManager, hostId: string, since: Date): Promise<Set<string>> {
  const rows = await em.execute<{ uid: string }[]>(
    `select e.uid from booking_calendar_event e join booking b on b.id = e.booking_id
      where e.host_id = ? and e.uid is not null and b.end_at > ?`,
    [hostId, since],
  );
  return new Set(rows.map((row) => row.uid));
}
