import { buildApp } from './app.ts';
import { loadEnv } from './config/env.ts';
import { migrate, openDatabase } from './db/orm.ts';
import { addressesToOpen } from './http/landing-page.ts';
import { mailStartLine } from './modules/booking-messages/booking-messages.worker.ts';

/** After the drain (DRAIN_TIMEOUT_MS), how long closing the pools and the embedded database may take before the process exits anyway. */
const CLOSE_TIMEOUT_MS = 5_000;

const env = loadEnv();
const database = await openDatabase(env, (line) => console.error(line));
await migrate(database.orm);
const app = await buildApp({ env, orm: database.orm, databaseUrl: database.url });
await app.fastify.listen({ port: env.PORT, host: env.HOST });
const log = app.fastify.log;
let stopping = false;

/**
 * The stop load balancers expect. SIGTERM first starts the lame-duck period (SHUTDOWN_DELAY): /readyz fails at once
 * while requests are still served, each answer closing its connection, so that balancers stop sending here. Then
 * the listener closes, the requests in flight finish (bounded by DRAIN_TIMEOUT_MS), and the counter store, the
 * database pool and an embedded database last are closed: exit 0 when every request got its answer, 1 when some
 * had to be cut or something could not be closed in time. SIGINT (a terminal's Ctrl-C) skips the lame duck.
 */
async function shutdown(signal: NodeJS.Signals): Promise<void> {
  // A terminal's Ctrl-C reaches both npm and this process, and npm forwards it again: one stop is enough.
  if (stopping) return;
  stopping = true;
  // Should the event loop run dry while a close hangs on a promise alone, the process must not exit 0 unnoticed.
  process.exitCode = 1;
  app.beginStop();
  const delayMs = signal === 'SIGTERM' ? env.SHUTDOWN_DELAY : 0;
  if (delayMs > 0) {
    log.info({ signal, delayMs }, 'stopping: /readyz fails; still serving until the load balancers stop sending');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  log.info({ signal }, 'stopping: no new connections; finishing the requests in flight');
  let clean = true;
  const drainDeadline = setTimeout(() => {
    clean = false;
    log.warn(`requests still running after ${env.DRAIN_TIMEOUT_MS} ms; closing their connections`);
    app.fastify.server.closeAllConnections();
  }, env.DRAIN_TIMEOUT_MS);
  setTimeout(() => {
    log.error(`could not close the pools within ${CLOSE_TIMEOUT_MS} ms of the drain; exiting`);
    process.exit(1);
  }, env.DRAIN_TIMEOUT_MS + CLOSE_TIMEOUT_MS);

  clean = (await closed('the HTTP server and the counter store', () => app.close())) && clean;
  clearTimeout(drainDeadline);
  clean = (await closed('the database', () => database.close())) && clean;
  log.info({ clean }, 'stopped');
  process.exit(clean ? 0 : 1);
}

async function closed(what: string, close: () => Promise<void>): Promise<boolean> {
  try {
    await close();
    return true;
  } catch (error) {
    log.error({ err: error }, `closing ${what} failed`);
    return false;
  }
}

// Before the start is announced: whoever stops the service on seeing the line below (an orchestrator, a test) must
// reach shutdown(), not Node's default for these signals, which ends the process at once.
process.on('SIGINT', (signal) => void shutdown(signal));
process.on('SIGTERM', (signal) => void shutdown(signal));

// One write for the whole block: the log's own lines (Fastify's "Server listening at …") go to the same stdout
// asynchronously and would otherwise land between these.
console.log(
  [
    `Scheduling API listening on ${env.SITE_URL} (bound to ${env.HOST}:${env.PORT})`,
    ...addressesToOpen(env.SITE_URL).map(({ label, url }) => `  ${label.padEnd(32)} ${url}`),
    env.SIGNUP_PLAN === 'off'
      ? '  Sign-up is off (SIGNUP_PLAN=off): create accounts with `npm run cli -- user create`.'
      : `  ${`Sign up (${env.SIGNUP_PLAN} plan)`.padEnd(32)} ${env.SITE_URL}/signup`,
    '  Demo accounts, their logins and booking pages: npm run seed',
    `  ${mailStartLine(env)}`,
  ].join('\n'),
);
