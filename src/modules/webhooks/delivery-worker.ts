import { WEBHOOK_DELIVERY } from '../../config/timeouts.ts';
import { type AttemptOutcome, sendAttempt } from './delivery-sender.ts';

/** The default delays between attempts: 1 + 7 attempts over about a day and a half. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export interface RetryPolicy {
  delaysMs: number[];
  /** False when WEBHOOK_RETRY_SCHEDULE set the delays: then they are exact. */
  jitter: boolean;
}

/** Runs one statement (`$1` placeholders) on the worker's own small pool, never the one requests use. */
export type Query = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

export interface DeliveryWorkerOptions {
  query: Query;
  retry: RetryPolicy;
  allowPrivateNetworks: boolean;
  onError: (error: unknown) => void;
}

interface ClaimedDelivery {
  id: string;
  attempts: number;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  url: string;
  active: boolean;
  secret: string;
  previous_secret: string | null;
}

/**
 * Delivers due webhook deliveries: every instance polls, and claims a batch with `for update skip locked`
 * while moving its due time a lease ahead, all in one statement. So two instances never send the same
 * delivery at once, and a delivery whose instance died mid-attempt is claimed again when its lease ends
 * (at least once). The attempt itself runs outside any transaction, holding no connection, and the worker
 * has a pool of its own: it can never take a connection a request is waiting for.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): { stop(): Promise<void> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const stopping = new AbortController();
  const loop = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await deliverDueBatch(options, stopping.signal);
      } catch (error) {
        options.onError(error);
      }
      if (claimed < WEBHOOK_DELIVERY.batch && !stopped) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, WEBHOOK_DELIVERY.pollMs).unref();
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      stopping.abort();
      wake?.();
      await loop;
    },
  };
}

async function deliverDueBatch(options: DeliveryWorkerOptions, stop: AbortSignal): Promise<number> {
  const claimed = await options.query<ClaimedDelivery>(
    `with due as (
       select id from webhook_delivery
        where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at
        limit $1 for update skip locked
     ), claimed as (
       update webhook_delivery d
          set attempts = d.attempts + 1, next_attempt_at = now() + $2 * interval '1 millisecond'
         from due where d.id = due.id and d.status = 'pending' and d.next_attempt_at <= now()
       returning d.id, d.attempts, d.endpoint_id, d.event_id
     )
     select c.id, c.attempts, c.endpoint_id, c.event_id, e.type as event_type, e.body,
            w.url, w.active, w.secret,
            case when w.previous_secret_expires_at > now() then w.previous_secret end as previous_secret
       from claimed c join webhook_event e on e.id = c.event_id join webhook_endpoint w on w.id = c.endpoint_id`,
    [WEBHOOK_DELIVERY.batch, WEBHOOK_DELIVERY.leaseMs],
  );
  await Promise.all(claimed.map((delivery) => attemptDelivery(options, delivery, stop)));
  return claimed.length;
}

async function attemptDelivery(options: DeliveryWorkerOptions, delivery: ClaimedDelivery, stop: AbortSignal): Promise<void> {
  // A disabled endpoint receives nothing but the test pings its owner asks for.
  if (!delivery.active && delivery.event_type !== 'ping') {
    await finish(options.query, delivery.id, 'failed', {
      ok: false,
      statusCode: null,
      error: 'the endpoint is disabled',
      responseBody: null,
    });
    return;
  }
  const outcome = await sendAttempt(
    {
      eventId: delivery.event_id,
      body: delivery.body,
      url: delivery.url,
      secrets: delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret],
      allowPrivateNetworks: options.allowPrivateNetworks,
    },
    new Date(),
    stop,
  );
  // Cut short by shutdown: the lease runs out and another instance (or this one, restarted) tries again.
  if (stop.aborted) return;
  const { query } = options;
  if (outcome.ok) {
    await finish(query, delivery.id, 'succeeded', outcome);
    return;
  }
  if (outcome.statusCode === 410) {
    await finish(query, delivery.id, 'failed', outcome);
    await query(
      `update webhook_endpoint set active = false, disabled_reason = 'The endpoint answered 410 Gone on ' || to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        where id = $1 and active`,
      [delivery.endpoint_id],
    );
    return;
  }
  const delay = retryDelayMs(options.retry, delivery.attempts);
  if (delay === undefined) {
    await finish(query, delivery.id, 'failed', outcome);
    return;
  }
  await query(
    `update webhook_delivery set last_status_code = $1, last_error = $2, last_response_body = $3,
            next_attempt_at = now() + $4 * interval '1 millisecond'
      where id = $5 and status = 'pending'`,
    [outcome.statusCode, outcome.error, outcome.responseBody, delay, delivery.id],
  );
}

/** The wait before the next attempt after `attempts` attempts, or undefined when none is left. */
export function retryDelayMs(policy: RetryPolicy, attempts: number): number | undefined {
  const delay = policy.delaysMs[attempts - 1];
  if (delay === undefined) return undefined;
  return policy.jitter ? Math.round(delay * (1 + Math.random() * WEBHOOK_DELIVERY.jitter)) : delay;
}

async function finish(query: Query, id: string, status: 'succeeded' | 'failed', outcome: AttemptOutcome): Promise<void> {
  await query(
    `update webhook_delivery set status = $1, last_status_code = $2, last_error = $3, last_response_body = $4,
            next_attempt_at = null, delivered_at = case when $5 then now() end
      where id = $6 and status = 'pending'`,
    [status, outcome.statusCode, outcome.error, outcome.responseBody, status === 'succeeded', id],
  );
}
