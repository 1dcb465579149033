import type { ErrorDetail } from './errors.ts';

/** How deep a request's JSON (or any decoded input) may nest; real inputs of this API nest fewer than 5 levels. */
export const MAX_INPUT_DEPTH = 400;

/**
 * NUL, which PostgreSQL cannot store in text (the driver's message is then malformed and the server drops the
 * connection), and UTF-16 surrogates that are not part of a pair, which have no UTF-8 form (PostgreSQL rejects
 * them as an invalid byte sequence).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * The first problem a decoded input (query, path, body: any JSON-like value) has that no field schema should have
 * to know about: text PostgreSQL cannot store, in a value or a key, or nesting deeper than MAX_INPUT_DEPTH. The
 * detail has the zod issue shape, with the path to the offending value.
 */
export function findUnsafeInput(value: unknown, path: (string | number)[] = []): ErrorDetail | undefined {
  if (path.length > MAX_INPUT_DEPTH) {
    return { code: 'too_big', path: path.slice(0, 3), message: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
  }
  if (typeof value === 'string') {
    return UNSTORABLE.test(value) ? { code: 'invalid_format', path, message: UNSAFE_TEXT_MESSAGE } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUnsafeInput(item, [...path, index]);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return { code: 'invalid_format', path, message: `field names ${UNSAFE_TEXT_MESSAGE}` };
      const found = findUnsafeInput(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Whether a JSON text nests arrays and objects deeper than `limit`, found by one pass over the text before it
 * is parsed: libraries that walk parsed values recursively (tRPC's request signal serialises the body) overflow
 * the stack at a few thousand levels, which an 8 KB body reaches.
 */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}
