import type { Response } from 'supertest';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { POSTGRES_COUNTER_TIMEOUTS } from '../../src/config/timeouts.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { FreezableRelay } from '../helpers/freezable-relay.ts';

/**
 * Rate-limit counters in PostgreSQL (no REDIS_URL) behind a connection that freezes: a request waits for its
 * counter no longer than the counter pool's limits, then is counted in memory (fail open), as with Redis.
 * The app's own database connection stays direct, so only the counter store is frozen.
 */

const LIMIT = 3;
/** Scheduling slack on a machine shared with other work. */
const SLACK_MS = 1_500;
/** The most a request may wait for its counter: a connection, then the query. */
const COUNTER_BOUND_MS = POSTGRES_COUNTER_TIMEOUTS.acquireMs + POSTGRES_COUNTER_TIMEOUTS.queryMs;

describe('a frozen PostgreSQL counter store', () => {
  let database: TestDatabase;
  let relay: FreezableRelay;
  let orm: Orm;
  let app: App;
  let http: ReturnType<typeof supertest>;
  let user: TestUser;

  beforeAll(async () => {
    database = await createTestDatabase();
    relay = new FreezableRelay(database.url);
    await relay.start();
    orm = await initOrm(database.url, { poolMax: 4 });
    const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url });
    app = await buildApp({ env, orm, databaseUrl: relay.relayed(database.url), logger: false, apiRateLimitPerMinute: LIMIT });
    await app.fastify.ready();
    http = supertest(app.fastify.server);
    user = await createUserWithToken(orm.em.fork());
  });
  afterAll(async () => {
    relay.thaw();
    await app.close();
    await orm.close();
    await relay.close();
    await database.drop();
  });

  async function until(condition: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 10 * SLACK_MS;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('the counter store did not come back');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function me(): Promise<{ res: Response; ms: number }> {
    const started = Date.now();
    const res = await http.get('/api/v2/me').set(...bearer(user.token)).timeout(COUNTER_BOUND_MS + 5 * SLACK_MS);
    return { res, ms: Date.now() - started };
  }

  it('costs a request at most the counter limits, and the token is still limited, in memory', async () => {
    expect((await me()).res.status).toBe(200);
    relay.freeze();
    const during = [];
    for (let i = 0; i < LIMIT + 1; i++) during.push(await me());
    for (const { ms } of during) expect(ms).toBeLessThan(COUNTER_BOUND_MS + SLACK_MS);
    // Memory starts from what the store had counted (the request before the freeze): the budget is spent once.
    expect(during.map(({ res }) => res.status)).toEqual([...Array<number>(LIMIT - 1).fill(200), 429, 429]);
    expect(during[0]!.res.headers['x-ratelimit-limit']).toBe(String(LIMIT));

    // Back within the window, the store learns what memory admitted: the token has nothing left.
    relay.thaw();
    await until(async () => (await http.get('/readyz')).body.counterStore === 'ok');
    expect((await me()).res.status).toBe(429);
  });
});
