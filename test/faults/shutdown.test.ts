import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { invitee, setSchedule } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { type Exit, httpRequest, type HttpOutcome, type ServiceProcess, startService } from '../helpers/service-process.ts';

/**
 * SIGTERM against `npm start` in a child process: every request sent before it gets its real answer, every 201 is
 * in the database and every booking there got its 201, and the process exits 0 (an embedded database stopped
 * last). Bookings are held in flight by a lock on busy_block that the test takes before firing them.
 */

const IN_FLIGHT = 20;
/**
 * Bookings held on the test's lock may wait this long before their 409 (BOOKING_WAIT_MS; 2 s by default), so a
 * busy machine's slow steps between the lock and its release cannot end them early. statement_timeout (5 s)
 * still bounds the wait.
 */
const HOLD = { BOOKING_WAIT_MS: '30000' };
/** The lame-duck period these tests wait out (SHUTDOWN_DELAY; 2 s by default). */
const LAME_DUCK = { SHUTDOWN_DELAY: '300ms' };
/** From the last answer to the process's exit, on this shared and busy machine (it is a few ms when idle). */
const EXIT_WITHIN_MS = 5000;
const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, ALL_DAY]),
);

interface Host {
  user: TestUser;
  eventTypeId: string;
}

/** A host bookable around the clock, so that a booking the day after tomorrow is always offered. */
async function createHost(em: EntityManager): Promise<Host> {
  const user = await createUserWithToken(em, { timezone: 'UTC' });
  await setSchedule(em, user.id, EVERY_DAY);
  return { user, eventTypeId: (await createEventType(em, user.id)).id };
}

const slotStart = () => {
  const start = new Date();
  start.setUTCDate(start.getUTCDate() + 2);
  start.setUTCHours(10, 0, 0, 0);
  return start.toISOString();
};

const bookingRequest = (host: Host) => ({
  method: 'POST',
  path: '/api/v2/bookings',
  headers: Object.fromEntries([bearer(host.user.token)]),
  body: { eventTypeId: host.eventTypeId, start: slotStart(), durationMin: 30, invitee: invitee() },
});

const book = (service: ServiceProcess, host: Host, agent?: http.Agent) =>
  httpRequest(service.port, { ...bookingRequest(host), agent });

/** Holds every booking of the database at its busy-block insert until released. */
async function lockBookings(url: string): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query('lock table busy_block in exclusive mode');
  return {
    async release() {
      await client.query('commit');
      await client.end();
    },
  };
}

async function lockWaiters(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const incomingBookings = (service: ServiceProcess) =>
  service.log.filter(
    (line) => line.msg === 'incoming request' && (line.req as { url?: string } | undefined)?.url === '/api/v2/bookings',
  ).length;

/** Waits until the service has received `count` booking requests and they wait on the test's lock. */
async function untilInFlight(service: ServiceProcess, databaseUrl: string, count: number): Promise<void> {
  await until(() => incomingBookings(service) >= count, `${count} booking requests to reach the service`);
  await until(async () => (await lockWaiters(databaseUrl)) > 0, 'the bookings to wait on the lock');
}

async function exitWithin(service: ServiceProcess, ms: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the service was still running ${ms} ms after its last answer`)), ms);
  });
  return Promise.race([service.exited, late]).finally(() => clearTimeout(timer));
}

async function untilRefused(service: ServiceProcess): Promise<void> {
  await until(async () => {
    const late = await httpRequest(service.port, { path: '/healthz' });
    return late.status === 'error' && late.error === 'ECONNREFUSED';
  }, 'new connections to be refused', 5000);
}

/**
 * A client in the middle of sending its request when the stop begins (a slow client, or a proxy reusing a pooled
 * connection): the connection is open and busy, so it is not closed, and the request completes after the signal.
 */
class HalfSentRequest {
  private readonly socket: net.Socket;
  private received = '';
  private readonly rest: string;
  readonly closed: Promise<void>;

  constructor(port: number, request: { method: string; path: string; headers: Record<string, string> }) {
    const head = Object.entries({ Host: '127.0.0.1', ...request.headers })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const text = `${request.method} ${request.path} HTTP/1.1\r\n${head}\r\n`;
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', () => {});
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    const half = text.indexOf('\r\n') + 2;
    this.socket.write(text.slice(0, half));
    this.rest = text.slice(half);
  }

  finish(): void {
    this.socket.write(this.rest);
  }

  /** The one response received before the server closed the connection. */
  response(): { status: number; headers: Record<string, string>; body: unknown } {
    const headEnd = this.received.indexOf('\r\n\r\n');
    const [statusLine = '', ...headerLines] = this.received.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(this.received.slice(headEnd + 4)) as unknown };
  }
}

function createdIds(outcomes: HttpOutcome[]): string[] {
  return outcomes.map((outcome) => (outcome.status === 201 ? (outcome.body as { id: string }).id : '')).filter(Boolean);
}

describe('SIGTERM with bookings in flight (DATABASE_URL set)', () => {
  let database: TestDatabase;
  let orm: Orm;
  let hosts: Host[];
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 2 });
    hosts = [];
    for (let i = 0; i < IN_FLIGHT; i++) hosts.push(await createHost(orm.em.fork()));
  });
  afterEach(() => service?.kill());
  afterAll(async () => {
    await orm.close();
    await database.drop();
  });

  it('answers every request in flight, refuses new connections, keeps every 201 and exits 0', async () => {
    service = await startService({ DATABASE_URL: database.url, ...HOLD, ...LAME_DUCK });
    const lock = await lockBookings(database.url);
    const keepAlive = new http.Agent({ keepAlive: true });
    let outcomes: Promise<HttpOutcome[]>;
    const halfSent = new HalfSentRequest(service.port, {
      method: 'GET',
      path: '/api/v2/me',
      headers: Object.fromEntries([bearer(hosts[0]!.user.token)]),
    });
    try {
      // Half on keep-alive connections, which must not hold the stop up once their answer is sent.
      outcomes = Promise.all(hosts.map((host, i) => book(service!, host, i % 2 ? keepAlive : undefined)));
      await untilInFlight(service, database.url, IN_FLIGHT);

      service.signal('SIGTERM');
      // A client that connects now is refused (a load balancer retries it elsewhere) ...
      await untilRefused(service);
      // ... and a request completed on a connection that was already open gets a clean 503.
      halfSent.finish();
      await halfSent.closed;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(service.log.some((line) => line.msg === 'stopped'), 'the service stopped with requests in flight').toBe(false);
    } finally {
      await lock.release();
    }

    const answered = await outcomes;
    const exit = await exitWithin(service, EXIT_WITHIN_MS);
    keepAlive.destroy();

    expect(answered.map((outcome) => outcome.status)).toEqual(Array(IN_FLIGHT).fill(201));
    const late = halfSent.response();
    expect(late.status).toBe(503);
    expect(late.body).toEqual({ title: 'Service Unavailable', message: expect.any(String) });
    expect(late.headers['retry-after']).toBe('1');
    expect(late.headers.connection).toBe('close');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.log.find((line) => line.msg === 'stopped')).toMatchObject({ clean: true });

    const stored = await orm.em.fork().execute<{ id: string }[]>('select id from booking where event_type_id in (?)', [
      hosts.map((host) => host.eventTypeId),
    ]);
    expect(stored.map((row) => row.id).sort()).toEqual(createdIds(answered).sort());
  });
});

/** `count` requests at once on the agent, so that it keeps as many connections open, idle once answered. */
async function openConnections(service: ServiceProcess, agent: http.Agent, host: Host, count: number): Promise<void> {
  const warm = await Promise.all(Array.from({ length: count }, () => me(service, host, agent)));
  expect(warm.map((outcome) => outcome.status)).toEqual(Array(count).fill(200));
}

const me = (service: ServiceProcess, host: Host, agent: http.Agent) =>
  httpRequest(service.port, { path: '/api/v2/me', headers: Object.fromEntries([bearer(host.user.token)]), agent });

const statuses = (outcomes: HttpOutcome[]) => outcomes.map((outcome) => (outcome.status === 'error' ? outcome.error : outcome.status));

describe("SIGTERM's lame-duck period (SHUTDOWN_DELAY)", () => {
  const CONNECTIONS = 20;
  const BOOKINGS = 40;
  let database: TestDatabase;
  let orm: Orm;
  let hosts: Host[];
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 2 });
    hosts = [];
    for (let i = 0; i < BOOKINGS; i++) hosts.push(await createHost(orm.em.fork()));
  });
  afterEach(() => service?.kill());
  afterAll(async () => {
    await orm.close();
    await database.drop();
  });

  it('answers requests sent on open keep-alive connections around the signal, fails /readyz at once, then stops', async () => {
    service = await startService({ DATABASE_URL: database.url, SHUTDOWN_DELAY: '3s' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    try {
      await openConnections(service, agent, hosts[0]!, CONNECTIONS);
      const before = Array.from({ length: CONNECTIONS / 2 }, () => me(service!, hosts[0]!, agent));
      service.signal('SIGTERM');
      const after = Array.from({ length: CONNECTIONS / 2 }, () => me(service!, hosts[0]!, agent));
      const answered = await Promise.all([...before, ...after]);
      expect(statuses(answered)).toEqual(Array(CONNECTIONS).fill(200));

      await until(async () => (await httpRequest(service!.port, { path: '/readyz' })).status === 503, '/readyz to fail', 2500);
      const ready = await httpRequest(service.port, { path: '/readyz' });
      expect(ready).toMatchObject({ status: 503, body: { status: 'stopping' } });
      // Still served, and the connection is not kept: the client goes elsewhere next time.
      const late = await me(service, hosts[0]!, agent);
      expect(late).toMatchObject({ status: 200, headers: { connection: 'close' } });
      expect(service.log.some((line) => String(line.msg).startsWith('stopping: no new connections')), 'the listener closed before the delay').toBe(false);

      expect(await exitWithin(service, 3000 + EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    } finally {
      agent.destroy();
    }
  });

  it('answers a request that comes on a connection accepted just before the listener closed: 503, Connection: close', async () => {
    // A delay long enough for a busy machine's probe to see /readyz fail before the listener closes.
    service = await startService({ DATABASE_URL: database.url, SHUTDOWN_DELAY: '4s' });
    service.signal('SIGTERM');
    await until(async () => (await httpRequest(service!.port, { path: '/readyz' })).status === 503, '/readyz to fail', 3000);
    // Connected, nothing sent yet: its request is on its way when the listener closes.
    const socket = net.connect(service.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => {});
    const closed = new Promise<boolean>((resolve) => socket.once('close', (hadError) => resolve(hadError)));
    await new Promise((resolve) => socket.once('connect', resolve));
    await untilRefused(service);
    socket.write('GET /api/v2/me HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await closed, 'the connection was reset').toBe(false);
    expect(received).toMatch(/^HTTP\/1\.1 503 /);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(await exitWithin(service, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
  });

  it('takes a SIGTERM sent the moment the service says it listens through the lame-duck period to exit 0', async () => {
    // The service signals itself while writing its start line: no reader of that line can be quicker.
    const preload = `--import=${fileURLToPath(new URL('../helpers/sigterm-at-start-line.ts', import.meta.url))}`;
    service = await startService({ DATABASE_URL: database.url, ...LAME_DUCK, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${preload}` });
    expect(await exitWithin(service, 300 + EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    expect(service.log.some((line) => String(line.msg).startsWith('stopping: /readyz fails'))).toBe(true);
    expect(service.log.find((line) => line.msg === 'stopped')).toMatchObject({ clean: true });
  });

  it('gives every booking sent before and just after the signal its own answer', async () => {
    service = await startService({ DATABASE_URL: database.url, SHUTDOWN_DELAY: '1s', ...HOLD });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 * BOOKINGS });
    try {
      await openConnections(service, agent, hosts[0]!, 2 * BOOKINGS);
      const sent = hosts.map((host) => book(service!, host, agent));
      await new Promise((resolve) => setTimeout(resolve, 300));
      service.signal('SIGTERM');
      // Half a slot later than the first ones, so that each host's two bookings do not compete for one slot.
      const second = hosts.map((host) =>
        httpRequest(service!.port, {
          ...bookingRequest(host),
          body: { ...bookingRequest(host).body, start: new Date(Date.parse(slotStart()) + 3_600_000).toISOString() },
          agent,
        }),
      );
      const answered = await Promise.all([...sent, ...second]);
      expect(statuses(answered)).toEqual(Array(2 * BOOKINGS).fill(201));
      expect(await exitWithin(service, 3000 + EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });

      const stored = await orm.em.fork().execute<{ id: string }[]>('select id from booking where event_type_id in (?)', [
        hosts.map((host) => host.eventTypeId),
      ]);
      expect(stored.map((row) => row.id).sort()).toEqual(createdIds(answered).sort());
    } finally {
      agent.destroy();
    }
  });
});

describe('SIGTERM with a request that does not finish in time', () => {
  let database: TestDatabase;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(() => service?.kill());
  afterAll(() => database.drop());

  it('cuts its connection after the drain bound (DRAIN_TIMEOUT_MS) and exits 1', async () => {
    const drainMs = 1000;
    const orm = await initOrm(database.url, { poolMax: 1 });
    const host = await createHost(orm.em.fork());
    await orm.close();
    service = await startService({ DATABASE_URL: database.url, DRAIN_TIMEOUT_MS: String(drainMs), ...HOLD, ...LAME_DUCK });
    const lock = await lockBookings(database.url);
    let outcome: HttpOutcome;
    let signalledAt: number;
    try {
      const pending = book(service, host);
      await untilInFlight(service, database.url, 1);
      signalledAt = Date.now();
      service.signal('SIGTERM');
      outcome = await pending;
    } finally {
      await lock.release();
    }
    const cutAfter = Date.now() - signalledAt;
    expect(outcome).toEqual({ status: 'error', error: 'ECONNRESET' });
    // The drain starts once the lame-duck period is over and the listener has closed.
    expect(cutAfter).toBeGreaterThanOrEqual(300 + drainMs);
    expect(cutAfter).toBeLessThan(drainMs + EXIT_WITHIN_MS);
    expect(await exitWithin(service, EXIT_WITHIN_MS)).toEqual({ code: 1, signal: null });
    expect(service.log.some((line) => String(line.msg).startsWith(`requests still running after ${drainMs} ms`))).toBe(true);
  });
});

describe('SIGTERM with a booking in flight (embedded PostgreSQL, DATABASE_URL unset)', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'shutdown-embedded-'));
  });
  afterEach(() => service?.kill());
  afterAll(async () => {
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      // A failed run left the embedded server up: stop it through its own postmaster.
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
      await until(() => !existsSync(pidFile), 'the embedded server to stop', 30_000).catch(() => {});
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the booking, then stops the embedded database, then exits 0', async () => {
    service = await startService({ DATA_DIR: dataDir, ...HOLD, ...LAME_DUCK }, { startTimeoutMs: 120_000 });
    const port = Number(readFileSync(path.join(dataDir, 'pg.port'), 'utf8'));
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    const orm = await initOrm(url, { poolMax: 2 });
    const host = await createHost(orm.em.fork());
    await orm.close();

    const lock = await lockBookings(url);
    let outcome: Promise<HttpOutcome>;
    try {
      outcome = book(service, host);
      await untilInFlight(service, url, 1);
      service.signal('SIGTERM');
      await untilRefused(service);
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await lock.release();
    }
    const answered = await outcome;
    expect(answered.status).toBe(201);
    expect(await exitWithin(service, EXIT_WITHIN_MS)).toEqual({ code: 0, signal: null });
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), 'the embedded server is still running').toBe(false);

    // The booking was committed before the database stopped.
    const embedded = await startEmbeddedPostgres(dataDir, () => {});
    const check = await initOrm(embedded.url, { poolMax: 1 });
    try {
      const rows = await check.em.fork().execute<{ id: string }[]>('select id from booking where event_type_id = ?', [host.eventTypeId]);
      expect(rows.map((row) => row.id)).toEqual([(answered as { body: { id: string } }).body.id]);
    } finally {
      await check.close();
      await embedded.stop();
    }
  }, 240_000);
});
