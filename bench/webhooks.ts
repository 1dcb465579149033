/**
 * The webhooks' two figures (`npm run bench -- --only=webhooks`):
 * (a) what one subscribed endpoint adds to POST /bookings: the same booking creation measured without and with
 *     a `booking.created` endpoint (pointing at a local receiver), alternated twice, as a ratio of server +
 *     database CPU per booking and of throughput. The "with" runs include the deliveries the worker makes meanwhile.
 * (b) delivery throughput: events per second the worker of one instance delivers to a local receiver that answers
 *     at once, from a backlog written straight into the outbox.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AutocannonResult } from 'autocannon';
import type { BenchFixture } from './dataset.ts';
import { withClient } from './dataset.ts';
import type { Target } from './scenarios.ts';

export interface WebhookBenchContext {
  dbUrl: string;
  fixture: BenchFixture;
  /** A POST /api/v2/bookings for the booker, a new slot per request. */
  bookingTarget: Target;
  seconds: number;
  warmup: number;
  measure(target: Target, seconds: number): Promise<AutocannonResult>;
  /** Server + database CPU (µs) used so far. */
  cpuMicros(): Promise<number>;
  log(line: string): void;
}

export interface WebhookFigures {
  withoutEndpoint: { rps: number; cpuUsPerBooking: number };
  withEndpoint: { rps: number; cpuUsPerBooking: number };
  /** with / without: 1.10 is 10 % more. */
  cpuRatio: number;
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
    return {
      withoutEndpoint,
      withEndpoint,
      cpuRatio: withEndpoint.cpuUsPerBooking / withoutEndpoint.cpuUsPerBooking,
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
  cpuUsPerBooking: number;
}

async function measureBookings(context: WebhookBenchContext): Promise<Run> {
  const before = await context.cpuMicros();
  const result = await context.measure(context.bookingTarget, context.seconds);
  const cpu = (await context.cpuMicros()) - before;
  return { rps: result['2xx'] / result.duration, cpuUsPerBooking: cpu / Math.max(1, result['2xx']) };
}

function average(runs: Run[]): Run {
  const mean = (pick: (run: Run) => number) => runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
  return { rps: mean((run) => run.rps), cpuUsPerBooking: mean((run) => run.cpuUsPerBooking) };
}

const format = (run: Run) => `${Math.round(run.rps)} bookings/s, ${Math.round(run.cpuUsPerBooking)} µs CPU each`;

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
  await withClient(dbUrl, (client) =>
    client.query(
      `insert into webhook_endpoint (id, owner_id, url, events, secret, created_at)
       values ($1, $2, $3, array['booking.created', 'ping'], $4, now())`,
      [id, ownerId, url, `whsec_${Buffer.alloc(32, 7).toString('base64')}`],
    ),
  );
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
    `  POST /bookings, CPU per booking with one subscribed endpoint vs none: ${figures.cpuRatio.toFixed(3)} (${percent(figures.cpuRatio)}; target at most +10 %: ${figures.cpuRatio <= 1.1 ? 'met' : 'NOT met'})`,
    `  POST /bookings, throughput with vs without: ${figures.rpsRatio.toFixed(3)} (${Math.round(figures.withEndpoint.rps)} vs ${Math.round(figures.withoutEndpoint.rps)} bookings/s)`,
    `  delivery throughput, one instance to a local receiver: ${Math.round(figures.delivery.eventsPerSecond)} events/s (${figures.delivery.events} in ${figures.delivery.seconds.toFixed(2)} s)`,
  ];
}
