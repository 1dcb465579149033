/**
 * The service under test, in a child process of its own (bench/run.ts forks it): the real buildApp on the
 * bench database, listening on 127.0.0.1 at a random port. The rate limit is set so high that it never
 * refuses, but every request still updates its counter row, as in production.
 * Tells the parent its port over IPC; exits when told to stop (so that --cpu-prof can write its profile).
 */
import { buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { initOrm } from '../../src/db/orm.ts';

const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('bench/servers/app-server.ts is started by bench/run.ts');

const env = loadEnv({
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  PORT: '0',
  HOST: '127.0.0.1',
  SITE_URL: 'http://127.0.0.1:3000',
  DATABASE_URL: url,
  // bench/scenarios/webhooks.ts delivers to a receiver on 127.0.0.1.
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  // bench/scenarios/calendar-sync.ts serves its feed on 127.0.0.1, and syncs it once per measured run.
  CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true',
  CALENDAR_SYNC_INTERVAL: '24h',
  // bench/scenarios/email.ts starts one with a local SMTP server that accepts and counts; otherwise mail is kept.
  ...(process.env.BENCH_SMTP_URL ? { SMTP_URL: process.env.BENCH_SMTP_URL } : {}),
});
const orm = await initOrm(url);
const app = await buildApp({ env, orm, databaseUrl: url, apiRateLimitPerMinute: 1_000_000_000, logger: false });
await app.fastify.listen({ port: 0, host: '127.0.0.1' });
const address = app.fastify.server.address();
process.send({ port: typeof address === 'object' && address ? address.port : 0 });

process.on('message', (message) => {
  // CPU time this process has used, so that the parent can charge it per request.
  if (message === 'cpu') return void process.send?.({ cpu: process.cpuUsage() });
  if (message !== 'stop') return;
  void (async () => {
    await app.close();
    await orm.close();
    process.exit(0);
  })();
});
process.on('disconnect', () => process.exit(0));
