import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { BOOKING_CONTENTION } from '../../config/timeouts.ts';
import { DomainError } from '../../lib/errors.ts';
import { bookingTransaction, lockHostCalendars } from './booking-transaction.ts';

/**
 * How a booking transaction's failures end. Deadlocks do not happen between bookings (they take turns on the
 * hosts' calendar locks, see test/bookings/contention.test.ts), so the retry policy is checked here on its own:
 * each attempt runs the work in a "transaction" that fails as told.
 */

const pgError = (code: string) => Object.assign(new Error(`SQLSTATE ${code}`), { code });
/** As MikroORM wraps a driver error. */
const wrapped = (code: string) => Object.assign(new Error('query failed'), { cause: pgError(code) });

interface Statement {
  text: string;
  params: readonly unknown[];
}

/**
 * A transaction that records its statements and answers no rows: through `execute`, and through the transaction
 * context's connection that executePrepared (src/lib/prepared-sql.ts) sends named statements on.
 */
function fakeTransaction(statements: Statement[] = []): EntityManager {
  const executeQuery = async (query: { sql: { text: string }; parameters: unknown[] }) => {
    statements.push({ text: query.sql.text, params: query.parameters });
    return { rows: [] };
  };
  return {
    execute: async (text: string, params: unknown[] = []) => {
      statements.push({ text, params });
      return [];
    },
    getTransactionContext: () => ({ getExecutor: () => ({ provideConnection: (consume: (connection: object) => unknown) => consume({ executeQuery }) }) }),
  } as unknown as EntityManager;
}

function run(failures: unknown[], deadline?: AbortSignal) {
  let attempts = 0;
  const statements: Statement[] = [];
  const tx = fakeTransaction(statements);
  const em = {
    transactional: async <T>(work: (tx: EntityManager) => Promise<T>) => work(tx),
  } as unknown as EntityManager;
  const result = bookingTransaction(
    em,
    async () => {
      const failure = failures[attempts++];
      if (failure) throw failure;
      return 'booked';
    },
    deadline,
  );
  return { result, attempts: () => attempts, statements };
}

async function conflictMessage(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect((error as DomainError).code).toBe('conflict');
  return (error as DomainError).message;
}

describe('bookingTransaction', () => {
  it('bounds its lock waits with its first lock, in the same statement', async () => {
    const statements: Statement[] = [];
    const em = {
      transactional: async <T>(work: (tx: EntityManager) => Promise<T>) => work(fakeTransaction(statements)),
    } as unknown as EntityManager;
    await bookingTransaction(em, (tx) => lockHostCalendars(tx, ['host-z', 'host-y']));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/^select pg_advisory_xact_lock\(.*\(select set_config\('lock_timeout', \$1, true\)\) as bound, unnest\(\$2::text\[\]\)/s);
    const [ms, keys] = statements[0]!.params;
    expect(Number(ms)).toBeGreaterThan(BOOKING_CONTENTION.hostLockMs - 100);
    expect(Number(ms)).toBeLessThanOrEqual(BOOKING_CONTENTION.hostLockMs);
    expect(keys).toEqual(['host-calendar:host-y', 'host-calendar:host-z']);
  });

  it("outside a booking transaction, takes the locks under the connection's own lock timeout", async () => {
    const statements: Statement[] = [];
    await lockHostCalendars(fakeTransaction(statements), ['host-x']);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).not.toContain('set_config');
  });

  it.each([
    ['a deadlock', '40P01'],
    ['a serialization failure', '40001'],
  ])('retries %s and succeeds when a later attempt does', async (_label, code) => {
    const { result, attempts } = run([wrapped(code), pgError(code)]);
    expect(await result).toBe('booked');
    expect(attempts()).toBe(3);
  });

  it(`gives up after ${BOOKING_CONTENTION.attempts} attempts with a 409`, async () => {
    const { result, attempts } = run(Array(10).fill(wrapped('40P01')));
    expect(await conflictMessage(result)).toMatch(/got in the way.*retry/);
    expect(attempts()).toBe(BOOKING_CONTENTION.attempts);
  });

  it('a calendar locked past the lock timeout is a 409 at once', async () => {
    const { result, attempts } = run([wrapped('55P03')]);
    expect(await conflictMessage(result)).toMatch(/in progress.*retry/);
    expect(attempts()).toBe(1);
  });

  it('an overlap caught by the exclusion constraint is a 409 at once', async () => {
    const { result, attempts } = run([wrapped('23P01')]);
    expect(await conflictMessage(result)).toMatch(/just taken/);
    expect(attempts()).toBe(1);
  });

  it('anything else goes through untouched and is not retried', async () => {
    const outage = pgError('57P01');
    const { result, attempts } = run([outage]);
    await expect(result).rejects.toBe(outage);
    expect(attempts()).toBe(1);
  });

  it('does not commit once the request deadline has passed', async () => {
    const controller = new AbortController();
    const reason = new Error('deadline');
    controller.abort(reason);
    const { result } = run([], controller.signal);
    await expect(result).rejects.toBe(reason);
  });
});

describe('bookings of one host in one process', () => {
  /** Transactions on fake connections, counting those open. */
  function connections() {
    let open = 0;
    const em = {
      transactional: async <T>(work: (tx: EntityManager) => Promise<T>) => {
        open++;
        try {
          return await work(fakeTransaction());
        } finally {
          open--;
        }
      },
    } as unknown as EntityManager;
    return { em, open: () => open };
  }

  /** A booking that holds its turn on `hostIds` until the returned function is called. */
  async function holdingTurn(em: EntityManager, hostIds: string[], hint?: string): Promise<() => void> {
    let finish = () => {};
    await new Promise<void>((started) => {
      void bookingTransaction(em, async (tx) => {
        await lockHostCalendars(tx, hostIds);
        started();
        await new Promise<void>((resolve) => (finish = resolve));
      }, undefined, hint);
    });
    return finish;
  }

  /** A booking of `hostIds` that records each attempt's start and when it has its turn. */
  function recordedBooking(em: EntityManager, hostIds: string[], hint?: string): { runs: string[]; booked: Promise<string> } {
    const runs: string[] = [];
    const booked = bookingTransaction(em, async (tx) => {
      runs.push('started');
      await lockHostCalendars(tx, hostIds);
      runs.push('has its turn');
      return 'booked';
    }, undefined, hint);
    return { runs, booked };
  }

  it('wait for their turn without a connection, then run again and get it', async () => {
    const { em, open } = connections();
    const finishFirst = await holdingTurn(em, ['host-b', 'host-a']);
    const second = recordedBooking(em, ['host-a']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.runs).toEqual(['started']);
    expect(open(), 'transactions open while the second waits').toBe(1);

    finishFirst();
    expect(await second.booked).toBe('booked');
    expect(second.runs).toEqual(['started', 'started', 'has its turn']);
  });

  it('with a hint from an earlier booking of the same key, wait for their turn before opening a transaction', async () => {
    const { em, open } = connections();
    const key = 'event-type-hinted';
    // An earlier booking of the key tells which hosts the next ones need.
    await bookingTransaction(em, (tx) => lockHostCalendars(tx, ['host-c']), undefined, key);
    const finishFirst = await holdingTurn(em, ['host-c'], key);
    const second = recordedBooking(em, ['host-c'], key);
    await new Promise((resolve) => setImmediate(resolve));
    expect(second.runs, 'no transaction opened while the turn is taken').toEqual([]);
    expect(open()).toBe(1);

    finishFirst();
    expect(await second.booked).toBe('booked');
    expect(second.runs, 'one attempt: it held its turn from the start').toEqual(['started', 'has its turn']);
  });

  it('with a stale hint, the check in the transaction still takes or waits for the turns actually needed', async () => {
    const { em } = connections();
    const key = 'event-type-rehosted';
    await bookingTransaction(em, (tx) => lockHostCalendars(tx, ['host-e']), undefined, key);
    // The event type now has another host, whose turn another booking holds.
    const finishOther = await holdingTurn(em, ['host-f']);
    const booking = recordedBooking(em, ['host-f'], key);
    await new Promise((resolve) => setImmediate(resolve));
    expect(booking.runs).toEqual(['started']);

    finishOther();
    expect(await booking.booked).toBe('booked');
    expect(booking.runs).toEqual(['started', 'started', 'has its turn']);
  });
});
