import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { DomainError } from './errors.ts';

/**
 * Keyset-paging cursors, opaque and authenticated: base64url(version ‖ payload ‖ tag), payload the JSON
 * `[sortKey, id]` of a page's last row, tag an HMAC-SHA256 over a binding (list, user, filters) recomputed from the
 * request that brings the cursor back. So a cursor replayed by another user or with other filters fails just as an
 * edited one does; `limit` is not bound, so a client may change it between pages. The secret comes from the caller.
 */

const VERSION = 1;
const TAG_BYTES = 32;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export type CursorFilterValue = string | number | boolean | null | undefined;

export interface CursorBinding {
  /** Which list the cursor pages through, e.g. `bookings`. */
  resource: string;
  /** The caller; a cursor is valid for this user only. */
  userId: string;
  /** The filters of the query, normalised (e.g. instants as ISO strings in UTC); undefined and null mean "not set". */
  filter: Record<string, CursorFilterValue>;
}

/** Where the previous page ended: the last row's sort key (exact, as text) and its id. */
export interface CursorPosition {
  key: string;
  id: string;
}

export const INVALID_CURSOR_MESSAGE =
  'cursor is not valid for this query: pass back the nextCursor of the previous page unchanged, with the same filters and token';

export function invalidCursor(): DomainError {
  return new DomainError('invalid_request', `Invalid request: cursor: ${INVALID_CURSOR_MESSAGE}`, [
    { code: 'invalid_cursor', path: ['cursor'], message: INVALID_CURSOR_MESSAGE },
  ]);
}

/** The canonical bytes of a binding: filters sorted by name, unset ones left out. */
function bindingBytes(binding: CursorBinding): Uint8Array {
  const filter = Object.entries(binding.filter)
    .filter(([, value]) => value !== undefined && value !== null)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return encoder.encode(JSON.stringify([binding.resource, binding.userId, filter]));
}

function tagFor(secret: Uint8Array, binding: CursorBinding, body: Uint8Array): Uint8Array {
  const bound = bindingBytes(binding);
  const message = new Uint8Array(bound.length + 1 + body.length);
  message.set(bound, 0);
  message[bound.length] = 0;
  message.set(body, bound.length + 1);
  // Node's native HMAC: every page of every list signs its next cursor, and a JavaScript SHA-256 costs several
  // times more (docs/performance.md, "Figures behind the code").
  return createHmac('sha256', secret).update(message).digest();
}

export function encodeCursor(secret: Uint8Array, binding: CursorBinding, position: CursorPosition): string {
  const payload = encoder.encode(JSON.stringify([position.key, position.id]));
  const body = new Uint8Array(1 + payload.length);
  body[0] = VERSION;
  body.set(payload, 1);
  const tag = tagFor(secret, binding, body);
  const bytes = new Uint8Array(body.length + tag.length);
  bytes.set(body, 0);
  bytes.set(tag, body.length);
  return encodeBase64urlNoPadding(bytes);
}

/** The position a cursor holds, or a 400 (`invalid_cursor`) when it was edited, forged or issued for another query. */
export function decodeCursor(secret: Uint8Array, binding: CursorBinding, cursor: string): CursorPosition {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64urlIgnorePadding(cursor);
  } catch {
    throw invalidCursor();
  }
  // Only the exact string encodeCursor wrote is accepted: base64 has several spellings of the same bytes.
  if (encodeBase64urlNoPadding(bytes) !== cursor || bytes.length < 1 + TAG_BYTES + 2 || bytes[0] !== VERSION) {
    throw invalidCursor();
  }
  const body = bytes.subarray(0, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  if (!constantTimeEqual(tag, tagFor(secret, binding, body))) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(body.subarray(1)));
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    typeof parsed[1] !== 'string'
  ) {
    throw invalidCursor();
  }
  return { key: parsed[0], id: parsed[1] };
}
