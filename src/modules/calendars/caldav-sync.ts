/**
 * One sync of a CalDAV connection: the calendar home (discovered once, then kept), its calendars with their ctag
 * and sync-token in one PROPFIND, and only for the calendars that changed since their last read: what changed
 * since the stored sync token (RFC 6578 sync-collection, then those objects by calendar-multiget), or, without a
 * token, when the server cannot say, or a day after the last whole read (so the stored window moves on), the whole
 * calendar by a time-range REPORT. The reading runs outside any transaction; what it found is written by
 * `applyCaldavRead` inside the sync's outcome transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import { expandBusy, InvalidCalendarError } from './busy-expansion.ts';
import { type CalendarObject, CaldavClient, type CaldavCredentials, CaldavError, objectPath, type RemoteCalendar } from './caldav-client.ts';
import { rebuildBusyDays } from './busy-days.ts';

/** A calendar read whole again this long after its last whole read, even when unchanged: the stored window moves on. */
const REREAD_AFTER_MS = 86_400_000;

/** A busy interval with the calendar object it came from (its path). */
export interface ObjectBusy {
  href: string;
  start: Date;
  end: Date;
}

export interface CalendarRead extends RemoteCalendar {
  /** Undefined when unchanged: its stored busy times stay. */
  read?: {
    busy: ObjectBusy[];
    /** Read in part: only these objects' busy times are replaced (changed or removed); absent when read whole. */
    objects?: string[];
  };
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
      else calendars.push(await readCalendar(client, calendar, last, now, connection.timezone, { ...options, ownUids }));
    }
    return { kind: 'calendars', homeUrl, calendars };
  } catch (error) {
    if (error instanceof CaldavError) return { kind: 'failed', error: error.message };
    if (error instanceof InvalidCalendarError) return { kind: 'failed', error: `a calendar holds an event that cannot be read: ${error.message}` };
    throw error;
  }
}

/** Unchanged: the same ctag (or, without one, the same sync-token) as at its last read, and its whole read recent. */
function unchanged(calendar: RemoteCalendar, last: StoredCalendar, now: number): boolean {
  if (!readRecently(last, now)) return false;
  if (calendar.ctag !== null) return calendar.ctag === last.ctag;
  return calendar.syncToken !== null && calendar.syncToken === last.sync_token;
}

function readRecently(last: StoredCalendar, now: number): boolean {
  return last.read_at !== null && toDate(last.read_at).getTime() > now - REREAD_AFTER_MS;
}

/** Only what changed since the stored token when the server can say, else the whole calendar. */
async function readCalendar(
  client: CaldavClient,
  calendar: RemoteCalendar,
  last: StoredCalendar | undefined,
  now: number,
  timezone: string,
  options: CaldavReadOptions,
): Promise<CalendarRead> {
  if (last?.sync_token && readRecently(last, now)) {
    const changes = await client.changesSince(calendar.url, last.sync_token);
    if (changes !== 'full-read') {
      const objects = await client.objectsAt(calendar.url, changes.changed);
      const touched = [...changes.changed, ...changes.removed].map((href) => objectPath(href, calendar.url));
      const busy = await busyOf(objects, calendar.url, timezone, options);
      // The token of the state read; the listing's may be older, which would only report these changes again.
      return { ...calendar, syncToken: changes.syncToken, read: { busy, objects: [...new Set(touched)] } };
    }
  }
  return { ...calendar, read: { busy: await busyOf(await client.eventsIn(calendar.url, options.window), calendar.url, timezone, options) } };
}

/** The busy intervals of each object, but those of the service's own events (busy already as bookings). */
async function busyOf(objects: CalendarObject[], calendarUrl: string, timezone: string, options: CaldavReadOptions): Promise<ObjectBusy[]> {
  if (objects.length === 0) return [];
  const own = await options.ownUids();
  return objects.flatMap((object) => {
    const href = objectPath(object.href, calendarUrl);
    return expandBusy(object.ics, options.window, timezone)
      .filter((interval) => !own.has(interval.uid))
      .map(({ start, end }) => ({ href, start, end }));
  });
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
 * target; gone ones removed with their busy times), and the busy times of each calendar that was read: all of
 * them when read whole, else only those of the objects that changed or went.
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
  await upsertCalendars(tx, connection.id, read.calendars, now);
  const reread = read.calendars.filter((calendar) => calendar.read !== undefined);
  if (reread.length === 0) return;
  await tx.execute(
    `delete from calendar_busy b using connected_calendar cal, jsonb_to_recordset(?::jsonb) as r(url text, objects jsonb)
      where b.calendar_id = cal.id and cal.connection_id = ? and cal.remote_url = r.url
        and (r.objects is null or b.object_href in (select jsonb_array_elements_text(r.objects)))`,
    [JSON.stringify(reread.map((calendar) => ({ url: calendar.url, objects: calendar.read!.objects }))), connection.id],
    'run',
  );
  const intervals = reread.flatMap((calendar) =>
    calendar.read!.busy.map(({ href, start, end }) => ({ url: calendar.url, href, s: start.toISOString(), e: end.toISOString() })),
  );
  if (intervals.length > 0) {
    await tx.execute(
      `insert into calendar_busy (host_id, connection_id, calendar_id, busy, counts, object_href)
       select ?, cal.connection_id, cal.id, tstzrange(t.s, t.e), cal.busy, t.href
         from jsonb_to_recordset(?::jsonb) as t(url text, href text, s timestamptz, e timestamptz)
         join connected_calendar cal on cal.connection_id = ? and cal.remote_url = t.url`,
      [connection.owner_id, JSON.stringify(intervals), connection.id],
      'run',
    );
  }
  await rebuildBusyDays(tx, connection.id);
}

/**
 * The calendars' names, and the ctag and sync-token of those read; `read_at` is the last whole read only, so a
 * calendar read in part is still read whole a day after its last whole read.
 */
async function upsertCalendars(tx: EntityManager, connectionId: string, calendars: CalendarRead[], now: Date): Promise<void> {
  const rows = calendars.map((calendar) => ({
    url: calendar.url,
    name: calendar.name.slice(0, 200),
    ctag: calendar.ctag,
    sync_token: calendar.syncToken,
    whole: calendar.read !== undefined && calendar.read.objects === undefined,
  }));
  await tx.execute(
    `insert into connected_calendar (id, connection_id, name, remote_url, ctag, sync_token, read_at)
     select gen_random_uuid()::text, ?, r.name, r.url, r.ctag, r.sync_token, case when r.whole then ?::timestamptz end
       from jsonb_to_recordset(?::jsonb) as r(url text, name text, ctag text, sync_token text, whole boolean)
     on conflict (connection_id, remote_url) where remote_url is not null do update
        set name = excluded.name,
            ctag = case when excluded.read_at is null then connected_calendar.ctag else excluded.ctag end,
            sync_token = case when excluded.read_at is null then connected_calendar.sync_token else excluded.sync_token end,
            read_at = coalesce(excluded.read_at, connected_calendar.read_at)`,
    [connectionId, now, JSON.stringify(rows)],
    'run',
  );
  const partial = calendars.filter((calendar) => calendar.read?.objects !== undefined);
  if (partial.length === 0) return;
  await tx.execute(
    `update connected_calendar cal set ctag = r.ctag, sync_token = r.sync_token
       from jsonb_to_recordset(?::jsonb) as r(url text, ctag text, sync_token text)
      where cal.connection_id = ? and cal.remote_url = r.url`,
    [JSON.stringify(partial.map((calendar) => ({ url: calendar.url, ctag: calendar.ctag, sync_token: calendar.syncToken }))), connectionId],
    'run',
  );
}
