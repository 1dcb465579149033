import type { WorkerQuery } from '../../lib/polling-worker.ts';
import type { AttemptOutcome } from './delivery-sender.ts';

export type Query = WorkerQuery;

/** Why a delivery ended without (another) attempt: its endpoint is turned off, by its owner or the service. */
export const ENDPOINT_DISABLED_ERROR = 'the endpoint is disabled';

/** An endpoint whose deliveries have all failed for this long is disabled (Svix's rule). */
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** Ends a pending delivery; `now` is the app clock's, as every other time the webhooks store. */
export async function finish(query: Query, id: string, status: 'succeeded' | 'failed', outcome: AttemptOutcome, now: Date): Promise<void> {
  await query(
    `update webhook_delivery set status = $1, last_status_code = $2, last_error = $3, last_response_body = $4,
            next_attempt_at = null, delivered_at = $5
      where id = $6 and status = 'pending'`,
    [status, outcome.statusCode, outcome.error, outcome.responseBody, status === 'succeeded' ? now : null, id],
  );
}

/** Records a failed attempt and when the delivery is due again. */
export async function scheduleRetry(query: Query, id: string, outcome: AttemptOutcome, nextAttemptAt: Date): Promise<void> {
  await query(
    `update webhook_delivery set last_status_code = $1, last_error = $2, last_response_body = $3, next_attempt_at = $4
      where id = $5 and status = 'pending'`,
    [outcome.statusCode, outcome.error, outcome.responseBody, nextAttemptAt, id],
  );
}

/** A success ends the endpoint's failing streak. */
export async function recordSuccess(query: Query, endpointId: string): Promise<void> {
  await query('update webhook_endpoint set failing_since = null where id = $1 and failing_since is not null', [endpointId]);
}

/**
 * A failed attempt starts or extends the endpoint's failing streak. A 410 Gone disables the endpoint at once;
 * a streak of 5 days without a success disables it too. Both say why in `disabled_reason`.
 */
export async function recordFailure(query: Query, endpointId: string, outcome: AttemptOutcome, now: Date): Promise<void> {
  const [endpoint] = await query<{ failing_since: Date }>(
    'update webhook_endpoint set failing_since = coalesce(failing_since, $1) where id = $2 returning failing_since',
    [now, endpointId],
  );
  if (!endpoint) return;
  if (outcome.statusCode === 410) {
    await disable(query, endpointId, `The endpoint answered 410 Gone on ${now.toISOString()}`);
  } else if (now.getTime() - endpoint.failing_since.getTime() >= FAILING_ENDPOINT_DISABLED_AFTER_MS) {
    await disable(query, endpointId, `Every delivery failed from ${endpoint.failing_since.toISOString()} to ${now.toISOString()} (5 days)`);
  }
}

/** Turns the endpoint off; its pending deliveries end `failed` with it. */
async function disable(query: Query, endpointId: string, reason: string): Promise<void> {
  await query(
    `with disabled as (
       update webhook_endpoint set active = false, disabled_reason = $1 where id = $2 and active returning id
     )
     update webhook_delivery set status = 'failed', next_attempt_at = null, last_error = $3
      where endpoint_id in (select id from disabled) and status = 'pending'`,
    [reason, endpointId, ENDPOINT_DISABLED_ERROR],
  );
}
