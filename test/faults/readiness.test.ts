import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_COUNTER_TIMEOUT_MS } from '../../src/lib/rate-limit.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { FrozenRedis } from '../helpers/frozen-redis.ts';
import { adminQuery } from '../helpers/admin-query.ts';

/**
 * Liveness (/healthz) says whether the process can reach its database; readiness (/readyz) whether it should get
 * traffic, naming a counter store that does not answer as degraded. A Redis that accepts connections and never
 * answers must cost a request no more than the counter timeout: the limiter then counts in memory (fail open).
 */

const LIMIT = 5;
/** What a request may take beyond the counter timeout on this shared, busy machine (it is a few ms when idle). */
const MARGIN_MS = 500;
/** Longer than any answer should take, so that a hang fails the test with its own message instead of the test timeout. */
const CLIENT_TIMEOUT_MS = 5000;

async function timed(request: () => PromiseLike<Response>): Promise<{ res: Response; ms: number }> {
  const started = performance.now();
  const res = await request();
  return { res, ms: performance.now() - started };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('/readyz with the counters in PostgreSQL', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await adminQuery(`alter database ${t.database.name} allow_connections true`);
    await t.close();
  });

  it('is ready when the database and the counter store answer', async () => {
    const res = await t.http.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', database: 'ok', counterStore: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await t.http.get('/healthz')).body).toEqual({ status: 'ok' });
  });

  it('is 503 while the database refuses connections, and ready again once it accepts them', async () => {
    await adminQuery(`alter database ${t.database.name} allow_connections false`);
    try {
      await adminQuery('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [t.database.name]);
      const res = await t.http.get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', database: 'unavailable', counterStore: 'degraded' });
      expect((await t.http.get('/healthz')).status).toBe(503);
    } finally {
      await adminQuery(`alter database ${t.database.name} allow_connections true`);
    }
    let res = await t.http.get('/readyz');
    for (let attempt = 0; attempt < 10 && res.status !== 200; attempt++) res = await t.http.get('/readyz');
    expect(res.body).toEqual({ status: 'ready', database: 'ok', counterStore: 'ok' });
  });
});

describe('a Redis that accepts connections and never answers', () => {
  let redis: FrozenRedis;
  let t: TestApp;
  let user: TestUser;
  const me = () => t.http.get('/api/v2/me').set(...bearer(user.token)).timeout(CLIENT_TIMEOUT_MS);

  beforeAll(async () => {
    redis = new FrozenRedis();
    await redis.start();
    t = await startTestApp({ apiRateLimitPerMinute: LIMIT, env: { REDIS_URL: redis.url } });
    user = await createUserWithToken(t.em());
    // The service's client believes Redis is ready: its commands will be sent and wait for replies.
    await waitFor(() => redis.handshakes > 0, 'the Redis handshake');
  });
  afterAll(async () => {
    await t.close();
    await redis.stop();
  });

  it('costs a request at most the counter timeout, and each token is still limited, in memory', async () => {
    const bound = REDIS_COUNTER_TIMEOUT_MS + MARGIN_MS;
    for (let i = 0; i < LIMIT; i++) {
      const { res, ms } = await timed(me);
      expect(res.status, res.text).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
      expect(ms).toBeLessThan(bound);
    }
    const { res, ms } = await timed(me);
    expect(res.status).toBe(429);
    expect(ms).toBeLessThan(bound);
    expect(redis.unanswered).toBeGreaterThan(0);
  });

  it('answers concurrent requests within the bound too', async () => {
    const other = await createUserWithToken(t.em());
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.http.get('/api/v2/me').set(...bearer(other.token)).timeout(CLIENT_TIMEOUT_MS)),
    );
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(20 - LIMIT).fill(429)]);
    expect(performance.now() - started).toBeLessThan(REDIS_COUNTER_TIMEOUT_MS + 2 * MARGIN_MS);
  });

  it('/readyz says the counter store is degraded while /healthz stays 200', async () => {
    const { res: ready, ms } = await timed(() => t.http.get('/readyz').timeout(CLIENT_TIMEOUT_MS));
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'degraded', database: 'ok', counterStore: 'degraded' });
    expect(ms).toBeLessThan(REDIS_COUNTER_TIMEOUT_MS + MARGIN_MS);
    const health = await t.http.get('/healthz').timeout(CLIENT_TIMEOUT_MS);
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });
});
