/**
 * One sync of a CalDAV connection: the calendar home (discovered once, then kept), its calendars with their ctag
 * and sync-token in one PROPFIND, and a time-range REPORT only for the calendars that changed since their last
 * read (or whose last read is a day old, so the window moves on). The reading runs outside any transaction; what
 * it found is written by `applyCaldavRead` inside the sync's outcome transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import { type BusyInterval, expandBusy, InvalidCalendarError } from './busy-expansion.ts';
import { CaldavClient, type CaldavCredentials, CaldavError, type RemoteCalendar } from './caldav-client.ts';
import { rebuildBusyDays } from './busy-days.ts';

/** A calendar read again this long after its last read even when unchanged: the stored window moves on. */
const REREAD_AFTER_MS = 86_400_000;

export interface CalendarRead extends RemoteCalendar {
  /** Its busy intervals when it was read; undefined when unchanged (its stored busy times stay). */
  busy?: BusyInterval[];
}

export type CaldavOutcome = { kind: 'calendars'; homeUrl: string; calendars: CalendarRead[] } | { kind: 'failed'; error: string };

export interface CaldavConnection {
  id: string;
  credentials: CaldavCredentials;
  homeUrl: string | null;
  timezone: string;
}

export interface CaldavReadOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  window: { start: Date; end: Date };
  /** UIDs of the events the service wrote itself (bookings), which are busy already as bookings. */
  ownUids: () => Promise<ReadonlySet<string>>;
}

interface StoredCalendar {
  remote_url: string;
  ctag: string | null;
  sync_token: string | null;
  read_at: SqlTimestamp | null;
}

/** Reads what changed in a CalDAV account; never throws for what the server does (that is a `failed` outcome). */
export async function readCaldav(em: EntityManager, connection: CaldavConnection, options: CaldavReadOptions): Promise<CaldavOutcome> {
  const client = new CaldavClient(connection.credentials, options);
  let own: Promise<ReadonlySet<string>> | undefined;
  const ownUids = () => (own ??= options.ownUids());
  try {
    let homeUrl = connection.homeUrl ?? (await client.discoverHome());
    let remote = await client.listCalendars(homeUrl);
    if (!remote && connection.homeUrl) {
      // The home moved (or the account was recreated): discover it again, once.
      homeUrl = await client.discoverHome();
      remote = await client.listCalendars(homeUrl);
    }
    if (!remote) return { kind: 'failed', error: 'the calendar home was not found on the server' };
    const stored = await storedCalendars(em, connection.id);
    const now = options.window.start.getTime();
    const calendars: CalendarRead[] = [];
    for (const calendar of remote) {
      const last = stored.get(calendar.url);
      if (last && unchanged(calendar, last, now)) calendars.push(calendar);
      else calendars.push({ ...calendar, busy: await busyOf(client, calendar, connection.timezone, { ...options, ownUids }) });
    }
    return { kind: 'calendars', homeUrl, calendars };
  } catch (error) {
    if (error instanceof CaldavError) return { kind: 'failed', error: error.message };
    if (error instanceof InvalidCalendarError) return { kind: 'failed', error: `a calendar holds an event that cannot be read: ${error.message}` };
    throw error;
  }
}

/** Unchanged: the same ctag (or, without one, the same sync-token) as at its last read, and that read recent. */
function unchanged(calendar: RemoteCalendar, last: StoredCalendar, now: number): boolean {
  if (last.read_at === null || toDate(last.read_at).getTime() <= now - REREAD_AFTER_MS) return false;
  if (calendar.ctag !== null) return calendar.ctag === last.ctag;
  return calendar.syncToken !== null && calendar.syncToken === last.sync_token;
}

async function busyOf(client: CaldavClient, calendar: RemoteCalendar, timezone: string, options: CaldavReadOptions): Promise<BusyInterval[]> {
  const objects = await client.eventsIn(calendar.url, options.window);
  if (objects.length === 0) return [];
  const own = await options.ownUids();
  return expandBusy(objects.join('\r\n'), options.window, timezone).filter((interval) => !own.has(interval.uid));
}

async function storedCalendars(em: EntityManager, connectionId: string): Promise<Map<string, StoredCalendar>> {
  const rows = await em.execute<StoredCalendar[]>(
    'select remote_url, ctag, sync_token, read_at from connected_calendar where connection_id = ? and remote_url is not null',
    [connectionId],
  );
  return new Map(rows.map((row) => [row.remote_url, row]));
}

/**
 * Writes a read in the sync's outcome transaction: the home, the calendars (new ones busy and not a booking
 * target; gone ones removed with their busy times), and the busy times of each calendar that was read.
 */
export async function applyCaldavRead(
  tx: EntityManager,
  connection: { id: string; owner_id: string },
  read: Extract<CaldavOutcome, { kind: 'calendars' }>,
  now: Date,
): Promise<void> {
  await tx.execute('update calendar_connection set home_url = ? where id = ?', [read.homeUrl, connection.id], 'run');
  const urls = JSON.stringify(read.calendars.map((calendar) => calendar.url));
  await tx.execute(
    `delete from connected_calendar where connection_id = ? and remote_url is not null
        and remote_url not in (select jsonb_array_elements_text(?::jsonb))`,
    [connection.id, urls],
    'run',
  );
  const calendars = read.calendars.map((calendar) => ({
    url: calendar.url,
    name: calendar.name.slice(0, 200),
    ctag: calendar.ctag,
    sync_token: calendar.syncToken,
    read: calendar.busy !== undefined,
  }));
  await tx.execute(
    `insert into connected_calendar (id, connection_id, name, remote_url, ctag, sync_token, read_at)
     select gen_random_uuid()::text, ?, r.name, r.url, r.ctag, r.sync_token, case when r.read then ?::timestamptz end
       from jsonb_to_recordset(?::jsonb) as r(url text, name text, ctag text, sync_token text, read boolean)
     on conflict (connection_id, remote_url) where remote_url is not null do update
        set name = excluded.name,
            ctag = case when excluded.read_at is null then connected_calendar.ctag else excluded.ctag end,
            sync_token = case when excluded.read_at is null then connected_calendar.sync_token else excluded.sync_token end,
            read_at = coalesce(excluded.read_at, connected_calendar.read_at)`,
    [connection.id, now, JSON.stringify(calendars)],
    'run',
  );
  const reread = read.calendars.filter((calendar) => calendar.busy !== undefined);
  if (reread.length === 0) return;
  await tx.execute(
    `delete from calendar_busy b using connected_calendar cal
      where b.calendar_id = cal.id and cal.connection_id = ? and cal.remote_url in (select jsonb_array_elements_text(?::jsonb))`,
    [connection.id, JSON.stringify(reread.map((calendar) => calendar.url))],
    'run',
  );
  const intervals = reread.flatMap((calendar) => calendar.busy!.map(({ start, end }) => ({ url: calendar.url, s: start.toISOString(), e: end.toISOString() })));
  if (intervals.length > 0) {
    await tx.execute(
      `insert into calendar_busy (host_id, connection_id, calendar_id, busy, counts)
       select ?, cal.connection_id, cal.id, tstzrange(t.s, t.e), cal.busy
         from jsonb_to_recordset(?::jsonb) as t(url text, s timestamptz, e timestamptz)
         join connected_calendar cal on cal.connection_id = ? and cal.remote_url = t.url`,
      [connection.owner_id, JSON.stringify(intervals), connection.id],
      'run',
    );
  }
  await rebuildBusyDays(tx, connection.id);
}
