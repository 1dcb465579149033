/**
 * Turns per key within this process: one holder per key at a time, the others wait in memory, first come first
 * served, each at most until its signal aborts. Several keys are always taken in sorted order, and a holder of
 * some keys only ever tries (never waits for) more, so waiters cannot wait on each other in a cycle.
 */

/** Gives the keys back; calling it again does nothing. */
export type Release = () => void;

export interface KeyedMutex {
  /** All these keys now, if none of them is held or awaited; otherwise undefined, at once. */
  tryLock(keys: readonly string[]): Release | undefined;
  /** All these keys, waiting for each in turn; rejects with the signal's reason (holding none) once it aborts. */
  lock(keys: readonly string[], signal: AbortSignal): Promise<Release>;
}

export function createKeyedMutex(): KeyedMutex {
  // A key is held while it has an entry: the queue of those waiting for it, in arrival order.
  const queues = new Map<string, Array<() => void>>();

  const handOn = (key: string) => {
    const next = queues.get(key)?.shift();
    if (next) next();
    else queues.delete(key);
  };
  const releaser = (keys: readonly string[]): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) handOn(key);
    };
  };

  const wait = (key: string, signal: AbortSignal): Promise<void> => {
    const queue = queues.get(key);
    if (!queue) {
      queues.set(key, []);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', giveUp);
        resolve();
      };
      const giveUp = () => {
        queue.splice(queue.indexOf(grant), 1);
        reject(signal.reason);
      };
      queue.push(grant);
      signal.addEventListener('abort', giveUp, { once: true });
    });
  };

  return {
    tryLock(keys) {
      const sorted = inOrder(keys);
      if (sorted.some((key) => queues.has(key))) return undefined;
      for (const key of sorted) queues.set(key, []);
      return releaser(sorted);
    },
    async lock(keys, signal) {
      signal.throwIfAborted();
      const sorted = inOrder(keys);
      const held: string[] = [];
      try {
        for (const key of sorted) {
          await wait(key, signal);
          held.push(key);
        }
      } catch (error) {
        releaser(held)();
        throw error;
      }
      return releaser(sorted);
    },
  };
}

function inOrder(keys: readonly string[]): string[] {
  return [...new Set(keys)].sort();
}
