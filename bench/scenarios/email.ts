/**
 * E-mail's figures (`npm run bench -- --only=email`):
 *
 * - `email.bookings`: POST /bookings of the booker's event type with e-mail against its twin without
 *   (bench/dataset/rules.ts), alternated, on the service as the other scenarios run it: without SMTP_URL, so each
 *   message is queued in the booking's transaction and kept when due (marked in batches of 200), never composed or
 *   sent. This is what e-mail adds to the booking request;
 * - then, on a service with an SMTP server (smtp-server in the bench's own process, which accepts every message and
 *   keeps nothing but a count), started once the other service has stopped (its worker would keep the messages):
 *   `email.sent`, the same comparison with each booking's two confirmations (the invitee's with its invitation, the
 *   host's) composed and sent meanwhile and charged to it (shown, not judged: the 1.1 target is the request's, and
 *   the worker's sending has a target of its own); `email.sending`, how many messages a second one instance
 *   sends from a backlog of queued confirmations written straight into the outbox, half of them with an invitation.
 */
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import type { BenchFixture } from '../dataset/fixture.ts';
import { BOOKER_EVENT_TYPES } from '../dataset/rules.ts';
import { comparePair, type PairContext, type PairFigures } from './booking-pairs.ts';
import { type CreateBookingBody, restBookingTarget } from './scenarios.ts';

export const MESSAGE_BACKLOG = 2000;
const SETTLE_TIMEOUT_MS = 60_000;

export interface SmtpSink {
  url: string;
  /** Messages accepted so far. */
  count(): number;
  close(): Promise<void>;
}

/** An SMTP server on 127.0.0.1 that accepts every message and counts it. */
export async function startSmtpSink(): Promise<SmtpSink> {
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    // The service keeps its pooled connections open: close them at once when the bench ends.
    closeTimeout: 100,
    onData(stream, _session, callback) {
      stream.on('end', () => {
        count++;
        callback();
      });
      stream.resume();
    },
  });
  server.on('error', () => {
    // A connection cut when the service stops; the sink goes on.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface EmailBenchContext extends PairContext {
  dbUrl: string;
  /** The service's base URL. */
  appUrl: string;
  fixture: BenchFixture;
  /** Where the service sends (undefined: it has no SMTP_URL and keeps its mail). */
  sink: SmtpSink | undefined;
  /** The booker's next free slot (the sequence every POST /bookings scenario shares). */
  nextBooking: () => CreateBookingBody;
  parts: { bookings?: boolean; sending?: boolean };
}

export interface SendingFigures {
  messages: number;
  /** From the backlog's writing until the SMTP server had every message (the worker polls every 500 ms). */
  seconds: number;
  /** From the first message the SMTP server received to the last: the sending rate itself. */
  sendingSeconds: number;
  messagesPerSecond: number;
  serverUsPerMessage: number;
  databaseUsPerMessage?: number;
  /** Messages of the backlog the service did not mark sent (failures). */
  unsent: number;
}

export interface EmailFigures {
  /** Kept (no SMTP): what e-mail adds to the booking request. */
  bookings?: PairFigures | { skipped: string };
  /** Sent meanwhile, and charged to the bookings. */
  sent?: PairFigures | { skipped: string };
  sending?: SendingFigures;
}

export async function benchEmail(context: EmailBenchContext): Promise<EmailFigures> {
  // One connection for the whole bench: a connection per poll would charge PostgreSQL a backend start each time.
  const client = new pg.Client({ connectionString: context.dbUrl });
  await client.connect();
  try {
    const settle = () => waitUntilSent(client, context.fixture.booker.id, context.log);
    const booking = (eventTypeId: string) =>
      restBookingTarget(context.fixture, () => ({ ...context.nextBooking(), eventTypeId }));
    const figures: EmailFigures = {};
    if (context.parts.bookings) {
      const pair = await comparePair(
        context,
        context.sink ? 'e-mail sent' : 'e-mail queued',
        { target: booking(BOOKER_EVENT_TYPES.plain) },
        { target: booking(BOOKER_EVENT_TYPES.withEmail), settle },
      );
      if (context.sink) figures.sent = pair;
      else figures.bookings = pair;
    }
    if (context.parts.sending && context.sink) figures.sending = await measureSending(context, context.sink, client, settle);
    return figures;
  } finally {
    await client.end();
  }
}

/** Waits until none of the booker's messages is queued any more (each sent or kept, or failed for good). */
async function waitUntilSent(client: pg.Client, ownerId: string, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  for (;;) {
    // A range of the outbox's due index up to about now: the reminders scheduled for later are in that index too,
    // and a scan of all of them every 25 ms would charge PostgreSQL's CPU to the side that waits.
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from booking_message
        where status = 'queued' and next_attempt_at <= now() + interval '1 minute' and owner_id = $1`,
      [ownerId],
    );
    if (rows[0]!.n === 0) return;
    if (performance.now() - started > SETTLE_TIMEOUT_MS) {
      log(`e-mail: ${rows[0]!.n} messages still queued after ${SETTLE_TIMEOUT_MS / 1000} s; going on`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Books one slot with e-mail, then writes MESSAGE_BACKLOG copies of its two confirmations (to distinct addresses),
 * due now, and times them until the SMTP server has them all.
 */
async function measureSending(context: EmailBenchContext, sink: SmtpSink, client: pg.Client, settle: () => Promise<void>): Promise<SendingFigures> {
  const body = { ...context.nextBooking(), eventTypeId: BOOKER_EVENT_TYPES.withEmail };
  const target = restBookingTarget(context.fixture, () => body);
  const response = await fetch(context.appUrl + target.path, { method: 'POST', headers: target.headers, body: target.body!() });
  if (response.status !== 201) throw new Error(`e-mail sending bench: booking answered ${response.status}: ${await response.text()}`);
  const bookingId = ((await response.json()) as { id: string }).id;
  await settle();

  const received = sink.count();
  const before = { server: await context.serverCpuMicros(), database: context.databaseCpuMicros(), at: performance.now() };
  await client.query(
    `insert into booking_message (id, booking_id, owner_id, kind, audience, recipient, time_zone, status, scheduled_for,
                                  next_attempt_at, sequence, facts, created_at)
     select 'bench-mail-' || i, m.booking_id, m.owner_id, m.kind, m.audience, 'bench.mail.' || i || '@example.com', m.time_zone,
            'queued', now(), now(), m.sequence, m.facts, now()
       from generate_series(1, $2::int) i
       join booking_message m on m.booking_id = $1 and m.kind = 'confirmation'
                              and m.audience = case when i % 2 = 0 then 'invitee' else 'host' end`,
    [bookingId, MESSAGE_BACKLOG],
  );
  let first: number | undefined;
  while (sink.count() - received < MESSAGE_BACKLOG) {
    if (first === undefined && sink.count() > received) first = performance.now();
    if (performance.now() - before.at > SETTLE_TIMEOUT_MS) {
      const { rows } = await client.query<{ status: string; error: string | null; n: number }>(
        `select status, last_error as error, count(*)::int as n from booking_message where id like 'bench-mail-%' group by 1, 2`,
      );
      // Another bench's service on the same data set (one without SMTP keeps what it claims) takes messages too.
      throw new Error(`e-mail sending bench: the backlog was not sent within a minute: ${JSON.stringify(rows)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const done = performance.now();
  // Each outcome is recorded after its message went out: the last few are written just after the server has them.
  await settle();
  const server = (await context.serverCpuMicros()) - before.server;
  const databaseAfter = context.databaseCpuMicros();
  const { rows } = await client.query<{ n: number }>(
    `select count(*)::int as n from booking_message where booking_id = $1 and id like 'bench-mail-%' and status <> 'sent'`,
    [bookingId],
  );
  const sendingSeconds = (done - (first ?? before.at)) / 1000;
  const figures: SendingFigures = {
    messages: MESSAGE_BACKLOG,
    seconds: (done - before.at) / 1000,
    sendingSeconds,
    messagesPerSecond: MESSAGE_BACKLOG / sendingSeconds,
    serverUsPerMessage: server / MESSAGE_BACKLOG,
    ...(databaseAfter === undefined || before.database === undefined ? {} : { databaseUsPerMessage: (databaseAfter - before.database) / MESSAGE_BACKLOG }),
    unsent: rows[0]!.n,
  };
  context.log(
    `e-mail: ${MESSAGE_BACKLOG} messages sent in ${figures.sendingSeconds.toFixed(2)} s = ${Math.round(figures.messagesPerSecond)} messages/s ` +
      `(${figures.seconds.toFixed(2)} s from written), node ${Math.round(figures.serverUsPerMessage)} µs CPU each`,
  );
  return figures;
}

/** The figures as the run prints them. */
export function sendingLines(figures: SendingFigures, target: number): string[] {
  const database = figures.databaseUsPerMessage === undefined ? '' : `, PostgreSQL ${Math.round(figures.databaseUsPerMessage)} µs`;
  return [
    'E-mail sending, one instance to a local SMTP server:',
    `  ${figures.messages} queued confirmations (half with an invitation) sent in ${figures.sendingSeconds.toFixed(2)} s: ${Math.round(figures.messagesPerSecond)} messages/s (target at least ${target}: ${figures.messagesPerSecond >= target ? 'met' : 'NOT met'}); ${figures.seconds.toFixed(2)} s from written to the last received`,
    `  CPU per message: node ${Math.round(figures.serverUsPerMessage)} µs${database}${figures.unsent > 0 ? `; ${figures.unsent} not marked sent` : ''}`,
  ];
}
