import { describe, expect, it } from 'vitest';
import { answerWithin } from './answer-within.ts';

/** Keeps the event loop busy, as a CPU-bound burst of requests does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const never = () => new Promise<never>(() => {});

describe('answerWithin', () => {
  it('passes an answer on, and a failure', async () => {
    await expect(answerWithin(after(5, 'PONG'), { ms: 50 })).resolves.toBe('PONG');
    await expect(answerWithin(Promise.reject(new Error('refused')), { ms: 50 })).rejects.toThrow('refused');
  });

  it('gives up soon after the limit while the event loop is free', async () => {
    const started = performance.now();
    await expect(answerWithin(never(), { ms: 50 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
    expect(performance.now() - started).toBeLessThan(50 * 3);
  });

  it('takes an answer that arrived while the event loop was stalled past the limit', async () => {
    const answer = answerWithin(after(60, 'PONG'), { ms: 50 });
    stall(200);
    await expect(answer).resolves.toBe('PONG');
  });

  it('still gives up at maxMs when the loop stays busy and no answer comes', async () => {
    const started = performance.now();
    const stalls = setInterval(() => stall(60), 1);
    try {
      await expect(answerWithin(never(), { ms: 50, maxMs: 400 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    } finally {
      clearInterval(stalls);
    }
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
    expect(performance.now() - started).toBeLessThan(400 + 50 + 500);
  });
});
