/**
 * The Idempotency-Key header and the scope a request's key lives in: read by the gate every door shares
 * (src/api/call.ts), honoured by the operations that support it (src/modules/bookings/idempotency.ts).
 */
import { invalidField } from './errors.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const MAX_KEY_LENGTH = 255;

/** One request's Idempotency-Key, made by the gate that reads it (src/api/call.ts). */
export interface IdempotencyScope {
  /** Whose key space: `pat:<id>` / `oauth:<id>` / `session:<id>` for a credential, `ip:<addr>` for the public flow. */
  principal: string;
  key: string;
  /** Set when the request was answered with the stored response, so the middleware marks the replay. */
  replayed?: boolean;
}

/** The Idempotency-Key header, if sent: 1–255 visible ASCII characters (400 otherwise). */
export function readIdempotencyKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw : [raw];
  if (value.length !== 1) throw invalidField(['Idempotency-Key'], 'send the header once');
  const key = value[0]!.trim();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw invalidField(['Idempotency-Key'], `must be 1 to ${MAX_KEY_LENGTH} visible ASCII characters, e.g. a UUID`);
  }
  return key;
}
