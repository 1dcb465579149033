/**
 * The calendar sync's figure (`npm run bench -- --only=calendars.sync`): the CPU one real sync of a 5,000-event feed
 * with 200 recurring series (bench/calendars/large-feed.ts) costs. A local HTTP server serves the feed; the sync
 * host's connection is made due, and the service's own worker claims it, fetches the feed, expands it a year
 * ahead and replaces the connection's busy rows. Charged: the service's CPU (and PostgreSQL's) from due to written.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { SEALING_ROOT_SECRET, sealWithRoot } from '../../src/lib/sealed-secrets.ts';
import { readOrCreateServerSecret } from '../../src/lib/server-secret.ts';
import { largeFeed } from '../calendars/large-feed.ts';
import { SYNC_HOST } from '../dataset/calendars.ts';
import { withClient } from '../dataset/dataset.ts';
import { median } from '../report/report.ts';

export const SYNC_FEED = { events: 5_000, series: 200 } as const;
const CONNECTION_ID = 'bench-sync-connection';
const NEVER = '2100-01-01T00:00:00Z';
const SYNC_TIMEOUT_MS = 60_000;

export interface CalendarSyncContext {
  dbUrl: string;
  /** Measured syncs, after one unmeasured warm-up sync. */
  runs: number;
  /** CPU (µs) the service's process has used so far. */
  serverCpuMicros(): Promise<number>;
  /** CPU (µs) PostgreSQL has used so far (all its databases: on a shared server, others' work too), if known. */
  databaseCpuMicros(): number | undefined;
  log(line: string): void;
}

export interface CalendarSyncFigures {
  events: number;
  series: number;
  feedKib: number;
  /** Busy intervals the sync stored (a year ahead). */
  busyIntervals: number;
  runs: number;
  /** Medians over the runs, per sync. */
  serverCpuMs: number;
  databaseCpuMs?: number;
  /** From due to written: up to one poll (500 ms) of the worker, then the sync itself. */
  wallMs: number;
}

interface Run {
  serverCpuMs: number;
  databaseCpuMs?: number;
  wallMs: number;
}

export async function benchCalendarSync(context: CalendarSyncContext): Promise<CalendarSyncFigures> {
  const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  const body = Buffer.from(largeFeed(SYNC_FEED.events, SYNC_FEED.series, today));
  // No ETag or Last-Modified: every sync reads and expands the whole feed.
  const server = await serve(body);
  try {
    await withClient(context.dbUrl, (client) => connect(client, server.url));
    const runs: Run[] = [];
    for (let i = 0; i <= context.runs; i++) {
      const run = await syncOnce(context);
      if (i > 0) runs.push(run);
      context.log(`calendar sync ${i === 0 ? 'warm-up' : `${i}/${context.runs}`}: ${run.serverCpuMs.toFixed(0)} ms service CPU, ${run.wallMs.toFixed(0)} ms`);
    }
    const busyIntervals = await withClient(context.dbUrl, async (client) => {
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from calendar_busy where connection_id = $1', [CONNECTION_ID]);
      return rows[0]!.n;
    });
    const database = runs.map((run) => run.databaseCpuMs).filter((value) => value !== undefined);
    return {
      ...SYNC_FEED,
      feedKib: Math.round(body.length / 1024),
      busyIntervals,
      runs: runs.length,
      serverCpuMs: median(runs.map((run) => run.serverCpuMs)),
      ...(database.length === runs.length ? { databaseCpuMs: median(database) } : {}),
      wallMs: median(runs.map((run) => run.wallMs)),
    };
  } finally {
    await withClient(context.dbUrl, (client) => client.query('delete from calendar_connection where id = $1', [CONNECTION_ID]));
    await server.close();
  }
}

/** The sync host's one connection, to the local feed: sealed as the service stores it, and not due. */
async function connect(client: pg.Client, url: string): Promise<void> {
  const positional = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const root = await readOrCreateServerSecret(async (sql, params) => (await client.query(positional(sql), params)).rows, SEALING_ROOT_SECRET);
  await client.query('delete from calendar_connection where id = $1', [CONNECTION_ID]);
  await client.query(
    `insert into calendar_connection (id, owner_id, kind, name, secret, masked_url, next_sync_at, created_at)
     values ($1, $2, 'ics', 'Large feed', $3, 'http://127.0.0.1/….ics', $4, now())`,
    [CONNECTION_ID, SYNC_HOST.id, sealWithRoot(root, 'calendar-credentials', url), NEVER],
  );
  await client.query(`insert into connected_calendar (id, connection_id, name) values ($1, $2, 'Large feed')`, [`${CONNECTION_ID}-calendar`, CONNECTION_ID]);
}

/** Makes the connection due, waits for the worker's sync to be written, and charges the CPU used meanwhile. */
async function syncOnce(context: CalendarSyncContext): Promise<Run> {
  return withClient(context.dbUrl, async (client) => {
    const attempt = async () =>
      (await client.query<{ at: Date | null; status: string; error: string | null }>(
        'select last_attempt_at as at, status, last_error as error from calendar_connection where id = $1',
        [CONNECTION_ID],
      )).rows[0]!;
    const previous = (await attempt()).at?.getTime();
    const before = { server: await context.serverCpuMicros(), database: context.databaseCpuMicros(), at: performance.now() };
    await client.query('update calendar_connection set next_sync_at = now(), lease_until = null where id = $1', [CONNECTION_ID]);
    let done = await attempt();
    while (done.at === null || done.at.getTime() === previous) {
      if (performance.now() - before.at > SYNC_TIMEOUT_MS) throw new Error('calendar sync: the service did not sync the connection within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
      done = await attempt();
    }
    const wallMs = performance.now() - before.at;
    const server = await context.serverCpuMicros();
    const database = context.databaseCpuMicros();
    if (done.status !== 'ok') throw new Error(`calendar sync: the connection is ${done.status}: ${done.error}`);
    // Not due again within the run: the service's next sync would come CALENDAR_SYNC_INTERVAL later.
    await client.query('update calendar_connection set next_sync_at = $2 where id = $1', [CONNECTION_ID, NEVER]);
    return {
      serverCpuMs: (server - before.server) / 1000,
      ...(database === undefined || before.database === undefined ? {} : { databaseCpuMs: (database - before.database) / 1000 }),
      wallMs,
    };
  });
}

async function serve(body: Buffer): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/private/large-feed.ics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The figures as the run prints them. */
export function calendarSyncLines(figures: CalendarSyncFigures): string[] {
  const database = figures.databaseCpuMs === undefined ? '' : `, PostgreSQL ${figures.databaseCpuMs.toFixed(0)} ms`;
  return [
    'Calendar sync:',
    `  a ${figures.events.toLocaleString('en-US')}-event feed with ${figures.series} recurring series (${figures.feedKib} KiB, ${figures.busyIntervals.toLocaleString('en-US')} busy intervals a year ahead), median of ${figures.runs}: service ${figures.serverCpuMs.toFixed(0)} ms CPU${database}, ${figures.wallMs.toFixed(0)} ms from due to written`,
  ];
}
