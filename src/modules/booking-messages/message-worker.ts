/**
 * Sends due messages: every instance polls, and claims a batch with `for update skip locked` while moving its due
 * time a lease ahead, in one statement (the webhook delivery worker's claim), so two instances never send one
 * message at once and a message whose instance died is claimed again when its lease ends (at least once; the
 * repeat carries the same Message-ID). A batch's outcomes are written together, each only if the lease is still
 * that claim's, so a message moved or dropped meanwhile (a reschedule, a cancellation) keeps its new state.
 * Without an SMTP server each due message is kept: marked `skipped`, as it would have gone out.
 */
import { MAIL_DELIVERY } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { startPollingWorker, type WorkerQuery } from '../../lib/polling-worker.ts';
import { type RetryPolicy, retryDelayMs } from '../../lib/retry-policy.ts';
import type { ComposedMail, StoredMessage } from './compose.ts';
import type { MailTransport, SendOutcome } from './mail-transport.ts';
import { SKIPPED } from './message-plan.ts';

/** Why every message is `skipped` on a service without an SMTP server. */
export const KEPT_WITHOUT_SMTP = 'kept, not sent: no SMTP server is configured (SMTP_URL)';

/** The default delays after temporary failures: 1 + 7 attempts over about 22 hours. */
export const DEFAULT_MAIL_RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000];

/** Messages kept per poll without an SMTP server (one statement, nothing rendered). */
const KEEP_BATCH = 200;

export interface MessageWorkerOptions {
  query: WorkerQuery;
  clock: Clock;
  leaseMs: number;
  retry: RetryPolicy;
  /** Undefined without SMTP_URL: messages are kept, not sent. */
  transport: MailTransport | undefined;
  /** The message's mail (opening its sealed manage link, if any). */
  compose: (message: StoredMessage & { manage_link: string | null }) => Promise<ComposedMail>;
  onError: (error: unknown) => void;
}

type ClaimedMessage = StoredMessage & { manage_link: string | null; attempts: number };

export function startMessageWorker(options: MessageWorkerOptions): { stop(): Promise<void> } {
  const transport = options.transport;
  return startPollingWorker({
    runBatch: () => (transport ? sendDueBatch(options, transport) : keepDueBatch(options)),
    batch: transport ? MAIL_DELIVERY.batch : KEEP_BATCH,
    pollMs: MAIL_DELIVERY.pollMs,
    onError: options.onError,
  });
}

async function keepDueBatch(options: MessageWorkerOptions): Promise<number> {
  const kept = await options.query(
    `update booking_message set status = 'skipped', next_attempt_at = null, last_error = $1
      where id in (select id from booking_message where status in ('scheduled', 'queued') and next_attempt_at <= $2
                    order by next_attempt_at limit $3 for update skip locked)
     returning id`,
    [KEPT_WITHOUT_SMTP, options.clock.now(), KEEP_BATCH],
  );
  return kept.length;
}

async function sendDueBatch(options: MessageWorkerOptions, transport: MailTransport): Promise<number> {
  const now = options.clock.now();
  const lease = new Date(now.getTime() + options.leaseMs);
  const claimed = await options.query<ClaimedMessage>(
    `with due as (
       select id from booking_message
        where status in ('scheduled', 'queued') and next_attempt_at <= $1
        order by next_attempt_at
        limit $2 for update skip locked
     )
     update booking_message m set status = 'queued', attempts = m.attempts + 1, next_attempt_at = $3
       from due where m.id = due.id and m.status in ('scheduled', 'queued') and m.next_attempt_at <= $1
     returning m.id, m.kind, m.audience, m.recipient, m.time_zone, m.offset_min, m.sequence, m.facts, m.manage_link, m.created_at, m.attempts`,
    [now, MAIL_DELIVERY.batch, lease],
  );
  const outcomes = await Promise.all(claimed.map((message) => attempt(options, transport, message)));
  await recordOutcomes(options, outcomes, lease);
  return claimed.length;
}

/** A message's new state after an attempt, as recordOutcomes writes it. */
interface Outcome {
  id: string;
  status: 'queued' | 'sent' | 'failed' | 'skipped';
  sent_at: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
  /** The SMTP server's reply to a sent message. */
  server_reply: string | null;
}

async function attempt(options: MessageWorkerOptions, transport: MailTransport, message: ClaimedMessage): Promise<Outcome> {
  if (message.kind === 'reminder' && Date.parse(message.facts.startAt) <= options.clock.now().getTime()) {
    return outcomeOf(options, message, { kind: 'permanent', error: SKIPPED.started }, 'skipped');
  }
  let mail: ComposedMail;
  try {
    mail = await options.compose(message);
  } catch (error) {
    // A fault of the service (a sealed link that no longer opens): reported, and the message fails, not loops.
    options.onError(error);
    return outcomeOf(options, message, { kind: 'permanent', error: 'the message could not be composed' });
  }
  return outcomeOf(options, message, await transport.send(mail));
}

function outcomeOf(options: MessageWorkerOptions, message: ClaimedMessage, outcome: SendOutcome, finalStatus: 'failed' | 'skipped' = 'failed'): Outcome {
  const now = options.clock.now();
  if (outcome.kind === 'sent') {
    return { id: message.id, status: 'sent', sent_at: now.toISOString(), next_attempt_at: null, last_error: null, server_reply: outcome.reply };
  }
  const delay = outcome.kind === 'temporary' ? retryDelayMs(options.retry, message.attempts, MAIL_DELIVERY.jitter) : undefined;
  if (delay === undefined) return { id: message.id, status: finalStatus, sent_at: null, next_attempt_at: null, last_error: outcome.error, server_reply: null };
  return { id: message.id, status: 'queued', sent_at: null, next_attempt_at: new Date(now.getTime() + delay).toISOString(), last_error: outcome.error, server_reply: null };
}

/**
 * Writes the outcomes of a batch in one statement once all its messages have gone (one statement and one commit
 * per batch, not per message), each only if the claim still holds the message.
 */
async function recordOutcomes(options: MessageWorkerOptions, outcomes: Outcome[], lease: Date): Promise<void> {
  if (outcomes.length === 0) return;
  await options.query(
    `update booking_message m
        set status = x.status, sent_at = coalesce(x.sent_at, m.sent_at), next_attempt_at = x.next_attempt_at, last_error = x.last_error,
            server_reply = coalesce(x.server_reply, m.server_reply)
       from jsonb_to_recordset($1::jsonb) as x(id text, status text, sent_at timestamptz, next_attempt_at timestamptz, last_error text, server_reply text)
      where m.id = x.id and m.next_attempt_at = $2 and m.status = 'queued'`,
    [JSON.stringify(outcomes), lease],
  );
}
