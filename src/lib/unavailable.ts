const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  // The request's own deadline passed (src/http/request-deadline.ts): the service could not answer in time.
  'REQUEST_DEADLINE_EXCEEDED',
]);
/**
 * PostgreSQL SQLSTATEs that mean "the database cannot serve you right now", not "your request is wrong": classes
 * 08, 57P and 53, a missing database (3D000) and the database's own timeouts (57014, 55P03, 25P03). Not 08P01:
 * MikroORM inlines values into the SQL text, so a NUL in a value ends the message early and the server answers
 * 08P01 for that one connection; the request was at fault. Class 22 (data exception) is never an outage either.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)|57P|53)|^(3D000|57014|55P03|25P03)$/;
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  // pg's query_timeout: the server did not answer (frozen); the connection is destroyed (src/db/connection-guard.ts).
  'Query read timeout',
  'Client has encountered a connection error',
  'Connection is closed',
  // SQLSTATE 55000 is generic ("object not in prerequisite state"); only this message of it means unavailable:
  // the database refuses connections (ALTER DATABASE … ALLOW_CONNECTIONS false, maintenance).
  'is not currently accepting connections',
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
