const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
// PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, cannot connect now).
const UNAVAILABLE_SQLSTATE = /^(08|57P)/;
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is closed',
];

/** True when an error means a backing service (PostgreSQL, Redis) cannot be reached, not that the request is wrong. */
export function isUnavailableError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    if (typeof current !== 'object') return false;
    const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string') {
      if (CONNECTION_ERROR_CODES.has(candidate.code) || UNAVAILABLE_SQLSTATE.test(candidate.code)) return true;
    }
    if (typeof candidate.message === 'string' && UNAVAILABLE_MESSAGES.some((m) => String(candidate.message).includes(m))) {
      return true;
    }
    current = candidate.cause;
  }
  return false;
}
