import { describe, expect, it } from 'vitest';
import type { Principal } from './principal.ts';
import { type InvalidationFeed, PrincipalCache } from './principal-cache.ts';

const principal = (userId: string): Principal => ({
  userId,
  plan: 'team',
  scopes: new Set(['read:profile']),
  credential: { kind: 'pat', id: `pat-${userId}` },
});

/** A feed and a monotonic clock the test moves by hand. */
function setup(options: { maxEntries?: number; ttlMs?: number } = {}) {
  let monotonic = 1_000;
  const state = { listening: true, confirmed: 0, proofs: 0 };
  const feed: InvalidationFeed = {
    isListening: () => state.listening,
    confirmedAt: () => state.confirmed,
    confirmAfter: async (after) => {
      state.proofs++;
      state.confirmed = Math.max(state.confirmed, after);
    },
  };
  const cache = new PrincipalCache({
    maxEntries: options.maxEntries ?? 10,
    ttlMs: options.ttlMs ?? 30_000,
    feed,
    monotonicNow: () => monotonic,
  });
  return { cache, feed: state, advance: (ms: number) => void (monotonic += ms) };
}

const now = new Date('2026-11-23T12:00:00Z');
const later = new Date('2026-11-23T13:00:00Z');

describe('PrincipalCache', () => {
  it('serves what it stored, by key only', async () => {
    const { cache } = setup();
    cache.set('k-alice', principal('alice'), later, cache.generation);
    expect((await cache.lookup('k-alice', now))?.userId).toBe('alice');
    expect(await cache.lookup('k-bob', now)).toBeUndefined();
  });

  it('does not store a lookup that an invalidation overtook', async () => {
    const { cache } = setup();
    const generation = cache.generation;
    cache.invalidateUser('someone else');
    cache.set('k', principal('alice'), later, generation);
    expect(await cache.lookup('k', now)).toBeUndefined();
  });

  it('drops the changed user only', async () => {
    const { cache } = setup();
    cache.set('k-alice', principal('alice'), later, cache.generation);
    cache.set('k-bob', principal('bob'), later, cache.generation);
    cache.invalidateUser('alice');
    expect(await cache.lookup('k-alice', now)).toBeUndefined();
    expect((await cache.lookup('k-bob', now))?.userId).toBe('bob');
  });

  it('serves and stores nothing while the feed is not listening', async () => {
    const { cache, feed } = setup();
    cache.set('k', principal('alice'), later, cache.generation);
    feed.listening = false;
    expect(await cache.lookup('k', now)).toBeUndefined();
    cache.set('k2', principal('bob'), later, cache.generation);
    feed.listening = true;
    expect(await cache.lookup('k2', now)).toBeUndefined();
  });

  it('stops at the reusable-until time (token expiry) and at the TTL', async () => {
    const { cache, advance } = setup({ ttlMs: 1_000 });
    cache.set('expiring', principal('alice'), new Date(now.getTime() + 5_000), cache.generation);
    expect(await cache.lookup('expiring', new Date(now.getTime() + 4_999))).toBeDefined();
    expect(await cache.lookup('expiring', new Date(now.getTime() + 5_000))).toBeUndefined();
    cache.set('ttl', principal('bob'), later, cache.generation);
    advance(999);
    expect(await cache.lookup('ttl', now)).toBeDefined();
    advance(1);
    expect(await cache.lookup('ttl', now)).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const { cache } = setup({ maxEntries: 2 });
    for (const user of ['a', 'b', 'c']) cache.set(user, principal(user), later, cache.generation);
    expect(cache.size).toBe(2);
    expect(await cache.lookup('a', now)).toBeUndefined();
    expect(await cache.lookup('c', now)).toBeDefined();
  });

  it('after a write on this instance, waits for a proof sent after it before serving', async () => {
    const { cache, feed, advance } = setup();
    cache.set('k', principal('alice'), later, cache.generation);
    advance(10);
    cache.noteLocalWrite();
    expect(await cache.lookup('k', now)).toBeDefined();
    expect(feed.proofs).toBe(1);
    expect(await cache.lookup('k', now)).toBeDefined();
    expect(feed.proofs).toBe(1);
  });
});
