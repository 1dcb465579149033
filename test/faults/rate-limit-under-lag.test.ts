import supertest from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';

/**
 * The shared rate limit on a busy process: Redis answers, but the event loop is stalled again and again (as by a
 * CPU-bound burst of requests), so that a reply waits unread past the counter's time limit. The count must stay
 * in Redis, and exact; only a store that really fails sends the count to memory, and then each instance admits its
 * share of the budget (RATE_LIMIT_INSTANCES), so that all of them together never admit more than the budget.
 */

const LIMIT = 10;
const STALL_MS = 80;
const UNREACHABLE_REDIS = 'redis://127.0.0.1:1';
const redisUrl = process.env.TEST_REDIS_URL;

type Http = ReturnType<typeof supertest>;

interface Instance {
  app: App;
  http: Http;
  orm: Orm;
}

/** One instance of the service on the shared database, with the service's own Redis time limit. */
async function startInstance(databaseUrl: string, env: Record<string, string>): Promise<Instance> {
  const orm = await initOrm(databaseUrl, { poolMax: 3 });
  const app = await buildApp({
    env: loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl, ...env }),
    orm,
    databaseUrl,
    apiRateLimitPerMinute: LIMIT,
    logger: false,
  });
  await app.fastify.ready();
  return { app, orm, http: supertest(app.fastify.server) };
}

/**
 * Keeps the event loop busy for `ms` at every turn of it, after its I/O (as CPU-bound request handlers do), until
 * the returned function is called: a reply that came in meanwhile waits unread while the timers fire first.
 */
function stallEventLoop(ms: number): () => void {
  let stalled: NodeJS.Immediate;
  const stall = () => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      // busy
    }
    stalled = setImmediate(stall);
  };
  stalled = setImmediate(stall);
  return () => clearImmediate(stalled);
}

/** `count` requests of one token, one after the other, through the instances in turn; their statuses. */
async function spend(instances: Instance[], token: string, count: number): Promise<number[]> {
  const statuses = [];
  for (let i = 0; i < count; i++) {
    const res = await instances[i % instances.length]!.http.get('/api/v2/me').set(...bearer(token));
    statuses.push(res.status);
  }
  return statuses;
}

const admitted = (statuses: number[]) => statuses.filter((status) => status === 200).length;

describe('the shared rate limit on a stalled event loop', () => {
  let database: TestDatabase;
  let instances: Instance[] = [];
  let resume: (() => void) | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    resume?.();
    resume = undefined;
    for (const instance of instances) {
      await instance.app.close();
      await instance.orm.close();
    }
    instances = [];
  });
  afterAll(() => database.drop());

  it.runIf(redisUrl)('admits exactly the budget between two instances while Redis answers', async () => {
    instances = [await startInstance(database.url, { REDIS_URL: redisUrl! }), await startInstance(database.url, { REDIS_URL: redisUrl! })];
    const user = await createUserWithToken(instances[0]!.orm.em.fork());
    resume = stallEventLoop(STALL_MS);
    const statuses = await spend(instances, user.token, 2 * LIMIT);
    expect(admitted(statuses)).toBe(LIMIT);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
  });

  it.runIf(redisUrl)('keeps /readyz ready while Redis answers', async () => {
    instances = [await startInstance(database.url, { REDIS_URL: redisUrl! })];
    resume = stallEventLoop(STALL_MS);
    for (let i = 0; i < 5; i++) {
      const res = await instances[0]!.http.get('/readyz');
      expect(res.body).toEqual({ status: 'ready', database: 'ok', counterStore: 'ok' });
    }
  });

  it('admits no more than the budget in all when the store is down: each instance its share', async () => {
    const env = { REDIS_URL: UNREACHABLE_REDIS, RATE_LIMIT_INSTANCES: '3' };
    instances = [await startInstance(database.url, env), await startInstance(database.url, env), await startInstance(database.url, env)];
    const user = await createUserWithToken(instances[0]!.orm.em.fork());
    const statuses = await spend(instances, user.token, 3 * LIMIT);
    expect(admitted(statuses)).toBe(3 * Math.floor(LIMIT / 3));
    const one = await spend([instances[0]!], user.token, 1);
    expect(one).toEqual([429]);
  });
});
