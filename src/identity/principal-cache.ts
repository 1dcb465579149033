import type { Principal } from './principal.ts';

/**
 * Principals resolved from bearer tokens, kept per instance so that a request with a known token costs no token
 * lookup. Safe only while the instance hears every change that could refuse a token: `isListening()` says that
 * the invalidation feed (src/identity/principal-invalidation.ts) confirmed, recently enough, that it has delivered
 * every change committed so far. When it cannot say so, the cache serves nothing and stores nothing.
 *
 * - Keyed by the SHA-256 of the token and the audience the token was resolved for: an entry can only ever be found
 *   again with the very token that produced it, so no entry can serve one user's principal to another.
 * - An entry lives at most `ttlMs` (a backstop), and never past the moment its resolver said the token must be
 *   looked at again (its expiry, or when a PAT's last-used time is due to be written).
 * - A lookup that started before an invalidation arrived is not stored (`generation`), so a principal read just
 *   before a revocation cannot be cached after the revocation's notification was handled.
 * - Read-your-writes on this instance: after a write request answered here (`noteLocalWrite`, e.g. a revocation),
 *   a cached principal is served only once a proof sent after that write completed, so a client that revoked a
 *   token here sees it refused here on its very next request, not up to the cross-instance bound later.
 */
export interface PrincipalCacheOptions {
  maxEntries: number;
  ttlMs: number;
  feed: InvalidationFeed;
  /** Monotonic milliseconds (performance.now in production). */
  monotonicNow?: () => number;
}

/** What the cache needs of the invalidation listener (src/identity/principal-invalidation.ts). */
export interface InvalidationFeed {
  /** True while every change committed up to a recent moment has been handled. */
  isListening(): boolean;
  /** Monotonic time at which the last completed proof was sent: every change committed before it was handled. */
  confirmedAt(): number;
  /** Resolves once a proof sent at or after `monotonicTime` completed, or the connection failed, or it took too long. */
  confirmAfter(monotonicTime: number): Promise<void>;
}

interface Entry {
  principal: Principal;
  /** Monotonic ms after which the entry is dropped (the TTL backstop). */
  staleAt: number;
  /** Epoch ms (the request clock's) from which the resolver must run again. */
  reusableUntil: number;
}

export class PrincipalCache {
  readonly #entries = new Map<string, Entry>();
  readonly #options: Required<PrincipalCacheOptions>;
  #generation = 0;
  #lastLocalWrite = Number.NEGATIVE_INFINITY;

  constructor(options: PrincipalCacheOptions) {
    this.#options = { monotonicNow: () => performance.now(), ...options };
  }

  /** Changes with every invalidation; read it before a lookup and pass it to `set`. */
  get generation(): number {
    return this.#generation;
  }

  /** Whether the cache serves at all (see InvalidationFeed.isListening). */
  get listening(): boolean {
    return this.#options.feed.isListening();
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The cached principal of `key`, once every change this instance may have made itself has been heard. */
  async lookup(key: string, now: Date): Promise<Principal | undefined> {
    const hit = this.#get(key, now);
    if (!hit || this.#options.feed.confirmedAt() >= this.#lastLocalWrite) return hit;
    await this.#options.feed.confirmAfter(this.#lastLocalWrite);
    return this.#options.feed.confirmedAt() >= this.#lastLocalWrite ? this.#get(key, now) : undefined;
  }

  /** A write request was answered by this instance: it may have revoked something (see `lookup`). */
  noteLocalWrite(): void {
    this.#lastLocalWrite = this.#options.monotonicNow();
  }

  #get(key: string, now: Date): Principal | undefined {
    if (!this.#options.feed.isListening()) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.staleAt <= this.#options.monotonicNow() || entry.reusableUntil <= now.getTime()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  set(key: string, principal: Principal, reusableUntil: Date, generationAtLookup: number): void {
    if (generationAtLookup !== this.#generation || !this.#options.feed.isListening()) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#options.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, {
      principal,
      staleAt: this.#options.monotonicNow() + this.#options.ttlMs,
      reusableUntil: reusableUntil.getTime(),
    });
  }

  /** Drops every principal of this user (a token, grant or plan of theirs changed). */
  invalidateUser(userId: string): void {
    this.#generation++;
    for (const [key, entry] of this.#entries) if (entry.principal.userId === userId) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
