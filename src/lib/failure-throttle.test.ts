import { describe, expect, it } from 'vitest';
import { createFailureThrottle, type RateLimiter, type RateLimitResult } from './rate-limit.ts';

/** A counter of `limit` per key that refuses for `retryAfter` seconds once spent, counting its calls. */
function countingLimiter(limit: number, retryAfter: number): RateLimiter & { calls: number } {
  const used = new Map<string, number>();
  return {
    limit,
    calls: 0,
    async consume(key): Promise<RateLimitResult> {
      this.calls++;
      const count = (used.get(key) ?? 0) + 1;
      used.set(key, count);
      const allowed = count <= limit;
      return { allowed, limit, remaining: Math.max(0, limit - count), resetAt: 0, ...(allowed ? {} : { retryAfter }) };
    },
  };
}

describe('createFailureThrottle', () => {
  it('refuses failures past the budget, then answers them from memory until the wait is over', async () => {
    let now = 1_000_000;
    const limiter = countingLimiter(3, 60);
    const throttle = createFailureThrottle(limiter, () => now);
    for (let i = 0; i < 3; i++) expect(await throttle.failed('ip:a')).toBeNull();
    expect(await throttle.failed('ip:a')).toBe(60);
    const counted = limiter.calls;
    now += 20_000;
    expect(await throttle.failed('ip:a')).toBe(40);
    expect(limiter.calls).toBe(counted);
    expect(await throttle.failed('ip:b')).toBeNull();
    now += 40_000;
    await throttle.failed('ip:a');
    expect(limiter.calls).toBe(counted + 2);
  });
});
