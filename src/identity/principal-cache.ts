import type { Principal } from './principal.ts';

/**
 * Principals of bearer tokens, kept per instance so a known token costs no lookup; safe only while the invalidation
 * feed confirms it has delivered every change committed so far (otherwise nothing is served or stored). Entries are
 * keyed by the token's hash (never found with another token), expire by `ttlMs` and the token's own deadlines, are
 * not stored when an invalidation overtook their lookup, and after a local write wait for a later proof
 * (read-your-writes). The bound and its proofs: docs/decisions.md, "Authentication and tokens".
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
