/**
 * The webhooks' two figures (`npm run bench -- --only=webhooks`): what one subscribed endpoint adds to
 * POST /bookings (without and with it, alternated, the "with" runs including the worker's deliveries), and how
 * many events a second one instance's worker delivers from a backlog written straight into the outbox.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AutocannonResult } from 'autocannon';
import { SEALING_ROOT_SECRET, sealWithRoot } from '../../src/lib/sealed-secrets.ts';
import { readOrCreateServerSecret } from '../../src/lib/server-secret.ts';
import type { BenchFixture } from '../dataset/fixture.ts';
import { withClient } from '../dataset/dataset.ts';
import type { Target } from './scenarios.ts';

export interface WebhookBenchContext {
  dbUrl: string;
  fixture: BenchFixture;
  /** A POST /api/v2/bookings for the booker, a new slot per request. */
  bookingTarget: Target;
  seconds: number;
  warmup: number;
  measure(target: Target, seconds: number): Promise<AutocannonResult>;
  /** CPU (µs) the service's process has used so far. */
  serverCpuMicros(): Promise<number>;
  /** CPU (µs) PostgreSQL has used so far (all its databases: on a shared server, others' work too), if known. */
  databaseCpuMicros(): number | undefined;
  log(line: string): void;
}

export interface WebhookFigures {
  withoutEndpoint: Run;
  withEndpoint: Run;
  /** with / without, of the service's CPU per booking: 1.10 is 10 % more. */
  serverCpuRatio: number;
  /** The same of the service's and PostgreSQL's CPU together, when PostgreSQL's is known. */
  totalCpuRatio?: number;
  rpsRatio: number;
  delivery: { events: number; seconds: number; eventsPerSecond: number };
}

const BACKLOG = 2000;

export async function benchWebhooks(context: WebhookBenchContext): Promise<WebhookFigures> {
  const receiver = await startCountingReceiver();
  const ownerId = context.fixture.booker.id;
  try {
    await clearWebhooks(context.dbUrl, ownerId);
    if (context.warmup > 0) await context.measure(context.bookingTarget, context.warmup);
    const runs = { without: [] as Run[], with: [] as Run[] };
    for (let round = 0; round < 2; round++) {
      runs.without.push(await measureBookings(context));
      await addEndpoint(context.dbUrl, ownerId, receiver.url);
      runs.with.push(await measureBookings(context));
      await clearWebhooks(context.dbUrl, ownerId);
    }
    const withoutEndpoint = average(runs.without);
    const withEndpoint = average(runs.with);
    context.log(`webhooks: booking creation without ${format(withoutEndpoint)}, with one endpoint ${format(withEndpoint)}`);
    const delivery = await measureDeliveryThroughput(context, ownerId, receiver);
    context.log(`webhooks: ${delivery.events} deliveries in ${delivery.seconds.toFixed(2)} s = ${Math.round(delivery.eventsPerSecond)} events/s`);
    const total = (run: Run) => (run.databaseUsPerBooking === undefined ? undefined : run.serverUsPerBooking + run.databaseUsPerBooking);
    const totals = [total(withEndpoint), total(withoutEndpoint)];
    return {
      withoutEndpoint,
      withEndpoint,
      serverCpuRatio: withEndpoint.serverUsPerBooking / withoutEndpoint.serverUsPerBooking,
      ...(totals[0] !== undefined && totals[1] !== undefined ? { totalCpuRatio: totals[0] / totals[1] } : {}),
      rpsRatio: withEndpoint.rps / withoutEndpoint.rps,
      delivery,
    };
  } finally {
    await clearWebhooks(context.dbUrl, ownerId);
    await receiver.close();
  }
}

interface Run {
  rps: number;
  /** CPU per request answered (a 409 under contention costs too), in the service's process and in PostgreSQL. */
  serverUsPerBooking: number;
  databaseUsPerBooking?: number;
}

async function measureBookings(context: WebhookBenchContext): Promise<Run> {
  const before = { server: await context.serverCpuMicros(), database: context.databaseCpuMicros() };
  const result = await context.measure(context.bookingTarget, context.seconds);
  const server = (await context.serverCpuMicros()) - before.server;
  const databaseAfter = context.databaseCpuMicros();
  if (result.non2xx > 0 || result.errors > 0) {
    context.log(`webhooks: ${result.non2xx} non-2xx answers (${JSON.stringify(Object.keys(result.statusCodeStats))}), ${result.errors} errors`);
  }
  const answered = Math.max(1, result['2xx'] + result.non2xx);
  return {
    rps: result['2xx'] / result.duration,
    serverUsPerBooking: server / answered,
    ...(databaseAfter === undefined || before.database === undefined ? {} : { databaseUsPerBooking: (databaseAfter - before.database) / answered }),
  };
}

function average(runs: Run[]): Run {
  const mean = (pick: (run: Run) => number | undefined) => runs.reduce((sum, run) => sum + (pick(run) ?? Number.NaN), 0) / runs.length;
  const database = mean((run) => run.databaseUsPerBooking);
  return {
    rps: mean((run) => run.rps),
    serverUsPerBooking: mean((run) => run.serverUsPerBooking),
    ...(Number.isNaN(database) ? {} : { databaseUsPerBooking: database }),
  };
}

const format = (run: Run) =>
  `${Math.round(run.rps)} bookings/s, node ${Math.round(run.serverUsPerBooking)} µs + PostgreSQL ${Math.round(run.databaseUsPerBooking ?? Number.NaN)} µs CPU each`;

/** Writes BACKLOG events and their deliveries, due now, then waits until the worker has delivered them all. */
async function measureDeliveryThroughput(context: WebhookBenchContext, ownerId: string, receiver: CountingReceiver) {
  const endpointId = await addEndpoint(context.dbUrl, ownerId, receiver.url);
  const body = JSON.stringify({ id: 'evt_bench', type: 'ping', createdAt: new Date().toISOString(), data: { webhookId: endpointId } });
  const received = receiver.count();
  const started = performance.now();
  await withClient(context.dbUrl, async (client) => {
    await client.query(
      `with events as (
         insert into webhook_event (id, owner_id, type, body, created_at)
         select 'evt_bench_' || i, $1, 'ping', $2, now() from generate_series(1, $3) i
         returning id)
       insert into webhook_delivery (id, endpoint_id, event_id, next_attempt_at, created_at)
       select gen_random_uuid()::text, $4, id, now(), now() from events`,
      [ownerId, body, BACKLOG, endpointId],
    );
  });
  while (receiver.count() - received < BACKLOG) await new Promise((resolve) => setTimeout(resolve, 20));
  const seconds = (performance.now() - started) / 1000;
  return { events: BACKLOG, seconds, eventsPerSecond: BACKLOG / seconds };
}

async function addEndpoint(dbUrl: string, ownerId: string, url: string): Promise<string> {
  const id = `wh_bench_${Date.now()}`;
  await withClient(dbUrl, async (client) => {
    // Stored sealed, as the service stores it (src/lib/sealed-secrets.ts).
    const positional = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    const root = await readOrCreateServerSecret(async (sql, params) => (await client.query(positional(sql), params)).rows, SEALING_ROOT_SECRET);
    await client.query(
      `insert into webhook_endpoint (id, owner_id, url, events, secret, created_at)
       values ($1, $2, $3, array['booking.created', 'ping'], $4, now())`,
      [id, ownerId, url, sealWithRoot(root, 'webhook-signing-secret', `whsec_${Buffer.alloc(32, 7).toString('base64')}`)],
    );
  });
  return id;
}

async function clearWebhooks(dbUrl: string, ownerId: string): Promise<void> {
  await withClient(dbUrl, async (client) => {
    await client.query('delete from webhook_endpoint where owner_id = $1', [ownerId]);
    await client.query('delete from webhook_event where owner_id = $1', [ownerId]);
  });
}

interface CountingReceiver {
  url: string;
  count(): number;
  close(): Promise<void>;
}

/** Answers 204 at once and counts. */
async function startCountingReceiver(): Promise<CountingReceiver> {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The figures as the run prints them. */
export function webhookLines(figures: WebhookFigures): string[] {
  const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
  return [
    'Webhooks:',
    `  POST /bookings, the service's CPU per booking with one subscribed endpoint vs none: ${figures.serverCpuRatio.toFixed(3)} (${percent(figures.serverCpuRatio)}; target at most +10 %: ${figures.serverCpuRatio <= 1.1 ? 'met' : 'NOT met'})`,
    ...(figures.totalCpuRatio === undefined
      ? []
      : [`  POST /bookings, service + PostgreSQL CPU per booking, with vs without: ${figures.totalCpuRatio.toFixed(3)} (${percent(figures.totalCpuRatio)})`]),
    `  POST /bookings, throughput with vs without: ${figures.rpsRatio.toFixed(3)} (${Math.round(figures.withEndpoint.rps)} vs ${Math.round(figures.withoutEndpoint.rps)} bookings/s)`,
    `  delivery throughput, one instance to a local receiver: ${Math.round(figures.delivery.eventsPerSecond)} events/s (${figures.delivery.events} in ${figures.delivery.seconds.toFixed(2)} s)`,
  ];
}
