import { randomBytes } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import supertest from 'supertest';
import { inject } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { initOrm } from '../../src/db/orm.ts';
import { databaseUrl } from './database-url.ts';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A database of this test file's own, cloned from the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('serverUrl');
  const template = inject('templateDatabase');
  const name = `test_${template.replace('test_template_', '')}_${randomBytes(4).toString('hex')}`;
  await withAdmin(serverUrl, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database ${name} template ${template}`);
        return;
      } catch (error) {
        // 55006: another clone of the template is being taken at this very moment.
        if ((error as { code?: string }).code !== '55006' || attempt > 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    }
  });
  return {
    url: databaseUrl(serverUrl, name),
    name,
    drop: async () => {
      await withAdmin(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function withAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The app as deployed behind a proxy, so tests can speak for several client addresses with X-Forwarded-For. */
export const BEHIND_PROXY = { TRUST_PROXY: 'true' } as const;

export interface TestApp {
  app: App;
  orm: MikroORM;
  /** A fresh EntityManager for arranging data and checking the database directly. */
  em(): EntityManager;
  http: ReturnType<typeof supertest>;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  apiRateLimitPerMinute?: number;
  publicRateLimitPerMinute?: number;
  env?: Record<string, string>;
  /** An existing database to serve (left in place on close); by default a new one of the app's own. */
  database?: TestDatabase;
  /** A built web app to serve instead of dist/web (the browser tests build the current source). */
  webRoot?: string;
  /** Captures the service's log (at the env's LOG_LEVEL) instead of discarding it. */
  logStream?: NodeJS.WritableStream;
  /** The ORM pool's size (10 unless a test needs to know or change it). */
  poolMax?: number;
  /** See AppOptions.redisCommandTimeoutMs. */
  redisCommandTimeoutMs?: number;
}

/** The whole service on a database of its own, not listening: supertest talks to it in-process. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const ownsDatabase = !options.database;
  const database = options.database ?? (await createTestDatabase());
  const orm = await initOrm(database.url, { poolMax: options.poolMax ?? 10 });
  // TEST_LOG=debug shows the service's own log while a test runs.
  const env = loadEnv({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG ?? 'silent', PORT: '3000', DATABASE_URL: database.url, ...options.env });
  const app = await buildApp({
    env,
    orm,
    databaseUrl: database.url,
    clock: options.clock,
    apiRateLimitPerMinute: options.apiRateLimitPerMinute,
    publicRateLimitPerMinute: options.publicRateLimitPerMinute,
    webRoot: options.webRoot,
    logger: Boolean(process.env.TEST_LOG),
    logStream: options.logStream,
    redisCommandTimeoutMs: options.redisCommandTimeoutMs,
  });
  await app.fastify.ready();
  return {
    app,
    orm,
    em: () => orm.em.fork(),
    http: supertest(app.fastify.server),
    database,
    async close() {
      await app.close();
      await orm.close();
      if (ownsDatabase) await database.drop();
    },
  };
}
