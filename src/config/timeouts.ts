/**
 * Every timeout of the service, in one place; docs/operations.md's "Timeouts" table explains each. They nest: the database
 * limits end a request's work (rolling its transaction back) well before the request's own deadline, so a request
 * ends with a clean answer and never with a commit that nobody is waiting for any more.
 */

export const HTTP_TIMEOUTS = {
  /** Request headers must have arrived within this (Node's headersTimeout). */
  headersMs: 10_000,
  /** The whole request, body included, must have arrived within this (requestTimeout): drops slow-body clients. */
  requestMs: 30_000,
  /** How often Node enforces the two limits above; its default, 30 s, would let a slow client stay that much longer. */
  checkIntervalMs: 1_000,
  /** A request not answered this long after its body was read gets a 503 with Retry-After (src/http/request-deadline.ts). */
  handlerMs: 15_000,
  /** An idle keep-alive socket is closed after this: longer than the 60 s idle timeout of common load balancers. */
  keepAliveMs: 65_000,
  /** A socket on which nothing moves for this long is destroyed (Fastify's connectionTimeout). */
  socketIdleMs: 75_000,
} as const;

export const DATABASE_TIMEOUTS = {
  /** Waiting for a pooled connection, or opening one, longer than this is a 503 (pg connectionTimeoutMillis). */
  acquireMs: 3_000,
  /** The server cancels a statement that runs longer (statement_timeout): a 503. */
  statementMs: 5_000,
  /**
   * The client gives up on a query the server has not answered by then (pg query_timeout) and destroys the
   * connection: a frozen server cannot enforce statement_timeout. A 503.
   */
  queryMs: 6_000,
  /** Waiting for a row or advisory lock longer than this fails (lock_timeout; bookings set their own, below). */
  lockMs: 3_000,
  /** The server ends a transaction left idle this long, so a stuck request cannot hold locks for good. */
  idleInTransactionMs: 10_000,
  /** An idle pooled connection is closed after this. */
  poolIdleMs: 30_000,
} as const;

/**
 * The rate-limit counters' own small pool, when they live in PostgreSQL (REDIS_URL unset). A counter is not worth
 * a long wait: past these the request is counted in process memory instead (fail open, as with Redis), well
 * before the request's own work would meet the limits above.
 */
export const POSTGRES_COUNTER_TIMEOUTS = {
  /** Waiting for a pooled connection, or opening one (pg connectionTimeoutMillis). */
  acquireMs: 1_000,
  /** The server cancels the counter's upsert, a wait for its row included (statement_timeout). */
  statementMs: 500,
  /** The client gives up on a server that does not answer, and the connection is ended (pg query_timeout). */
  queryMs: 1_000,
} as const;

export const BOOKING_CONTENTION = {
  /**
   * A booking waits at most this long for its hosts' calendars (its turn in memory, then SET LOCAL lock_timeout);
   * then 409. BOOKING_WAIT_MS tunes it (validated at boot with the rest of the environment, src/config/env.ts).
   */
  hostLockMs: Number(process.env.BOOKING_WAIT_MS ?? 2_000),
  /** Attempts of a booking transaction that ends in a deadlock or a serialization failure; then 409. */
  attempts: 3,
  /** Random pause before a retry, so the transactions that collided do not collide again in step. */
  retryJitterMs: { min: 5, max: 40 },
} as const;

export type HttpTimeouts = { [Name in keyof typeof HTTP_TIMEOUTS]: number };

/** Fastify's and Node's server options for the HTTP limits (the handler's is src/http/request-deadline.ts). */
export function httpServerTimeouts(limits: HttpTimeouts) {
  return {
    connectionTimeout: limits.socketIdleMs,
    keepAliveTimeout: limits.keepAliveMs,
    requestTimeout: limits.requestMs,
    http: {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
  };
}

export const WEBHOOK_DELIVERY = {
  /** A receiver must answer (status line and the first KB of the body) within this, or the attempt failed. */
  requestMs: 10_000,
  /** How often each instance looks for due deliveries. */
  pollMs: 500,
  /** Deliveries claimed, and sent concurrently, per poll. */
  batch: 10,
  /** Up to this fraction is added at random to each default retry delay, so failing receivers are not hit in waves. */
  jitter: 0.2,
} as const;

export const CALENDAR_FETCH = {
  /** A calendar server must have sent its whole answer (redirects included) within this, or the sync failed. */
  requestMs: 10_000,
  /** A feed larger than this is refused unread. */
  maxBytes: 10 * 1024 * 1024,
  /** Redirects followed, each to an address checked again. */
  maxRedirects: 3,
  /** How often each instance looks for connections due a sync. */
  pollMs: 500,
  /** Syncs in flight per instance, each on its own: a hung server holds one place (for requestMs at most). */
  concurrent: 10,
  /** How long a claimed sync keeps other instances off its connection: longer than a fetch and its expansion take. */
  leaseMs: 60_000,
  /** The longest a booking waits for a stale host calendar's refresh before deciding on the stored busy times. */
  bookingRefreshMs: 2_000,
} as const;

export const PENDING_EXPIRY = {
  /** How often each instance declines the pending bookings whose start has passed unconfirmed. */
  pollMs: 1_000,
  /** Bookings declined per transaction (claimed with `for update skip locked`, so instances share the work). */
  batch: 50,
} as const;

export const MAIL_DELIVERY = {
  /** How often each instance looks for due messages. */
  pollMs: 500,
  /** Messages claimed, and sent concurrently (over the pooled connections below), per poll. */
  batch: 20,
  /** SMTP connections each instance keeps open to the server at most. */
  connections: 5,
  /** The SMTP server must accept the connection, greet, and answer each command within these. */
  connectMs: 10_000,
  greetingMs: 10_000,
  socketMs: 30_000,
  /** Up to this fraction is added at random to each default retry delay. */
  jitter: 0.2,
} as const;

/** Bookings written back to their hosts' CalDAV calendars (each request also within CALENDAR_FETCH.requestMs). */
export const CALENDAR_WRITE = {
  /** How often each instance looks for due writes. */
  pollMs: 500,
  /** Writes claimed, and sent concurrently, per poll. */
  batch: 5,
  /** How long a claimed write keeps other instances off it: longer than its one request can take. */
  leaseMs: 60_000,
  /** The waits between attempts (about 9 hours in all); after the last failure the event is `failed`. */
  retryDelaysMs: [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000],
} as const;
