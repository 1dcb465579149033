import { Redis } from 'ioredis';
import pg from 'pg';
import supertest, { type Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { initOrm } from '../../src/db/orm.ts';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';

/** Requests per minute per token in these tests; the service's default is the spec's 600. */
const LIMIT = 5;
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';

type Http = ReturnType<typeof supertest>;

/** Another instance of the service on the same database, as a second process behind a load balancer would be. */
async function startInstance(databaseUrl: string, env: Record<string, string> = {}): Promise<{ http: Http; close(): Promise<void> }> {
  const orm = await initOrm(databaseUrl, { poolMax: 5 });
  const app = await buildApp({
    env: loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, ...env }),
    orm,
    databaseUrl,
    apiRateLimitPerMinute: LIMIT,
    logger: false,
    redisCommandTimeoutMs: PATIENT_REDIS_MS,
  });
  await app.fastify.ready();
  return {
    http: supertest(app.fastify.server),
    async close() {
      await app.close();
      await orm.close();
    },
  };
}

/**
 * The shared-count tests must count in Redis: with the service's 50 ms command timeout, a loaded machine (the
 * whole suite in parallel) made an increment late, the request counted in memory, and the shared count fell short.
 */
const PATIENT_REDIS_MS = 2_000;

const me = (http: Http, token: string) => http.get('/api/v2/me').set(...bearer(token));

function expectRateLimitHeaders(res: Response, remaining: number): void {
  expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
  expect(res.headers['x-ratelimit-remaining']).toBe(String(remaining));
  expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  const reset = Number(res.headers['x-ratelimit-reset']);
  expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
  expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
}

function expectLimited(res: Response): void {
  expect(res.status, res.text).toBe(429);
  expect(res.body).toEqual({ title: 'Too Many Requests', message: expect.stringContaining(`${LIMIT} requests per minute`) });
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(res.headers['cache-control']).toBe('no-store');
  expectRateLimitHeaders(res, 0);
}

/** Spends a token's whole budget, alternating between instances, and checks the count goes down across them. */
async function spendBudget(instances: Http[], token: string): Promise<void> {
  for (let i = 0; i < LIMIT; i++) {
    const res = await me(instances[i % instances.length]!, token);
    expect(res.status, res.text).toBe(200);
    expectRateLimitHeaders(res, LIMIT - 1 - i);
  }
}

describe('the per-token rate limit (PostgreSQL counters)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: LIMIT });
  });
  afterAll(() => t.close());

  it('refuses the request after the limit with 429, Retry-After and the rate-limit headers', async () => {
    const user = await createUserWithToken(t.em());
    await spendBudget([t.http], user.token);
    expectLimited(await me(t.http, user.token));
    expectLimited(await me(t.http, user.token));
  });

  it('counts on refused scopes too, and a limited token gets 429 before its scope is checked', async () => {
    const user = await createUserWithToken(t.em(), { scopes: ['read:leads'] });
    for (let i = 0; i < LIMIT; i++) {
      const res = await me(t.http, user.token);
      expect(res.status).toBe(403);
      expectRateLimitHeaders(res, LIMIT - 1 - i);
    }
    expectLimited(await me(t.http, user.token));
  });

  it('gives two tokens of one user independent budgets', async () => {
    const user = await createUserWithToken(t.em());
    const other = await createPersonalAccessToken(t.em(), { userId: user.id, name: 'second', scopes: ['read:profile'] });
    await spendBudget([t.http], user.token);
    expectLimited(await me(t.http, user.token));
    const res = await me(t.http, other.token);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(user.id);
    expectRateLimitHeaders(res, LIMIT - 1);
  });

  it('shares one budget per token between two instances on the same database', async () => {
    const other = await startInstance(t.database.url);
    try {
      const user = await createUserWithToken(t.em());
      await spendBudget([t.http, other.http], user.token);
      expectLimited(await me(other.http, user.token));
      expectLimited(await me(t.http, user.token));
    } finally {
      await other.close();
    }
  });

  it('fails open, counting in memory per instance, while the counter table is unusable', async () => {
    const admin = new pg.Client({ connectionString: t.database.url });
    await admin.connect();
    const other = await startInstance(t.database.url);
    await admin.query('alter table rate_limit rename to rate_limit_gone');
    try {
      const user = await createUserWithToken(t.em());
      await spendBudget([t.http], user.token);
      expectLimited(await me(t.http, user.token));
      // The other instance counts on its own while the shared store is down: the limit is per instance.
      const res = await me(other.http, user.token);
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res, LIMIT - 1);
    } finally {
      await admin.query('alter table rate_limit_gone rename to rate_limit');
      await admin.end();
      await other.close();
    }
    // Back to the shared store: a fresh token is counted there again.
    const later = await createUserWithToken(t.em());
    expectRateLimitHeaders(await me(t.http, later.token), LIMIT - 1);
  });
});

/** TEST_REDIS_URL, else the standard local Redis when one answers (these machines run one); else none. */
async function findRedis(): Promise<string | undefined> {
  if (process.env.TEST_REDIS_URL) return process.env.TEST_REDIS_URL;
  const url = 'redis://127.0.0.1:6379';
  const probe = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 500, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG' ? url : undefined;
  } catch {
    return undefined;
  } finally {
    probe.disconnect();
  }
}

const redisUrl = await findRedis();

// Needs a Redis server (see findRedis; CI sets TEST_REDIS_URL). Counter keys are token ids, random per run.
describe.runIf(redisUrl)('the per-token rate limit with REDIS_URL set', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: LIMIT, env: { REDIS_URL: redisUrl! }, redisCommandTimeoutMs: PATIENT_REDIS_MS });
  });
  afterAll(() => t.close());

  it('shares one budget per token between two instances through Redis, not PostgreSQL', async () => {
    const other = await startInstance(t.database.url, { REDIS_URL: redisUrl! });
    try {
      const user = await createUserWithToken(t.em());
      await spendBudget([t.http, other.http], user.token);
      expectLimited(await me(t.http, user.token));
      expectLimited(await me(other.http, user.token));
      const admin = new pg.Client({ connectionString: t.database.url });
      await admin.connect();
      try {
        const { rows } = await admin.query('select count(*)::int as n from rate_limit');
        expect(rows[0].n).toBe(0);
      } finally {
        await admin.end();
      }
    } finally {
      await other.close();
    }
  });
});

describe('the per-token rate limit with an unreachable counter store', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: LIMIT, env: { REDIS_URL: UNREACHABLE_REDIS } });
  });
  afterAll(() => t.close());

  it('still answers, with the headers, and still limits each token per instance', async () => {
    const other = await startInstance(t.database.url, { REDIS_URL: UNREACHABLE_REDIS });
    try {
      const user = await createUserWithToken(t.em());
      await spendBudget([t.http], user.token);
      expectLimited(await me(t.http, user.token));
      const res = await me(other.http, user.token);
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res, LIMIT - 1);
    } finally {
      await other.close();
    }
  });
});
