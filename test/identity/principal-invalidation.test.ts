import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { type InvalidationListener, listenForPrincipalChanges } from '../../src/identity/principal-invalidation.ts';

/**
 * The listener's `select 1` proofs on its LISTEN connection. pg 8 queues a query sent on a client that is still
 * running one (and warns "Calling client.query() when the client is already executing a query is deprecated");
 * pg 9 will refuse it. So requests waiting for a proof at once must never put two queries on that connection.
 */
describe('principal invalidation listener', () => {
  let listener: InvalidationListener | undefined;
  let queries: QueryWatch | undefined;
  afterEach(async () => {
    queries?.stop();
    await listener?.close();
  });

  it('runs one proof at a time on its connection, however many requests want a later one meanwhile', async () => {
    queries = watchQueries();
    const failures: unknown[] = [];
    listener = listenForPrincipalChanges(inject('serverUrl'), { onUserChanged: () => undefined, onReset: () => undefined }, (error) => {
      failures.push(error);
    });
    await waitUntil(() => listener!.isListening());
    // Each asks at a later moment than the one before, so each needs a proof sent after the ones already running.
    const waits = Array.from({ length: 8 }, () => {
      const after = performance.now();
      return listener!.confirmAfter(after).then(() => ({ after, confirmedAt: listener!.confirmedAt() }));
    });
    for (const { after, confirmedAt } of await Promise.all(waits)) expect(confirmedAt).toBeGreaterThanOrEqual(after);
    expect(queries.mostAtOnce()).toBe(1);
    expect(failures).toEqual([]);
  });
});

interface QueryWatch {
  /** The most queries any one pg client had sent and not yet seen answered, since the watch started. */
  mostAtOnce(): number;
  stop(): void;
}

/** Counts, per pg client, the queries sent and not yet answered (pg's own query(), forwarded unchanged). */
function watchQueries(): QueryWatch {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const running = new WeakMap<object, number>();
  let most = 0;
  prototype.query = function (this: object, ...args: unknown[]) {
    const result = original.apply(this, args);
    if (!(result instanceof Promise)) return result;
    const count = (running.get(this) ?? 0) + 1;
    running.set(this, count);
    most = Math.max(most, count);
    const settled = () => running.set(this, running.get(this)! - 1);
    result.then(settled, settled);
    return result;
  };
  return { mostAtOnce: () => most, stop: () => void (prototype.query = original) };
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
