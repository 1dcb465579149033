import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { answerWithin } from './answer-within.ts';

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

/**
 * Where the counters live, and how many instances share them: while the store is down each instance counts in its
 * own memory, and admits only its share of every budget, so that all of them together never admit more than it.
 */
export type CounterStore = ({ kind: 'postgres'; pool: Pool } | { kind: 'redis'; client: Redis; answerWithinMs: number }) & {
  instances: number;
};

/**
 * How long a request waits for its Redis counter before it is counted in process memory instead, in time this
 * process could have read the reply (src/lib/answer-within.ts): a counter is worth tens of milliseconds at most, and
 * a Redis that stops answering must not stall the API behind it, while a Redis that answers a busy process late
 * is not down, and must keep counting.
 */
export const REDIS_COUNTER_TIMEOUT_MS = 50;
/** However busy the event loop, a Redis counter that has not answered by then is given up on. */
export const REDIS_COUNTER_MAX_WAIT_MS = 1_000;

/** Resolves when the counter store answers; rejects when it cannot (the limiter then counts in memory). */
export async function probeCounterStore(store: CounterStore): Promise<void> {
  if (store.kind === 'redis') await answeredByRedis(store, store.client.ping());
  else await store.pool.query('select 1');
}

function answeredByRedis<T>(store: { answerWithinMs: number }, command: Promise<T>): Promise<T> {
  return answerWithin(command, { ms: store.answerWithinMs, maxMs: Math.max(store.answerWithinMs, REDIS_COUNTER_MAX_WAIT_MS) });
}

interface LimiterOptions {
  keyPrefix: string;
  points: number;
  durationSec: number;
  store: CounterStore;
  onStoreError: (error: unknown) => void;
}

/** What one instance of `instances` may admit of a budget while the shared count is out of reach. */
export function fallbackShare(points: number, instances: number): number {
  return Math.floor(points / instances);
}

/**
 * A fixed-window counter shared by every instance through PostgreSQL or Redis, counted there whenever the store
 * answers, however late. When it fails, the request is counted in memory against this instance's share (fail open:
 * a counter outage must not take the API down), and the counts cross the outage both ways (`Crossings`), so a
 * store that fails and returns within a window never lets a key spend its budget twice.
 */
export function createRateLimiter(options: LimiterOptions): RateLimiter {
  const { store } = options;
  const shared = createStoreLimiter(options);
  const consumeShared =
    store.kind === 'redis'
      ? (key: string, points: number) => answeredByRedis(store, shared.consume(key, points))
      : (key: string, points: number) => shared.consume(key, points);
  const fallbackPoints = fallbackShare(options.points, store.instances);
  const fallback = new RateLimiterMemory({ keyPrefix: options.keyPrefix, points: fallbackPoints, duration: options.durationSec });
  const crossings = new Crossings();
  return {
    limit: options.points,
    async consume(key, points = 1) {
      const owed = crossings.owed(key);
      try {
        const counted = await consumeShared(key, points + owed);
        crossings.heard(key, counted);
        return toResult(options.points, counted);
      } catch (outcome) {
        if (outcome instanceof RateLimiterRes) {
          crossings.heard(key, outcome);
          const refused = toResult(options.points, outcome, true);
          return points > 1 ? { ...refused, remaining: await giveBack(shared, key, points, outcome) } : refused;
        }
        crossings.owe(key, owed);
        options.onStoreError(outcome);
        try {
          const seed = crossings.seed(key);
          if (seed) await fallback.set(key, Math.min(seed.counted, fallbackPoints), seed.secondsLeft);
          const counted = await fallback.consume(key, points);
          crossings.owe(key, points);
          return toResult(options.points, counted);
        } catch (fallbackOutcome) {
          if (fallbackOutcome instanceof RateLimiterRes) return toResult(options.points, fallbackOutcome, true);
          throw fallbackOutcome;
        }
      }
    },
  };
}

/** Keys whose crossing state is remembered before expired ones are swept out. */
const MAX_CROSSING_KEYS = 10_000;

interface Crossing {
  /** What the store had counted in its window when it last answered, and when that window ends. */
  counted: number;
  until: number;
  /** Points admitted in memory since, still to be added to the store's count. */
  owed: number;
  /** Whether the memory count already started from `counted` in this outage. */
  seeded: boolean;
}

/**
 * Carries a key's count across a store outage, both ways: the memory count starts from what the store had counted
 * in the window (a key that spent its budget in the store cannot spend it again in memory), and what memory admitted
 * is added to the store's count when the store answers again within the window.
 */
class Crossings {
  readonly #byKey = new Map<string, Crossing>();

  heard(key: string, counted: RateLimiterRes): void {
    const until = Date.now() + counted.msBeforeNext;
    const known = this.#byKey.get(key);
    if (known) {
      // Every counted request lands here: update in place rather than allocate on the hot path.
      known.counted = counted.consumedPoints;
      known.until = until;
      known.owed = 0;
      known.seeded = false;
      return;
    }
    if (this.#byKey.size >= MAX_CROSSING_KEYS) this.#sweep();
    this.#byKey.set(key, { counted: counted.consumedPoints, until, owed: 0, seeded: false });
  }

  /** Points admitted in memory in the store's current window and not yet counted there (taken: the caller adds them). */
  owed(key: string): number {
    const crossing = this.#current(key);
    if (!crossing || crossing.owed === 0) return 0;
    const owed = crossing.owed;
    crossing.owed = 0;
    return owed;
  }

  owe(key: string, points: number): void {
    const crossing = this.#current(key);
    if (crossing) crossing.owed += points;
  }

  /** The store's count to start this outage's memory count from, once per outage. */
  seed(key: string): { counted: number; secondsLeft: number } | undefined {
    const crossing = this.#current(key);
    if (!crossing || crossing.seeded) return undefined;
    crossing.seeded = true;
    return { counted: crossing.counted, secondsLeft: Math.max(1, Math.ceil((crossing.until - Date.now()) / 1000)) };
  }

  #current(key: string): Crossing | undefined {
    const crossing = this.#byKey.get(key);
    if (crossing && crossing.until <= Date.now()) {
      this.#byKey.delete(key);
      return undefined;
    }
    return crossing;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, crossing] of this.#byKey) if (crossing.until <= now) this.#byKey.delete(key);
  }
}

/**
 * A refused batch runs none of its calls, so it must not use up what was left for single calls either: its points
 * are taken back, and the answer says what is left. A store that fails to take them back leaves the window strict.
 */
async function giveBack(shared: RateLimiterAbstract, key: string, points: number, refusal: RateLimiterRes): Promise<number> {
  try {
    await shared.reward(key, points);
    return Math.max(0, shared.points - (refusal.consumedPoints - points));
  } catch {
    return 0;
  }
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
 * Failed authentications per client address. Failures are counted in the shared store; once an address has used
 * up its budget, each instance remembers until when, so that its further failures cost no counter write. Only
 * failures are refused: a request whose credential is valid never asks the throttle.
 */
export interface FailureThrottle {
  readonly limit: number;
  /**
   * Notes one failure of `key`: whole seconds it must wait when it is over the budget (this failure is then
   * answered 429), else null. An address already blocked costs no I/O.
   */
  failed(key: string): Promise<number | null>;
}

/** Blocked keys kept in memory before expired ones are swept out. */
const MAX_REMEMBERED_BLOCKS = 10_000;

export function createFailureThrottle(limiter: RateLimiter, now: () => number = Date.now): FailureThrottle {
  const blockedUntil = new Map<string, number>();
  const sweep = () => {
    for (const [key, until] of blockedUntil) if (until <= now()) blockedUntil.delete(key);
  };
  const blockedFor = (key: string): number | null => {
    const until = blockedUntil.get(key);
    if (until === undefined) return null;
    if (until <= now()) {
      blockedUntil.delete(key);
      return null;
    }
    return Math.max(1, Math.ceil((until - now()) / 1000));
  };
  return {
    limit: limiter.limit,
    async failed(key) {
      const blocked = blockedFor(key);
      if (blocked !== null) return blocked;
      const result = await limiter.consume(key);
      if (result.allowed || result.retryAfter === undefined) return null;
      if (blockedUntil.size >= MAX_REMEMBERED_BLOCKS) sweep();
      blockedUntil.set(key, now() + result.retryAfter * 1000);
      return result.retryAfter;
    },
  };
}
