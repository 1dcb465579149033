import { describe, expect, it } from 'vitest';
import { createKeyedMutex } from './keyed-mutex.ts';

const never = () => new AbortController().signal;
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('createKeyedMutex', () => {
  it('gives a key to one holder at a time, then to its waiters in arrival order', async () => {
    const mutex = createKeyedMutex();
    const order: string[] = [];
    const first = mutex.tryLock(['a'])!;
    const waiters = ['second', 'third'].map((name) =>
      mutex.lock(['a'], never()).then((release) => {
        order.push(name);
        return release;
      }),
    );
    await settled();
    expect(order).toEqual([]);
    expect(mutex.tryLock(['a'])).toBeUndefined();

    first();
    const second = await waiters[0]!;
    await settled();
    expect(order).toEqual(['second']);
    second();
    (await waiters[1]!)();
    expect(order).toEqual(['second', 'third']);
    expect(mutex.tryLock(['a'])).toBeDefined();
  });

  it('keeps keys independent, and tryLock takes all of its keys or none', () => {
    const mutex = createKeyedMutex();
    const a = mutex.tryLock(['a'])!;
    expect(mutex.tryLock(['b', 'a'])).toBeUndefined();
    const b = mutex.tryLock(['b'])!;
    expect(b).toBeDefined();
    a();
    a();
    b();
    expect(mutex.tryLock(['a', 'b'])).toBeDefined();
  });

  it('does not count a key as free while someone waits for it', async () => {
    const mutex = createKeyedMutex();
    const holder = mutex.tryLock(['a'])!;
    const waiter = mutex.lock(['a'], never());
    holder();
    expect(mutex.tryLock(['a'])).toBeUndefined();
    (await waiter)();
    expect(mutex.tryLock(['a'])).toBeDefined();
  });

  it('gives up when the signal aborts, holding nothing and leaving the queue to those behind', async () => {
    const mutex = createKeyedMutex();
    const holder = mutex.tryLock(['b'])!;
    const impatient = new AbortController();
    // 'a' is free and taken first (sorted order), then 'b' is waited for.
    const givesUp = mutex.lock(['b', 'a'], impatient.signal);
    const patient = mutex.lock(['b'], never());
    await settled();
    expect(mutex.tryLock(['a'])).toBeUndefined();

    impatient.abort(new Error('too long'));
    await expect(givesUp).rejects.toThrow('too long');
    expect(mutex.tryLock(['a'])).toBeDefined();
    holder();
    (await patient)();
    expect(mutex.tryLock(['b'])).toBeDefined();
  });

  it('refuses at once when the signal has already aborted', async () => {
    const mutex = createKeyedMutex();
    await expect(mutex.lock(['a'], AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect(mutex.tryLock(['a'])).toBeDefined();
  });
});
