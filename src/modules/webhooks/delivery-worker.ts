import { WEBHOOK_DELIVERY } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { startPollingWorker } from '../../lib/polling-worker.ts';
import { type RetryPolicy, retryDelayMs } from '../../lib/retry-policy.ts';
import { MAX_REQUEST_BODY_BYTES, sendAttempt } from './delivery-sender.ts';
import { ENDPOINT_DISABLED_ERROR, finish, type Query, recordFailure, recordSuccess, scheduleRetry } from './delivery-outcome.ts';

/** The default delays between attempts: 1 + 7 attempts over about a day and a half. */
export const DEFAULT_RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export interface DeliveryWorkerOptions {
  query: Query;
  retry: RetryPolicy;
  allowPrivateNetworks: boolean;
  /** The app's clock: due times, the lease, `deliveredAt` and the 5-day rule all read it, as `createdAt` does. */
  clock: Clock;
  /** How long a claim keeps other instances off a delivery (WEBHOOK_LEASE_MS; longer than an attempt can take). */
  leaseMs: number;
  /** The signing secret a sealed `webhook_endpoint.secret` holds (src/lib/sealed-secrets.ts). */
  openSecret: (sealed: string) => Promise<string>;
  onError: (error: unknown) => void;
}

interface ClaimedDelivery {
  id: string;
  attempts: number;
  endpoint_id: string;
  event_id: string;
  body: string;
  url: string;
  active: boolean;
  /** Sealed, as both are stored. */
  secret: string;
  previous_secret: string | null;
  /** Whether the endpoint has a failing streak that a success must end. */
  failing: boolean;
}

/**
 * Delivers due webhook deliveries: every instance polls, and claims a batch with `for update skip locked`
 * while moving its due time a lease ahead, all in one statement. So two instances never send the same
 * delivery at once, and a delivery whose instance died mid-attempt is claimed again when its lease ends
 * (at least once). The attempt itself runs outside any transaction, holding no connection, and the worker
 * has a pool of its own: it can never take a connection a request is waiting for.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): { stop(): Promise<void> } {
  return startPollingWorker({
    runBatch: (signal) => deliverDueBatch(options, signal),
    batch: WEBHOOK_DELIVERY.batch,
    pollMs: WEBHOOK_DELIVERY.pollMs,
    onError: options.onError,
  });
}

async function deliverDueBatch(options: DeliveryWorkerOptions, stop: AbortSignal): Promise<number> {
  const now = options.clock.now();
  const claimed = await options.query<ClaimedDelivery>(
    `with due as (
       select id from webhook_delivery
        where status = 'pending' and next_attempt_at <= $1
        order by next_attempt_at
        limit $2 for update skip locked
     ), claimed as (
       update webhook_delivery d
          set attempts = d.attempts + 1, next_attempt_at = $3
         from due where d.id = due.id and d.status = 'pending' and d.next_attempt_at <= $1
       returning d.id, d.attempts, d.endpoint_id, d.event_id
     )
     select c.id, c.attempts, c.endpoint_id, c.event_id, e.body,
            w.url, w.active, w.secret, w.failing_since is not null as failing,
            case when w.previous_secret_expires_at > $1 then w.previous_secret end as previous_secret
       from claimed c join webhook_event e on e.id = c.event_id join webhook_endpoint w on w.id = c.endpoint_id`,
    [now, WEBHOOK_DELIVERY.batch, new Date(now.getTime() + options.leaseMs)],
  );
  await Promise.all(claimed.map((delivery) => attemptDelivery(options, delivery, stop)));
  return claimed.length;
}

/** Why a delivery is ended without contacting the receiver, or undefined when it may be sent. */
function refusal(delivery: ClaimedDelivery): string | undefined {
  // Deactivation fails the pending deliveries, but one may have been queued in a transaction that read the endpoint
  // as active an instant before.
  if (!delivery.active) return ENDPOINT_DISABLED_ERROR;
  const size = Buffer.byteLength(delivery.body);
  if (size > MAX_REQUEST_BODY_BYTES) {
    return `the event's body is ${size} bytes, over the limit of ${MAX_REQUEST_BODY_BYTES} (256 KB); it is never sent`;
  }
  return undefined;
}

async function attemptDelivery(options: DeliveryWorkerOptions, delivery: ClaimedDelivery, stop: AbortSignal): Promise<void> {
  const { query, clock } = options;
  const refused = refusal(delivery);
  if (refused) {
    await finish(query, delivery.id, 'failed', { ok: false, statusCode: null, error: refused, responseBody: null }, clock.now());
    return;
  }
  let secrets: string[];
  try {
    const sealed = delivery.previous_secret ? [delivery.secret, delivery.previous_secret] : [delivery.secret];
    secrets = await Promise.all(sealed.map(options.openSecret));
  } catch (error) {
    // A fault of the service, not of the receiver: the delivery is tried again when its lease ends.
    options.onError(error);
    return;
  }
  const outcome = await sendAttempt(
    {
      eventId: delivery.event_id,
      body: delivery.body,
      url: delivery.url,
      secrets,
      allowPrivateNetworks: options.allowPrivateNetworks,
    },
    new Date(),
    stop,
  );
  // Cut short by shutdown: the lease runs out and another instance (or this one, restarted) tries again.
  if (stop.aborted) return;
  const now = clock.now();
  if (outcome.ok) {
    await finish(query, delivery.id, 'succeeded', outcome, now);
    if (delivery.failing) await recordSuccess(query, delivery.endpoint_id);
    return;
  }
  const delay = outcome.statusCode === 410 ? undefined : retryDelayMs(options.retry, delivery.attempts, WEBHOOK_DELIVERY.jitter);
  if (delay === undefined) await finish(query, delivery.id, 'failed', outcome, now);
  else await scheduleRetry(query, delivery.id, outcome, new Date(now.getTime() + delay));
  await recordFailure(query, delivery.endpoint_id, outcome, now);
}
