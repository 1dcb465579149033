/**
 * Sends the account's e-mail (account-mail.ts) as the booking e-mail worker sends bookings' (message-worker.ts):
 * every instance polls and claims due messages with `for update skip locked` under a lease, each outcome recorded
 * only while the claim holds; temporary failures are retried on the same schedule. A reset link is useless once
 * used or expired, so such a message is skipped rather than sent, and the sealed link is dropped as soon as the
 * message is sent or has failed for good. Without an SMTP server each due message is kept, link and all, and
 * `onKept` is told (the app logs where to read it; never the address or the link).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Env } from '../../config/env.ts';
import { MAIL_DELIVERY } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { startPollingWorker, type WorkerQuery } from '../../lib/polling-worker.ts';
import { type RetryPolicy, retryDelayMs } from '../../lib/retry-policy.ts';
import { mailRetryPolicy } from '../booking-messages/booking-messages.worker.ts';
import { type ComposedMail, mailSettingsOf } from '../booking-messages/compose.ts';
import type { MailTransport, SendOutcome } from '../booking-messages/mail-transport.ts';
import { KEPT_WITHOUT_SMTP } from '../booking-messages/message-worker.ts';
import { type AccountMessageKind, composeAccountMessage, openResetLink, type StoredAccountMessage } from './account-mail.ts';

/** Why a reset mail whose link no longer works is not sent. */
export const LINK_GONE = 'not sent: its link was used or had expired before it could go out';

export interface ClaimedAccountMessage extends StoredAccountMessage {
  sealed_link: string | null;
  attempts: number;
}

export interface AccountMailWorkerOptions {
  query: WorkerQuery;
  clock: Clock;
  leaseMs: number;
  retry: RetryPolicy;
  /** Undefined without SMTP_URL: messages are kept, not sent. */
  transport: MailTransport | undefined;
  /** The message's mail, or undefined when its link no longer works. */
  compose: (message: ClaimedAccountMessage) => Promise<ComposedMail | undefined>;
  onKept: (kept: { id: string; kind: AccountMessageKind }[]) => void;
  onError: (error: unknown) => void;
}

export function startAccountMailWorker(options: AccountMailWorkerOptions): { stop(): Promise<void> } {
  const transport = options.transport;
  return startPollingWorker({
    runBatch: () => (transport ? sendDueBatch(options, transport) : keepDueBatch(options)),
    batch: MAIL_DELIVERY.batch,
    pollMs: MAIL_DELIVERY.pollMs,
    onError: options.onError,
  });
}

async function keepDueBatch(options: AccountMailWorkerOptions): Promise<number> {
  const kept = await options.query<{ id: string; kind: AccountMessageKind }>(
    `update account_message set status = 'skipped', next_attempt_at = null, last_error = $1
      where id in (select id from account_message where status = 'queued' and next_attempt_at <= $2
                    order by next_attempt_at limit $3 for update skip locked)
     returning id, kind`,
    [KEPT_WITHOUT_SMTP, options.clock.now(), MAIL_DELIVERY.batch],
  );
  if (kept.length > 0) options.onKept(kept);
  return kept.length;
}

async function sendDueBatch(options: AccountMailWorkerOptions, transport: MailTransport): Promise<number> {
  const now = options.clock.now();
  const lease = new Date(now.getTime() + options.leaseMs);
  const claimed = await options.query<ClaimedAccountMessage>(
    `with due as (
       select id from account_message
        where status = 'queued' and next_attempt_at <= $1
        order by next_attempt_at
        limit $2 for update skip locked
     )
     update account_message m set attempts = m.attempts + 1, next_attempt_at = $3
       from due where m.id = due.id and m.status = 'queued' and m.next_attempt_at <= $1
     returning m.id, m.kind, m.recipient, m.facts, m.sealed_link, m.created_at, m.attempts`,
    [now, MAIL_DELIVERY.batch, lease],
  );
  await Promise.all(claimed.map((message) => attempt(options, transport, message, lease)));
  return claimed.length;
}

async function attempt(options: AccountMailWorkerOptions, transport: MailTransport, message: ClaimedAccountMessage, lease: Date): Promise<void> {
  let mail: ComposedMail | undefined;
  try {
    mail = await options.compose(message);
  } catch (error) {
    options.onError(error);
    await record(options, message, lease, { kind: 'permanent', error: 'the message could not be composed' });
    return;
  }
  if (!mail) {
    await record(options, message, lease, { kind: 'permanent', error: LINK_GONE }, 'skipped');
    return;
  }
  await record(options, message, lease, await transport.send(mail));
}

/** Writes an attempt's outcome, if the claim still holds the message; a message done with drops its sealed link. */
async function record(options: AccountMailWorkerOptions, message: ClaimedAccountMessage, lease: Date, outcome: SendOutcome, finalStatus: 'failed' | 'skipped' = 'failed'): Promise<void> {
  const now = options.clock.now();
  const held = `and next_attempt_at = $3 and status = 'queued'`;
  if (outcome.kind === 'sent') {
    await options.query(
      `update account_message set status = 'sent', sent_at = $1, next_attempt_at = null, last_error = null, server_reply = $4, sealed_link = null
        where id = $2 ${held}`,
      [now, message.id, lease, outcome.reply],
    );
    return;
  }
  const delay = outcome.kind === 'temporary' ? retryDelayMs(options.retry, message.attempts, MAIL_DELIVERY.jitter) : undefined;
  if (delay === undefined) {
    await options.query(
      `update account_message set status = $1, next_attempt_at = null, last_error = $4, sealed_link = null where id = $2 ${held}`,
      [finalStatus, message.id, lease, outcome.error],
    );
  } else {
    await options.query(`update account_message set next_attempt_at = $1, last_error = $4 where id = $2 ${held}`, [new Date(now.getTime() + delay), message.id, lease, outcome.error]);
  }
}

/** The account mail worker as the app starts it: SMTP_URL's transport (the caller owns it), MAIL_FROM, the retry schedule. */
export function startAccountMail(options: {
  env: Env;
  query: WorkerQuery;
  clock: Clock;
  transport: MailTransport | undefined;
  /** An EntityManager to open the sealed links with. */
  openSecrets: () => EntityManager;
  onKept: AccountMailWorkerOptions['onKept'];
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  const { env, clock } = options;
  const settings = mailSettingsOf(env);
  return startAccountMailWorker({
    query: options.query,
    clock,
    leaseMs: env.MAIL_LEASE_MS,
    retry: mailRetryPolicy(env),
    transport: options.transport,
    compose: async (message) => {
      const url = await openResetLink(options.openSecrets(), message.sealed_link, message.facts.expiresAt, settings.siteUrl, clock.now());
      return url ? composeAccountMessage(message, settings, url) : undefined;
    },
    onKept: options.onKept,
    onError: options.onError,
  });
}
