/**
 * Idempotency-Key for POST requests: (principal, key) -> the stored response of the first request. The claim is
 * the first statement of the operation's transaction and the response is stored in it, so two requests with one
 * key never both perform the operation (the second waits on the primary key, then replays or goes ahead), and a
 * stored response always describes committed work. Failures roll back and are not stored, so a retry really
 * retries. Bodies are compared by the SHA-256 of their canonical JSON; another body with the same key is a 422.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import type { IdempotencyScope } from '../../lib/idempotency-key.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** JSON with object keys sorted at every level, so equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * Claims the key inside the caller's transaction. Returns the stored response to replay when the key was
 * already used with the same body; undefined when this request owns the key and must perform the work
 * (then call `storeIdempotentResponse` in the same transaction). 422 when the key was used with another body.
 */
export async function claimIdempotencyKey(
  tx: EntityManager,
  scope: IdempotencyScope,
  hash: string,
): Promise<StoredResponse | undefined> {
  await forgetExpiredKeys(tx, scope);
  const claimed = await executePrepared(
    tx,
    'idempotency.claim',
    `insert into idempotency_key (principal, key, request_hash, response_status, response_body)
     values (?, ?, ?, 0, 'null'::jsonb)
     on conflict (principal, key) do nothing
     returning 1`,
    [scope.principal, scope.key, hash],
  );
  if (claimed.length === 1) return undefined;
  const [stored] = await executePrepared<{ request_hash: string; response_status: number; response_body: unknown }>(
    tx,
    'idempotency.stored',
    'select request_hash, response_status, response_body from idempotency_key where principal = ? and key = ?',
    [scope.principal, scope.key],
  );
  if (!stored) {
    // Deleted between our insert and this read (a cleanup job): ask the client to retry.
    throw new DomainError('conflict', 'A request with this Idempotency-Key is being processed; retry shortly.');
  }
  if (stored.request_hash !== hash) {
    throw new DomainError(
      'unprocessable',
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    );
  }
  if (stored.response_status === 0) {
    throw new DomainError('conflict', 'A request with this Idempotency-Key is being processed; retry shortly.');
  }
  scope.replayed = true;
  return { status: stored.response_status, body: stored.response_body };
}

/** How long a key's response is kept for replay (as Stripe does); after that the key may be used afresh. */
const KEY_LIFETIME = "interval '24 hours'";
/** Old keys removed per claim: enough to keep the table bounded without a separate job. */
const PRUNE_BATCH = 50;

async function forgetExpiredKeys(tx: EntityManager, scope: IdempotencyScope): Promise<void> {
  await executePrepared(
    tx,
    'idempotency.forget-expired',
    `with own as (
       delete from idempotency_key where principal = ? and key = ? and created_at < now() - ${KEY_LIFETIME}
     )
     delete from idempotency_key where ctid in (
       select ctid from idempotency_key where created_at < now() - ${KEY_LIFETIME}
        limit ${PRUNE_BATCH} for update skip locked)`,
    [scope.principal, scope.key],
  );
}

export async function storeIdempotentResponse(
  tx: EntityManager,
  scope: IdempotencyScope,
  response: StoredResponse,
): Promise<void> {
  await executePrepared(
    tx,
    'idempotency.store',
    'update idempotency_key set response_status = ?, response_body = ?::jsonb where principal = ? and key = ?',
    [response.status, JSON.stringify(response.body), scope.principal, scope.key],
  );
}
