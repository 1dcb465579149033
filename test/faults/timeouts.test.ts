import net from 'node:net';
import pg from 'pg';
import supertest, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { BOOKING_CONTENTION, DATABASE_TIMEOUTS } from '../../src/config/timeouts.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { FreezableRelay } from '../helpers/freezable-relay.ts';

/**
 * Nothing waits unboundedly: a frozen database, a lock someone else holds, a client that never sends its body,
 * a handler that cannot finish — each ends in a clean answer (503 with Retry-After, or 409 for a busy calendar)
 * or a closed socket within its limit from src/config/timeouts.ts.
 */

/** Scheduling slack on a machine shared with other work. */
const SLACK_MS = 2_500;

function expectUnavailable(res: Response): void {
  expect(res.status, res.text).toBe(503);
  expect(res.body).toEqual({ title: 'Service Unavailable', message: expect.any(String) });
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

async function timed<T>(work: () => PromiseLike<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

async function checkedOutConnections(orm: Orm): Promise<number> {
  const pool = await orm.em.getConnection().getNativeClient();
  return pool.totalCount - pool.idleCount;
}

async function bookableHost(orm: Orm): Promise<TestUser & { eventTypeId: string }> {
  const host = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
  await setSchedule(orm.em.fork(), host.id, WEEKDAYS_9_TO_5);
  return { ...host, eventTypeId: (await createEventType(orm.em.fork(), host.id, { durationsMin: [15] })).id };
}

describe('a frozen database', () => {
  let database: TestDatabase;
  let relay: FreezableRelay;
  let orm: Orm;
  let app: App;
  let http: ReturnType<typeof supertest>;
  let user: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = new FreezableRelay(database.url);
    await relay.start();
    const url = relay.relayed(database.url);
    orm = await initOrm(url, { poolMax: 4 });
    const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url });
    app = await buildApp({ env, orm, databaseUrl: url, logger: false, clock: fixedClock('2026-03-01T12:00:00Z') });
    await app.fastify.ready();
    http = supertest(app.fastify.server);
    user = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
    await setSchedule(orm.em.fork(), user.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(orm.em.fork(), user.id, { durationsMin: [15] })).id;
  });
  afterAll(async () => {
    relay.thaw();
    await app.close();
    await orm.close();
    await relay.close();
    await database.drop();
  });

  const me = () => http.get('/api/v2/me').set(...bearer(user.token));
  const bookFor = (host: TestUser & { eventTypeId: string }) =>
    http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId: host.eventTypeId, start: '2026-03-02T10:00:00Z', durationMin: 15, invitee: invitee() });
  let nextSlot = Date.parse('2026-03-02T09:00:00Z');
  const book = () =>
    http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: new Date((nextSlot += 15 * 60_000)).toISOString(), durationMin: 15, invitee: invitee() });

  it('gives 503 within the query timeout to requests holding or waiting for a connection, then recovers with the pool whole', async () => {
    // Fill the pool with open connections: requests that get one are stuck inside a transaction's BEGIN, the
    // others wait for a connection.
    expect((await Promise.all(Array.from({ length: 4 }, book))).map((res) => res.status)).toEqual(Array(4).fill(201));
    relay.freeze();
    const during = await Promise.all(Array.from({ length: 6 }, (_, i) => timed(i % 2 ? me : book)));
    for (const { value, ms } of during) {
      expectUnavailable(value);
      expect(ms).toBeLessThan(DATABASE_TIMEOUTS.queryMs + SLACK_MS);
    }
    relay.thaw();
    const after = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? me() : book())));
    expect(after.map((res) => res.status)).toEqual(Array(4).fill([201, 200]).flat());
    expect(await checkedOutConnections(orm)).toBe(0);
  });

  it('a freeze that catches transactions midway: 503, and their connections come back to the pool', async () => {
    // Hold three hosts' calendars so a booking of each waits inside its transaction (bookings of one host take
    // turns in memory before that, holding no connection), then freeze under them.
    const hosts = await Promise.all(Array.from({ length: 3 }, () => bookableHost(orm)));
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      for (const host of hosts) await admin.query('select pg_advisory_lock(hashtextextended($1, 0))', [`host-calendar:${host.id}`]);
      const waiting = Promise.all(hosts.map((host) => timed(() => bookFor(host))));
      await new Promise((resolve) => setTimeout(resolve, 500));
      relay.freeze();
      for (const { value, ms } of await waiting) {
        expectUnavailable(value);
        expect(ms).toBeLessThan(DATABASE_TIMEOUTS.queryMs + SLACK_MS);
      }
    } finally {
      await admin.end();
      relay.thaw();
    }
    expect(await checkedOutConnections(orm)).toBe(0);
    const after = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? me() : book())));
    expect(after.map((res) => res.status)).toEqual(Array(4).fill([201, 200]).flat());
  });
});

describe('a request deadline', () => {
  const HANDLER_MS = 700;
  let database: TestDatabase;
  let relay: FreezableRelay;
  let orm: Orm;
  let app: App;
  let http: ReturnType<typeof supertest>;
  let user: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = new FreezableRelay(database.url);
    await relay.start();
    const url = relay.relayed(database.url);
    orm = await initOrm(url, { poolMax: 3 });
    const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url });
    const clock = fixedClock('2026-03-01T12:00:00Z');
    app = await buildApp({ env, orm, databaseUrl: url, logger: false, clock, httpTimeouts: { handlerMs: HANDLER_MS } });
    await app.fastify.ready();
    http = supertest(app.fastify.server);
    user = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
    await setSchedule(orm.em.fork(), user.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(orm.em.fork(), user.id)).id;
  });
  afterAll(async () => {
    relay.thaw();
    await app.close();
    await orm.close();
    await relay.close();
    await database.drop();
  });

  const me = () => http.get('/api/v2/me').set(...bearer(user.token));
  const book = (start: string) =>
    http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start, durationMin: 30, invitee: invitee() });

  it('a request that cannot finish in time gets a 503 with Retry-After, with or without a body, and the app carries on', async () => {
    expect((await me()).status).toBe(200);
    relay.freeze();
    const answers = await Promise.all([timed(me), timed(() => book('2026-03-02T09:00:00Z'))]);
    for (const { value, ms } of answers) {
      expectUnavailable(value);
      // Well before the database's own limits (3 s to get a connection, 6 s for an answer).
      expect(ms).toBeLessThan(HANDLER_MS + 1_000);
    }
    relay.thaw();
    expect((await me()).status).toBe(200);
  });

  it('a booking whose deadline passed is rolled back, not committed after its 503', async () => {
    const start = '2026-03-02T10:00:00Z';
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // The host's calendar is busy for longer than the deadline, but shorter than a booking waits for it.
      await admin.query('select pg_advisory_lock(hashtextextended($1, 0))', [`host-calendar:${user.id}`]);
      const answer = timed(() => book(start));
      await new Promise((resolve) => setTimeout(resolve, HANDLER_MS + 400));
      await admin.query('select pg_advisory_unlock_all()');
      const { value, ms } = await answer;
      expectUnavailable(value);
      expect(ms).toBeLessThan(HANDLER_MS + 400);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const { rows } = await admin.query('select count(*)::int as n from booking where event_type_id = $1 and start_at = $2', [eventTypeId, start]);
      expect(rows[0].n).toBe(0);
    } finally {
      await admin.end();
    }
    expect((await book(start)).status).toBe(201);
  });
});

describe('a lock held elsewhere', () => {
  const NOW = '2026-03-01T12:00:00Z';
  let t: TestApp;
  let owner: TestUser;
  let admin: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW) });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    const url = new URL(inject('serverUrl'));
    url.pathname = `/${t.database.name}`;
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await t.close();
  });

  it(`a booking whose host calendar stays locked gets a 409 after ${BOOKING_CONTENTION.hostLockMs} ms, and books once it is free`, async () => {
    const eventTypeId = (await createEventType(t.em(), owner.id)).id;
    const book = () =>
      t.http
        .post('/api/v2/bookings')
        .set(...bearer(owner.token))
        .send({ eventTypeId, start: '2026-03-02T10:00:00Z', durationMin: 30, invitee: invitee() });
    await admin.query('select pg_advisory_lock(hashtextextended($1, 0))', [`host-calendar:${owner.id}`]);
    try {
      const { value, ms } = await timed(book);
      expect(value.status, value.text).toBe(409);
      expect(value.body).toEqual({ title: 'Conflict', message: expect.stringMatching(/retry/i) });
      expect(ms).toBeGreaterThanOrEqual(BOOKING_CONTENTION.hostLockMs - 100);
      expect(ms).toBeLessThan(BOOKING_CONTENTION.hostLockMs + SLACK_MS);
    } finally {
      await admin.query('select pg_advisory_unlock_all()');
    }
    expect((await book()).status).toBe(201);
  });

  it(`a write whose row stays locked gets a 503 with Retry-After after ${DATABASE_TIMEOUTS.lockMs} ms, and succeeds once it is free`, async () => {
    const eventTypeId = (await createEventType(t.em(), owner.id)).id;
    const rename = (name: string) =>
      t.http
        .patch(`/api/v2/event-types/${eventTypeId}`)
        .set(...bearer(owner.token))
        .send({ name });
    await admin.query('begin');
    try {
      await admin.query('select 1 from event_type where id = $1 for update', [eventTypeId]);
      const { value, ms } = await timed(() => rename('Locked out'));
      expectUnavailable(value);
      expect(ms).toBeLessThan(DATABASE_TIMEOUTS.lockMs + SLACK_MS);
    } finally {
      await admin.query('rollback');
    }
    const res = await rename('Renamed');
    expect(res.status, res.text).toBe(200);
    expect(res.body.name).toBe('Renamed');
  });
});

describe('slow clients', () => {
  let t: TestApp;
  let app: App;
  let port: number;
  const LIMIT_MS = 1_000;

  beforeAll(async () => {
    t = await startTestApp();
    app = await buildApp({
      env: loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: t.database.url }),
      orm: t.orm,
      databaseUrl: t.database.url,
      logger: false,
      httpTimeouts: { headersMs: LIMIT_MS, requestMs: LIMIT_MS, checkIntervalMs: 100 },
    });
    await app.fastify.listen({ port: 0, host: '127.0.0.1' });
    port = (app.fastify.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await app.close();
    await t.close();
  });

  /** Sends `head` and nothing more; resolves with what the server answered and when it closed the socket. */
  function sendAndStall(head: string): Promise<{ answer: string; ms: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve({ answer, ms: Date.now() - started }));
      socket.on('error', reject);
      socket.setTimeout(LIMIT_MS + 10_000, () => {
        socket.destroy();
        reject(new Error('the server kept the stalled connection open'));
      });
    });
  }

  it('a client that sends the headers but never the body is answered 408 and dropped', async () => {
    const { answer, ms } = await sendAndStall(
      'POST /api/v2/bookings HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"eventTypeId":',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(ms).toBeLessThan(LIMIT_MS + SLACK_MS);
  });

  it('a client that never finishes its headers is dropped', async () => {
    const { answer, ms } = await sendAndStall('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    expect(answer).toMatch(/^(HTTP\/1\.1 408|)/);
    expect(ms).toBeLessThan(LIMIT_MS + SLACK_MS);
  });

  it('a prompt client on the same server is served as usual', async () => {
    const res = await supertest(app.fastify.server).get('/healthz');
    expect(res.status).toBe(200);
  });
});
