import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { AppServices } from './api/context.ts';
import { REST_BASE_PATH } from './router/openapi.ts';
import { applyOutputChecks } from './api/output-checks.ts';
import { appRouter } from './router/root.ts';
import { bearerResolversFor } from './bearer-resolvers.ts';
import { type CounterStore, createFailureThrottle, createRateLimiter, REDIS_COUNTER_TIMEOUT_MS } from './lib/rate-limit.ts';
import { type Env, parseDurations, trustProxySetting } from './config/env.ts';
import { DATABASE_TIMEOUTS, HTTP_TIMEOUTS, type HttpTimeouts, httpServerTimeouts, POSTGRES_COUNTER_TIMEOUTS } from './config/timeouts.ts';
import { DeadlineClient, releaseConnectionsThatEnd } from './db/connection-guard.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { openSecret } from './lib/sealed-secrets.ts';
import { PrincipalCache } from './identity/principal-cache.ts';
import { listenForPrincipalChanges } from './identity/principal-invalidation.ts';
import { initOrm } from './db/orm.ts';
import { startBookingEventWorker } from './modules/calendars/booking-event-worker.ts';
import { calendarSyncSettings, startCalendarSyncWorker } from './modules/calendars/calendar-sync.ts';
import { DEFAULT_RETRY_DELAYS_MS, startDeliveryWorker } from './modules/webhooks/delivery-worker.ts';
import { type RetryPolicy, retryPolicyOf } from './lib/retry-policy.ts';
import { mailTransportOf, startBookingMessages } from './modules/booking-messages/booking-messages.worker.ts';
import { startAccountMail } from './modules/account/account-mail.worker.ts';
import { findPasswordReset, requestPasswordReset, resetPassword } from './modules/account/password-reset.service.ts';
import { startPendingExpiryWorker } from './modules/bookings/booking-confirmation.service.ts';
import { declineUnconfirmedSeries } from './modules/booking-series/booking-series.service.ts';
import { registerRest } from './http/rest/rest-mount.ts';
import { registerTrpc, TRPC_BASE_PATH } from './http/trpc/trpc-mount.ts';
import { registerDocs } from './http/docs.ts';
import { registerDraining } from './http/draining.ts';
import { answerClientError, answerFrameworkError, registerErrorResponses } from './http/error-responses.ts';
import { registerHealth } from './http/health.ts';
import { registerJsonBodyParser, registerTextGuard } from './http/input-guard.ts';
import { requestLogSerializer, type SecretPrefixes } from './http/request-log.ts';
import { registerRequestDeadline, requestDeadline } from './http/request-deadline.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { registerLandingPage } from './http/landing-page.ts';
import { registerWebApp } from './http/web-app.ts';
import { MCP_PATH, registerMcp } from './mcp/server.ts';
import { managedBookingCalendar } from './modules/public-booking/managed-booking.service.ts';
import { API_REFERENCE_CLIENT_ID, API_REFERENCE_REDIRECT_PATH, ensureApiReferenceClient } from './oauth/api-reference-client.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { registerSignup } from './oauth/signup.ts';
import { registerPasswordReset } from './oauth/password-reset.ts';
import { createUser, currentSlugAfter } from './modules/users/users.service.ts';
import { PAT_PREFIX } from './identity/personal-access-tokens.ts';
import { PASSWORD_RESET_PREFIX } from './identity/password-reset-links.ts';
import { CSRF_PREFIX, DEVICE_PREFIX, SESSION_PREFIX } from './identity/sessions.ts';
import { MANAGE_TOKEN_PREFIX } from './modules/public-booking/managed-booking.service.ts';
import { HOLD_TOKEN_PREFIX } from './modules/public-booking/public-holds.service.ts';
import { WEBHOOK_SECRET_PREFIX } from './modules/webhooks/webhooks.service.ts';
import { CLIENT_SECRET_PREFIX } from './oauth/clients.ts';
import { ACCESS_TOKEN_PREFIX, AUTHORIZATION_CODE_PREFIX, REFRESH_TOKEN_PREFIX } from './oauth/tokens.ts';

/** Every kind of secret the service mints, by type prefix: the request log redacts their shape wherever it appears in a URL. */
export const SECRET_PREFIXES: SecretPrefixes = {
  base32: [
    PAT_PREFIX,
    ACCESS_TOKEN_PREFIX,
    REFRESH_TOKEN_PREFIX,
    AUTHORIZATION_CODE_PREFIX,
    CLIENT_SECRET_PREFIX,
    SESSION_PREFIX,
    CSRF_PREFIX,
    DEVICE_PREFIX,
    MANAGE_TOKEN_PREFIX,
    HOLD_TOKEN_PREFIX,
    PASSWORD_RESET_PREFIX,
  ],
  base64: [WEBHOOK_SECRET_PREFIX],
};

/** Sign-up attempts a client address may make per hour (a bot filling the form must not fill the database). */
const SIGNUPS_PER_HOUR = 20;
/** Password reset links a client address may ask for per hour (each account also gets at most 3 mails an hour). */
const PASSWORD_RESETS_PER_HOUR = 20;

/** Failed authentications a client address may make per minute before it gets 429s. */
const FAILED_AUTHENTICATIONS_PER_MINUTE = 30;
/** The principal cache's bounds: entries (tokens in use at once) and the backstop lifetime of each. */
const PRINCIPAL_CACHE_ENTRIES = 10_000;
const PRINCIPAL_CACHE_TTL_MS = 30_000;

export interface AppOptions {
  env: Env;
  orm: MikroORM;
  /** The database URL, for the rate-limit counters' own small pool. */
  databaseUrl: string;
  clock?: Clock;
  /** Requests per minute per token; the spec's 600 unless a test lowers it. */
  apiRateLimitPerMinute?: number;
  /** Requests per minute per client address on the public, unauthenticated procedures. */
  publicRateLimitPerMinute?: number;
  /** Dynamic client registrations per hour per client address (RFC 7591 §3.1 allows limiting them). */
  oauthRegistrationRateLimitPerHour?: number;
  logger?: boolean;
  /** Where the log goes instead of stdout (tests read it); implies logging at env.LOG_LEVEL. */
  logStream?: NodeJS.WritableStream;
  /** The built first-party web app (default dist/web, written by `npm run build:web`). */
  webRoot?: string;
  /** Shorter HTTP limits than src/config/timeouts.ts's, for tests that wait for one to pass. */
  httpTimeouts?: Partial<HttpTimeouts>;
  /**
   * How long a Redis counter command may take before the request counts in memory instead (default
   * REDIS_COUNTER_TIMEOUT_MS, not counting event-loop lag); a test that asserts the shared count on a loaded machine allows more.
   */
  redisCommandTimeoutMs?: number;
}

export interface App {
  fastify: FastifyInstance;
  services: AppServices;
  /** The lame-duck period before close(): /readyz fails at once, requests are still served, each closing its connection. */
  beginStop(): void;
  close(): Promise<void>;
}

/** Builds the whole service without listening; main.ts listens, tests use supertest on it. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { env, orm } = options;
  const timeouts: HttpTimeouts = { ...HTTP_TIMEOUTS, ...options.httpTimeouts };
  const fastify = Fastify({
    return503OnClosing: false, // registerDraining answers instead, in the API's error shape
    logger:
      options.logger === false && !options.logStream
        ? false
        : {
            level: env.LOG_LEVEL,
            redact: ['req.headers.authorization', 'req.headers.cookie'],
            serializers: { req: requestLogSerializer(SECRET_PREFIXES) },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    bodyLimit: 100 * 1024,
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    routerOptions: { maxParamLength: 5000 },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    ...httpServerTimeouts(timeouts),
  });
  const counterStore = createCounterStore(env, options.databaseUrl, options.redisCommandTimeoutMs ?? REDIS_COUNTER_TIMEOUT_MS);
  const log = fastify.log;
  let lastStoreWarning = 0;
  const onStoreError = (error: unknown) => {
    // One warning a minute is enough to page someone; one per request would flood the log.
    if (Date.now() - lastStoreWarning > 60_000) {
      lastStoreWarning = Date.now();
      log.warn({ err: error }, 'rate-limit counter store unreachable; counting in process memory');
    }
  };
  let lastListenerWarning = 0;
  const principals = createPrincipalCache(options.databaseUrl, (error) => {
    if (Date.now() - lastListenerWarning > 60_000) {
      lastListenerWarning = Date.now();
      log.warn({ err: error }, 'principal invalidation listener lost its connection; tokens are looked up on every request until it is back');
    }
  });
  const services: AppServices = {
    env,
    clock: options.clock ?? systemClock,
    apiRateLimiter: createRateLimiter({
      keyPrefix: 'api',
      points: options.apiRateLimitPerMinute ?? 600,
      durationSec: 60,
      store: counterStore.store,
      onStoreError,
    }),
    publicRateLimiter: createRateLimiter({
      keyPrefix: 'public',
      points: options.publicRateLimitPerMinute ?? 120,
      durationSec: 60,
      store: counterStore.store,
      onStoreError,
    }),
    oauthRegistrationRateLimiter: createRateLimiter({
      keyPrefix: 'oauth_register',
      points: options.oauthRegistrationRateLimitPerHour ?? 20,
      durationSec: 3600,
      store: counterStore.store,
      onStoreError,
    }),
    failedAuthThrottle: createFailureThrottle(
      createRateLimiter({ keyPrefix: 'auth_failure', points: FAILED_AUTHENTICATIONS_PER_MINUTE, durationSec: 60, store: counterStore.store, onStoreError }),
    ),
    log,
    bearerResolvers: bearerResolversFor('/api/v2'),
    principalCache: principals.cache,
  };
  // Read-your-writes for revocations answered here (see PrincipalCache.lookup): any write request may be one.
  fastify.addHook('onSend', (request, _reply, payload, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') principals.cache.noteLocalWrite();
    done(null, payload);
  });

  await fastify.register(fastifyCookie);
  await fastify.register(fastifyFormbody);
  registerErrorResponses(fastify);
  registerSecurityHeaders(fastify, env.SITE_URL);
  const draining = registerDraining(fastify);
  registerJsonBodyParser(fastify);
  registerTextGuard(fastify, [REST_BASE_PATH, TRPC_BASE_PATH, MCP_PATH]);
  registerRequestDeadline(fastify, timeouts.handlerMs);
  registerHealth(fastify, orm, counterStore.store, draining);
  await ensureApiReferenceClient(orm.em.fork(), env.SITE_URL);
  await registerDocs(fastify, {
    siteUrl: env.SITE_URL,
    oauthClient: { clientId: API_REFERENCE_CLIENT_ID, redirectPath: API_REFERENCE_REDIRECT_PATH },
  });
  applyOutputChecks(appRouter, env.NODE_ENV === 'production' ? 'off' : 'strict');
  await registerTrpc(fastify, services, orm);
  await registerRest(fastify, services, orm);
  await registerMcp(fastify, { ...services, bearerResolvers: bearerResolversFor('/mcp') }, orm, { deadlineOf: requestDeadline });
  await registerWebApp(fastify, {
    webRoot: options.webRoot,
    bookingFrameAncestors: env.BOOKING_FRAME_ANCESTORS,
    calendarFileOf: (token) => managedBookingCalendar(orm.em.fork(), token, env.SITE_URL),
    currentSlugAfter: (userSlug) => currentSlugAfter(orm.em.fork(), userSlug),
  });
  await fastify.register(oauthRoutes, { services, orm });
  registerLandingPage(fastify, env);
  registerSignup(fastify, {
    services,
    orm,
    createAccount: createUser,
    limiter: createRateLimiter({ keyPrefix: 'signup', points: SIGNUPS_PER_HOUR, durationSec: 3600, store: counterStore.store, onStoreError }),
  });
  registerPasswordReset(fastify, {
    services,
    orm,
    resets: { request: requestPasswordReset, find: findPasswordReset, reset: resetPassword },
    limiter: createRateLimiter({ keyPrefix: 'password_reset', points: PASSWORD_RESETS_PER_HOUR, durationSec: 3600, store: counterStore.store, onStoreError }),
  });
  // The outbox workers' own connections (webhook deliveries and e-mail): their polls never wait in the requests' pool.
  const workerPool = createWorkerPool(options.databaseUrl);
  const workerQuery = async <Row>(sql: string, params: unknown[]) => (await workerPool.query(sql, params)).rows as Row[];
  const webhookWorker = startDeliveryWorker({
    query: workerQuery,
    retry: webhookRetryPolicy(env),
    allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    clock: services.clock,
    leaseMs: env.WEBHOOK_LEASE_MS,
    openSecret: (sealed) => openSecret(orm.em.fork(), 'webhook-signing-secret', sealed),
    onError: (error) => log.warn({ err: error }, 'webhook delivery worker: a poll failed; trying again'),
  });
  // One SMTP transport (a pool of connections) for every kind of mail.
  const mailTransport = mailTransportOf(env);
  const mailWorker = startBookingMessages({
    env,
    query: workerQuery,
    clock: services.clock,
    transport: mailTransport,
    openSecrets: () => orm.em.fork(),
    onError: (error) => log.warn({ err: error }, 'e-mail worker: a poll failed; trying again'),
  });
  const accountMailWorker = startAccountMail({
    env,
    query: workerQuery,
    clock: services.clock,
    transport: mailTransport,
    openSecrets: () => orm.em.fork(),
    // Its reader is signed out (the dashboard cannot show it): say where to read it, never to whom or the link.
    onKept: (kept) => {
      for (const message of kept) {
        log.info(
          { messageId: message.id },
          `a password reset mail was kept (not sent, no SMTP_URL); read it with: npm run -s cli -- mail show --id ${message.id}`,
        );
      }
    },
    onError: (error) => log.warn({ err: error }, 'account e-mail worker: a poll failed; trying again'),
  });
  // The calendar sync and the pending bookings' expiry share two connections of their own (as the webhook worker
  // has): they never take a connection a request is waiting for.
  const backgroundOrm = await initOrm(options.databaseUrl, { poolMax: 2 });
  const calendarSyncWorker = startCalendarSyncWorker({
    emOf: () => backgroundOrm.em.fork(),
    settings: calendarSyncSettings(env, services.clock),
    onError: (error) => log.warn({ err: error }, 'calendar sync worker: a poll failed; trying again'),
  });
  const pendingExpiryWorker = startPendingExpiryWorker({
    emOf: () => backgroundOrm.em.fork(),
    clock: services.clock,
    series: declineUnconfirmedSeries,
    onError: (error) => log.warn({ err: error }, 'pending booking expiry: a poll failed; trying again'),
  });
  // Bookings written back to CalDAV calendars share those two connections: both are background work.
  const bookingEventWorker = startBookingEventWorker({
    emOf: () => backgroundOrm.em.fork(),
    settings: { allowPrivateNetworks: env.CALENDAR_ALLOW_PRIVATE_NETWORKS, clock: services.clock, siteUrl: env.SITE_URL },
    onError: (error) => log.warn({ err: error }, 'booking calendar event worker: a poll failed; trying again'),
  });

  return {
    fastify,
    services,
    beginStop: () => draining.beginStop(),
    async close() {
      await bookingEventWorker.stop();
      await calendarSyncWorker.stop();
      await pendingExpiryWorker.stop();
      await backgroundOrm.close();
      await webhookWorker.stop();
      await mailWorker.stop();
      await accountMailWorker.stop();
      mailTransport?.close();
      await workerPool.end();
      await fastify.close();
      await principals.close();
      await counterStore.close();
    },
  };
}

/** The principal cache and the LISTEN connection that keeps it honest (src/identity/principal-invalidation.ts). */
function createPrincipalCache(databaseUrl: string, onError: (error: unknown) => void) {
  const handlers = { onUserChanged: (userId: string) => cache.invalidateUser(userId), onReset: () => cache.clear() };
  const listener = listenForPrincipalChanges(databaseUrl, handlers, onError);
  const cache = new PrincipalCache({ maxEntries: PRINCIPAL_CACHE_ENTRIES, ttlMs: PRINCIPAL_CACHE_TTL_MS, feed: listener });
  return { cache, close: () => listener.close() };
}

/** The outbox workers' own connections (as the ORM's, mikro-orm.config.ts): their polls never wait in the requests' pool. */
function createWorkerPool(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    Client: DeadlineClient,
    connectionTimeoutMillis: DATABASE_TIMEOUTS.acquireMs,
    statement_timeout: DATABASE_TIMEOUTS.statementMs,
    query_timeout: DATABASE_TIMEOUTS.queryMs,
  });
  releaseConnectionsThatEnd(pool);
  pool.on('error', () => {
    // An idle client lost its connection (e.g. the database restarted); the pool replaces it and the next poll retries.
  });
  return pool;
}

/** WEBHOOK_RETRY_SCHEDULE's delays exactly, or the default ones with jitter. */
function webhookRetryPolicy(env: Env): RetryPolicy {
  return retryPolicyOf(env.WEBHOOK_RETRY_SCHEDULE === undefined ? undefined : parseDurations(env.WEBHOOK_RETRY_SCHEDULE), DEFAULT_RETRY_DELAYS_MS);
}

function createCounterStore(env: Env, databaseUrl: string, redisCommandTimeoutMs: number): { store: CounterStore; close(): Promise<void> } {
  const instances = env.RATE_LIMIT_INSTANCES;
  if (env.REDIS_URL) {
    // No commandTimeout: its timer fires on event-loop lag alone, before a reply already received is read. The
    // limiter bounds each command itself, not counting the lag (answerWithinMs, src/lib/answer-within.ts).
    const client = new Redis(env.REDIS_URL, {
      // Requests never wait for a connection (no offline queue: they count in memory meanwhile), so this only
      // decides when a silent host is tried again; tens of ms would fail at boot, while building the app keeps
      // the event loop busy past the timer.
      connectTimeout: 1000,
      // A connection that stops answering is dropped, so that the next requests fail fast (and count in memory)
      // while it reconnects, instead of each waiting out the command timeout on a frozen server.
      socketTimeout: 500,
      // Reconnect at least every half second (ioredis backs off to 5 s), so that a thawed Redis counts again soon.
      retryStrategy: (attempt: number) => Math.min(attempt * 50, 500),
      enableOfflineQueue: false,
      // A late increment is worse than none: the request has already been counted in memory.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      lazyConnect: false,
    });
    client.on('error', () => {
      // Reconnection is automatic; failures surface per request and fall back to in-memory counting.
    });
    return { store: { kind: 'redis', client, answerWithinMs: redisCommandTimeoutMs, instances }, close: async () => void client.disconnect() };
  }
  // As the ORM's pool (mikro-orm.config.ts), with shorter limits: past them the request counts in memory.
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 5,
    Client: DeadlineClient,
    connectionTimeoutMillis: POSTGRES_COUNTER_TIMEOUTS.acquireMs,
    statement_timeout: POSTGRES_COUNTER_TIMEOUTS.statementMs,
    query_timeout: POSTGRES_COUNTER_TIMEOUTS.queryMs,
    // Every count of one token updates the same row, so the upserts commit one after another; without this each
    // waited for its own WAL flush (pg_stat_activity under POST /bookings load: Lock:transactionid and
    // IO:WALSync). A crash may lose the last fraction of a second of counts, which a rate limit can afford.
    options: '-c synchronous_commit=off',
  });
  releaseConnectionsThatEnd(pool);
  pool.on('error', () => {
    // An idle client lost its connection (e.g. the database restarted); the pool replaces it.
  });
  return { store: { kind: 'postgres', pool, instances }, close: () => pool.end() };
}
