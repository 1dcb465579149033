import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds at which the current window ends. */
  resetAt: number;
  /** Whole seconds to wait; set when the request was refused. */
  retryAfter?: number;
}

export interface RateLimiter {
  readonly limit: number;
  /** Counts `points` requests (one by default) at once: all of them are admitted, or none. */
  consume(key: string, points?: number): Promise<RateLimitResult>;
}

export type CounterStore = { kind: 'postgres'; pool: Pool } | { kind: 'redis'; client: Redis };

/**
 * How long a request waits for its Redis counter before it is counted in process memory instead. A counter
 * is worth tens of milliseconds at most: a Redis that stops answering must not stall the API behind it.
 */
export const REDIS_COUNTER_TIMEOUT_MS = 50;

/** Resolves when the counter store answers; rejects when it cannot (the limiter then counts in memory). */
export async function probeCounterStore(store: CounterStore): Promise<void> {
  if (store.kind === 'redis') await store.client.ping();
  else await store.pool.query('select 1');
}

interface LimiterOptions {
  keyPrefix: string;
  points: number;
  durationSec: number;
  store: CounterStore;
  onStoreError: (error: unknown) => void;
}

/**
 * A fixed-window counter shared by every instance through PostgreSQL or Redis. When the shared store
 * cannot be reached the request is counted in this process's memory instead (fail open, per instance):
 * an outage of the counter store must not take the API down with it.
 */
export function createRateLimiter(options: LimiterOptions): RateLimiter {
  const shared = createStoreLimiter(options);
  const fallback = new RateLimiterMemory({
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.durationSec,
  });
  return {
    limit: options.points,
    async consume(key, points = 1) {
      try {
        return toResult(options.points, await shared.consume(key, points));
      } catch (outcome) {
        if (outcome instanceof RateLimiterRes) return toResult(options.points, outcome, true);
        options.onStoreError(outcome);
        try {
          return toResult(options.points, await fallback.consume(key, points));
        } catch (fallbackOutcome) {
          if (fallbackOutcome instanceof RateLimiterRes) return toResult(options.points, fallbackOutcome, true);
          throw fallbackOutcome;
        }
      }
    },
  };
}

function createStoreLimiter(options: LimiterOptions): RateLimiterAbstract {
  const common = { keyPrefix: options.keyPrefix, points: options.points, duration: options.durationSec };
  if (options.store.kind === 'redis') {
    return new RateLimiterRedis({ ...common, storeClient: options.store.client, rejectIfRedisNotReady: true });
  }
  return new RateLimiterPostgres({
    ...common,
    storeClient: options.store.pool,
    storeType: 'pool',
    tableName: 'rate_limit',
    tableCreated: true,
  });
}

function toResult(limit: number, res: RateLimiterRes, refused = false): RateLimitResult {
  const msBeforeNext = Math.max(0, res.msBeforeNext);
  return {
    allowed: !refused,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetAt: Math.ceil((Date.now() + msBeforeNext) / 1000),
    ...(refused ? { retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)) } : {}),
  };
}

/** The headers every rate-limited response carries. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(result.resetAt),
  };
  if (result.retryAfter !== undefined) headers['Retry-After'] = String(result.retryAfter);
  return headers;
}

/**
 * Failed authentications per client address. Failures are counted in the shared store; once an address
 * has used up its budget, each instance remembers until when, so a blocked address costs neither a token
 * lookup nor a counter write, and a request with a good credential costs nothing extra.
 */
export interface FailureThrottle {
  readonly limit: number;
  /** Whole seconds the key must still wait, or null. In memory only: no I/O. */
  blockedFor(key: string): number | null;
  /** Counts one failure; whole seconds to wait when this failure went over the budget, else null. */
  recordFailure(key: string): Promise<number | null>;
}

/** Blocked keys kept in memory before expired ones are swept out. */
const MAX_REMEMBERED_BLOCKS = 10_000;

export function createFailureThrottle(limiter: RateLimiter, now: () => number = Date.now): FailureThrottle {
  const blockedUntil = new Map<string, number>();
  const sweep = () => {
    for (const [key, until] of blockedUntil) if (until <= now()) blockedUntil.delete(key);
  };
  return {
    limit: limiter.limit,
    blockedFor(key) {
      const until = blockedUntil.get(key);
      if (until === undefined) return null;
      if (until <= now()) {
        blockedUntil.delete(key);
        return null;
      }
      return Math.max(1, Math.ceil((until - now()) / 1000));
    },
    async recordFailure(key) {
      const result = await limiter.consume(key);
      if (result.allowed || result.retryAfter === undefined) return null;
      if (blockedUntil.size >= MAX_REMEMBERED_BLOCKS) sweep();
      blockedUntil.set(key, now() + result.retryAfter * 1000);
      return result.retryAfter;
    },
  };
}
