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
 * PostgreSQL SQLSTATEs that mean "the database cannot serve you right now", not "your request is wrong":
 * class 08 (connection exception), 57P (operator intervention: shutdown, cannot connect now), class 53
 * (insufficient resources: too many connections, disk full, out of memory), 3D000 (the database does
 * not exist, e.g. while it is being renamed or restored), and the database's timeouts (src/config/timeouts.ts):
 * 57014 (statement_timeout), 55P03 (lock_timeout) and 25P03 (idle_in_transaction_session_timeout).
 * Except 08P01, protocol violation: MikroORM inlines parameters into the SQL text, which the protocol sends
 * NUL-terminated, so a NUL in a value ends the query early; the server cannot read the rest of the message,
 * answers 08P01 and closes that one connection. The request was at fault, not the database. Class 22 (data
 * exception) is never an outage either.
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
