/**
 * The background sync of connected calendars. Every instance polls, and claims due connections with
 * `for update skip locked` while setting a lease, in one statement: one sync of a connection at a time across
 * instances, and a sync whose instance died is claimed again when its lease ends. The fetch and the expansion run
 * outside any transaction; the outcome is written in one transaction that first checks the lease is still this
 * sync's, so a sync taken over never overwrites its successor's busy times.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Env } from '../../config/env.ts';
import { CALENDAR_FETCH } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { startJobPool } from '../../lib/polling-worker.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { openSecret } from '../../lib/sealed-secrets.ts';
import { rebuildBusyDays } from './busy-days.ts';
import { expandBusy, InvalidCalendarError } from './busy-expansion.ts';
import { ownEventUids } from './booking-events.ts';
import type { CaldavCredentials } from './caldav-client.ts';
import { applyCaldavRead, type CaldavOutcome, readCaldav } from './caldav-sync.ts';
import { fetchFeed, type FeedValidators } from './feed-fetch.ts';

/** How far ahead busy times are stored: a year, beyond any window /availability answers for. */
export const SYNC_HORIZON_MS = 366 * 86_400_000;

export interface SyncSettings {
  allowPrivateNetworks: boolean;
  /** CALENDAR_SYNC_INTERVAL: the next sync is due this long after one ends. */
  intervalMs: number;
  /** How long a claim keeps other instances off a connection. */
  leaseMs: number;
  clock: Clock;
  /** The longest a fetch may take (CALENDAR_FETCH.requestMs unless a test shortens it). */
  fetchTimeoutMs?: number;
}

/** The sync's settings from the environment (the worker's, and the refresh's before a booking). */
export function calendarSyncSettings(
  env: Pick<Env, 'CALENDAR_ALLOW_PRIVATE_NETWORKS' | 'CALENDAR_SYNC_INTERVAL'>,
  clock: Clock,
): SyncSettings {
  return { allowPrivateNetworks: env.CALENDAR_ALLOW_PRIVATE_NETWORKS, intervalMs: env.CALENDAR_SYNC_INTERVAL, leaseMs: CALENDAR_FETCH.leaseMs, clock };
}

/** What a booking needs to refresh its hosts' stale calendars first. */
export function staleRefreshOf(
  env: Pick<Env, 'CALENDAR_ALLOW_PRIVATE_NETWORKS' | 'CALENDAR_SYNC_INTERVAL' | 'CALENDAR_MAX_STALENESS'>,
  clock: Clock,
): StaleRefresh {
  return { settings: calendarSyncSettings(env, clock), maxStalenessMs: env.CALENDAR_MAX_STALENESS, waitMs: CALENDAR_FETCH.bookingRefreshMs };
}

interface ClaimedConnection {
  id: string;
  owner_id: string;
  kind: 'ics' | 'caldav';
  /** Sealed: a feed's URL, or a CalDAV account's credentials as JSON. */
  secret: string;
  home_url: string | null;
  etag: string | null;
  last_modified: string | null;
  timezone: string;
  /** Whose claim this is: the lease's end as this sync set it. */
  lease: Date;
}

type Outcome =
  | { kind: 'busy'; intervals: { start: Date; end: Date }[]; validators: FeedValidators }
  | { kind: 'unchanged' }
  | CaldavOutcome;

/** Claims up to `limit` due connections (only `ids`, when given) for this sync. */
async function claim(em: EntityManager, settings: SyncSettings, limit: number, ids?: readonly string[]): Promise<ClaimedConnection[]> {
  const now = settings.clock.now();
  const lease = new Date(now.getTime() + settings.leaseMs);
  const rows = await em.execute<Omit<ClaimedConnection, 'lease'>[]>(
    `with due as (
       select id from calendar_connection
        where ${ids ? 'id = any(string_to_array(?, \',\'))' : 'next_sync_at <= ?'} and (lease_until is null or lease_until <= ?)
        order by next_sync_at
        limit ? for update skip locked
     )
     update calendar_connection c set lease_until = ?
       from due, app_user u where c.id = due.id and u.id = c.owner_id
     returning c.id, c.owner_id, c.kind, c.secret, c.home_url, c.etag, c.last_modified, u.timezone`,
    [ids ? ids.join(',') : now, now, limit, lease],
  );
  return rows.map((row) => ({ ...row, lease }));
}

async function fetchAndExpand(em: EntityManager, connection: ClaimedConnection, settings: SyncSettings, signal?: AbortSignal): Promise<Outcome> {
  return connection.kind === 'caldav' ? readAccount(em, connection, settings, signal) : readFeed(em, connection, settings, signal);
}

/** A CalDAV sync makes several requests: all of them within half the lease, so it ends before another may claim it. */
async function readAccount(em: EntityManager, connection: ClaimedConnection, settings: SyncSettings, signal?: AbortSignal): Promise<Outcome> {
  const credentials = JSON.parse(await openSecret(em, 'calendar-credentials', connection.secret)) as CaldavCredentials;
  const now = settings.clock.now();
  return readCaldav(
    em,
    { id: connection.id, credentials, homeUrl: connection.home_url, timezone: connection.timezone },
    {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      timeoutMs: settings.fetchTimeoutMs ?? CALENDAR_FETCH.requestMs,
      signal: AbortSignal.any([AbortSignal.timeout(settings.leaseMs / 2), ...(signal ? [signal] : [])]),
      window: { start: now, end: new Date(now.getTime() + SYNC_HORIZON_MS) },
      ownUids: () => ownEventUids(em, connection.owner_id, now),
    },
  );
}

async function readFeed(em: EntityManager, connection: ClaimedConnection, settings: SyncSettings, signal?: AbortSignal): Promise<Outcome> {
  const url = await openSecret(em, 'calendar-credentials', connection.secret);
  const fetched = await fetchFeed(
    url,
    { etag: connection.etag, lastModified: connection.last_modified },
    { allowPrivateNetworks: settings.allowPrivateNetworks, timeoutMs: settings.fetchTimeoutMs, signal },
  );
  if (fetched.kind === 'failed') return { kind: 'failed', error: fetched.error };
  if (fetched.kind === 'not_modified') return { kind: 'unchanged' };
  const now = settings.clock.now();
  try {
    const window = { start: now, end: new Date(now.getTime() + SYNC_HORIZON_MS) };
    const intervals = expandBusy(fetched.body, window, connection.timezone);
    // The service's own events (a booking target's published feed): busy already as bookings.
    const own = await ownEventUids(em, connection.owner_id, now);
    return { kind: 'busy', intervals: intervals.filter((interval) => !own.has(interval.uid)), validators: fetched.validators };
  } catch (error) {
    if (error instanceof InvalidCalendarError) return { kind: 'failed', error: `the feed is not a readable iCalendar document: ${error.message}` };
    throw error;
  }
}

/**
 * Writes a sync's outcome if the lease is still this sync's: status and next due time, and for new busy times the
 * connection's rows replaced in the same transaction (a failure keeps the last good ones).
 */
async function record(em: EntityManager, connection: ClaimedConnection, outcome: Outcome, settings: SyncSettings): Promise<void> {
  const now = settings.clock.now();
  const ok = outcome.kind !== 'failed';
  const validators = outcome.kind === 'busy' ? outcome.validators : undefined;
  await em.transactional(async (tx) => {
    const held = await tx.execute<{ id: string }[]>(
      `update calendar_connection
          set status = ?, last_error = ?, last_attempt_at = ?, last_synced_at = case when ? then ? else last_synced_at end,
              etag = case when ? then ? else etag end, last_modified = case when ? then ? else last_modified end,
              next_sync_at = ?, lease_until = null
        where id = ? and lease_until = ?
        returning id`,
      [
        ok ? 'ok' : 'error',
        outcome.kind === 'failed' ? outcome.error : null,
        now,
        ok,
        now,
        validators !== undefined,
        validators?.etag ?? null,
        validators !== undefined,
        validators?.lastModified ?? null,
        new Date(now.getTime() + settings.intervalMs),
        connection.id,
        connection.lease,
      ],
    );
    if (held.length === 0) return;
    if (outcome.kind === 'calendars') await applyCaldavRead(tx, connection, outcome, now);
    if (outcome.kind !== 'busy') return;
    await tx.execute('delete from calendar_busy where connection_id = ?', [connection.id], 'run');
    for (let i = 0; i < outcome.intervals.length; i += INSERT_CHUNK) {
      const chunk = outcome.intervals.slice(i, i + INSERT_CHUNK);
      const starts = chunk.map((interval) => interval.start.getTime());
      const ends = chunk.map((interval) => interval.end.getTime());
      await executePrepared(tx, 'calendar-busy-insert', INSERT_BUSY_SQL, [connection.owner_id, starts, ends, connection.id]);
    }
    await rebuildBusyDays(tx, connection.id);
  });
}

/**
 * A chunk of busy rows (parameters: host, starts and ends in epoch milliseconds, connection), bound as two arrays: as
 * one JSON text of ISO dates, a year of a large feed was written out, escaped into the SQL text and parsed again.
 */
const INSERT_BUSY_SQL = `insert into calendar_busy (host_id, connection_id, calendar_id, busy, counts)
  select ?, cal.connection_id, cal.id,
         tstzrange(timestamptz 'epoch' + t.s * interval '1 millisecond', timestamptz 'epoch' + t.e * interval '1 millisecond'), cal.busy
    from connected_calendar cal, unnest(?::bigint[], ?::bigint[]) as t(s, e)
   where cal.connection_id = ?`;

/**
 * Busy rows per INSERT: a year of a large feed is tens of thousands of rows, which in one statement could outlast
 * the statement timeout on a loaded server (and the sync would never be written); each chunk stays far inside it.
 */
const INSERT_CHUNK = 4_000;

async function syncClaimed(em: EntityManager, connection: ClaimedConnection, settings: SyncSettings, signal?: AbortSignal): Promise<void> {
  const outcome = await fetchAndExpand(em, connection, settings, signal);
  // Cut short by shutdown: the lease runs out and another instance (or this one, restarted) syncs it again.
  if (signal?.aborted) return;
  await record(em, connection, outcome, settings);
}

/**
 * Starts the sync loop of one instance; `emOf` hands out a fresh EntityManager per claim and per sync. Each claimed
 * connection syncs on its own (CALENDAR_FETCH.concurrent at most at once): a hung server holds only its own place.
 */
export function startCalendarSyncWorker(options: {
  emOf: () => EntityManager;
  settings: SyncSettings;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  return startJobPool({
    claim: (limit) => claim(options.emOf(), options.settings, limit),
    run: (connection, signal) => syncClaimed(options.emOf(), connection, options.settings, signal),
    concurrency: CALENDAR_FETCH.concurrent,
    pollMs: CALENDAR_FETCH.pollMs,
    onError: options.onError,
  });
}

/** Syncs these connections now, unless another sync holds one; resolves when every sync this call took has ended. */
export async function syncConnections(em: EntityManager, settings: SyncSettings, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const claimed = await claim(em, settings, ids.length, [...ids]);
  await Promise.all(claimed.map((connection) => syncClaimed(em.fork(), connection, settings)));
}

export interface StaleRefresh {
  settings: SyncSettings;
  /** CALENDAR_MAX_STALENESS: a connection last attempted longer ago than this is refreshed before a booking. */
  maxStalenessMs: number;
  /** The longest the booking waits for those refreshes. */
  waitMs: number;
}

/**
 * Before a booking decides: the connections of the event type's hosts whose last sync attempt is older than the
 * staleness limit are synced now, waiting at most `waitMs` (a slower sync goes on and lands later; the booking
 * decides on the busy times stored by then). A connection already being synced elsewhere is not waited for.
 */
export async function refreshStaleCalendars(em: EntityManager, eventTypeId: string, refresh: StaleRefresh): Promise<void> {
  const now = refresh.settings.clock.now();
  const stale = await executePrepared<{ id: string }>(
    em,
    'calendars.stale-connections',
    `select c.id from calendar_connection c
      where c.owner_id = any(array(
              select h.user_id from event_type_host h join event_type et on et.id = h.event_type_id
               where et.id = ? and et.kind in ('round_robin', 'collective')
              union select et.owner_id from event_type et where et.id = ?))
        and (c.last_attempt_at is null or c.last_attempt_at < ?)
        and (c.lease_until is null or c.lease_until <= ?)`,
    [eventTypeId, eventTypeId, new Date(now.getTime() - refresh.maxStalenessMs), now],
  );
  if (stale.length === 0) return;
  const syncs = syncConnections(em, refresh.settings, stale.map((row) => row.id));
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, refresh.waitMs);
  });
  await Promise.race([syncs.catch(() => undefined), waited]);
  clearTimeout(timer);
}
