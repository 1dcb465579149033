/**
 * The transaction every write of busy time runs in (booking, public booking, rescheduling). Contention must end
 * quickly in a 201/200 or a 409, never in a 500 or a stall, so bookings of one host take turns: first in memory
 * (`hostTurns`, holding no pooled connection, so waiters cannot starve the pool), then on a per-host advisory
 * lock in sorted id order (so overlapping inserts cannot deadlock inside the exclusion constraint's check). Every
 * wait is bounded, and the exclusion constraint keeps the last word. The rules: docs/operations.md, "Contention".
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BOOKING_CONTENTION } from '../../config/timeouts.ts';
import { DomainError } from '../../lib/errors.ts';
import { createKeyedMutex, type Release } from '../../lib/keyed-mutex.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { slotTaken } from '../availability/slot-decision.ts';

/** PostgreSQL deadlock_detected and serialization_failure: the transaction may simply be run again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const LOCK_NOT_AVAILABLE = '55P03';
const EXCLUSION_VIOLATION = '23P01';

/** This process's turns on the hosts' calendars, by host id. */
const hostTurns = createKeyedMutex();

/** The hosts whose turn a booking transaction holds in this process (until it ends, whatever the attempt). */
interface Turns {
  hostIds: string[];
  release: Release;
  /** The hosts the transaction's work asked for (lockHostCalendars): the hint for the next one of its key. */
  needed?: string[];
  /** When every lock wait of the booking must have ended (epoch ms): its one budget for them. */
  waitUntil?: number;
}

/**
 * Hint key (an event type id) -> the hosts the last booking transaction of that key needed, most recently used
 * last. A hinted transaction queues for those hosts' turns before it opens, so under contention its first attempt
 * usually holds its turn instead of rolling back once. A stale hint only queues in the wrong place: the check
 * inside the transaction takes the turns actually needed.
 */
const hostHints = new Map<string, string[]>();
const MAX_HOST_HINTS = 10_000;

function rememberHosts(key: string, hostIds: string[]): void {
  hostHints.delete(key);
  hostHints.set(key, hostIds);
  if (hostHints.size > MAX_HOST_HINTS) hostHints.delete(hostHints.keys().next().value!);
}

/** Which turns the running transaction holds: `lockHostCalendars` gets the transaction, not the booking. */
const turnsOfTransaction = new WeakMap<EntityManager, Turns>();

/** Thrown inside the transaction when another booking of this instance has the turn of one of these hosts. */
class WaitForTurn extends Error {
  readonly hostIds: string[];
  constructor(hostIds: string[]) {
    super('hosts busy in this process');
    this.hostIds = hostIds;
  }
}

export async function bookingTransaction<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
  deadline?: AbortSignal,
  /** What the hosts are most likely a function of (the event type's id): see `hostHints`. */
  hostsHint?: string,
): Promise<T> {
  const turns: Turns = { hostIds: [], release: () => {} };
  // From the wait for its turn in memory, or else from when the first attempt has its connection: the wait for
  // a connection is bounded on its own (a 503).
  let waitUntil: number | undefined;
  try {
    const hinted = hostsHint === undefined ? undefined : hostHints.get(hostsHint);
    if (hinted) {
      waitUntil = Date.now() + BOOKING_CONTENTION.hostLockMs;
      await waitForTurn(turns, hinted, waitUntil);
    }
    for (let attempt = 1; ; ) {
      try {
        return await em.transactional(async (tx) => {
          waitUntil ??= Date.now() + BOOKING_CONTENTION.hostLockMs;
          // One budget for all the waits of a booking, set with its first lock (lockHostCalendars): no lock is
          // waited for before the hosts' locks, and the statement saved is a round trip of every booking.
          turns.waitUntil = waitUntil;
          turnsOfTransaction.set(tx, turns);
          const result = await work(tx);
          // The client was already told 503: roll back rather than book a slot nobody knows they have.
          deadline?.throwIfAborted();
          return result;
        });
      } catch (error) {
        if (error instanceof WaitForTurn) {
          // Rolled back: the connection is back in the pool while this booking waits.
          await waitForTurn(turns, error.hostIds, waitUntil!);
          continue;
        }
        const code = sqlState(error);
        if (code !== undefined && RETRYABLE_SQLSTATES.has(code) && attempt++ < BOOKING_CONTENTION.attempts) {
          await pause(BOOKING_CONTENTION.retryJitterMs);
          continue;
        }
        throw contentionError(code) ?? error;
      }
    }
  } finally {
    if (hostsHint !== undefined && turns.needed) rememberHosts(hostsHint, turns.needed);
    turns.release();
  }
}

async function waitForTurn(turns: Turns, hostIds: string[], waitUntil: number): Promise<void> {
  turns.release();
  turns.hostIds = [];
  turns.release = () => {};
  try {
    turns.release = await hostTurns.lock(hostIds, AbortSignal.timeout(Math.max(0, waitUntil - Date.now())));
  } catch {
    throw calendarsBusy();
  }
  turns.hostIds = hostIds;
}

/**
 * This instance's turn on these hosts' calendars, when the transaction does not hold it yet: taken at once, or
 * the transaction is rolled back to wait for it (WaitForTurn). Never waits while holding a connection.
 */
function takeTurns(turns: Turns, hostIds: string[]): void {
  turns.needed = turns.needed ? [...new Set([...turns.needed, ...hostIds])].sort() : hostIds;
  const missing = hostIds.filter((id) => !turns.hostIds.includes(id));
  if (missing.length === 0) return;
  const release = hostTurns.tryLock(missing);
  if (!release) throw new WaitForTurn([...new Set([...turns.hostIds, ...hostIds])]);
  const previous = turns.release;
  turns.hostIds = [...turns.hostIds, ...missing];
  turns.release = () => {
    previous();
    release();
  };
}

/** The 409 a lost race ends in, or undefined when the error is not about contention. */
function contentionError(code: string | undefined): DomainError | undefined {
  if (code === EXCLUSION_VIOLATION) return slotTaken();
  if (code === LOCK_NOT_AVAILABLE) return calendarsBusy();
  if (code !== undefined && RETRYABLE_SQLSTATES.has(code)) {
    return new DomainError('conflict', 'Another change to the same time got in the way. Check /availability and retry.');
  }
  return undefined;
}

function calendarsBusy(): DomainError {
  return new DomainError(
    'conflict',
    'Other bookings of the same calendar (or with the same Idempotency-Key) are in progress. Check /availability and retry.',
  );
}

/** One prepared statement for any number of hosts; the locks are taken in the array's (sorted) order. */
const hostLocksSql = (from: string) => `select pg_advisory_xact_lock(hashtextextended(lock_key, 0))
       from ${from}unnest(?::text[]) with ordinality as host_lock(lock_key, position)
      order by position`;
const HOST_LOCKS_SQL = hostLocksSql('');
/**
 * The same, first bounding every lock wait of the transaction (`set local lock_timeout`; SET takes no parameters).
 * The one-row subquery is joined before any lock is asked for (its volatile select list keeps it a subquery).
 */
const BOUNDED_HOST_LOCKS_SQL = hostLocksSql(`(select set_config('lock_timeout', ?, true)) as bound, `);

/**
 * The same, deleting first the hosts' busy blocks of slot holds that ended by `now` (parameters: hosts, now, lock
 * keys), in the same round trip. The exclusion constraint cannot know that a hold ended, so a writer must take its
 * blocks out before inserting. Deleting an ended hold's block needs no lock (every reader already leaves it out);
 * a hold made while this waited for the locks ended only if its own transaction outlasted its lifetime.
 */
const purging = (locks: string) => `with ended as (
       delete from busy_block where host_id = any(?::text[]) and hold_id is not null and hold_expires_at <= ?
     )
     ${locks}`;
const HOST_LOCKS_PURGING_SQL = purging(HOST_LOCKS_SQL);
const BOUNDED_HOST_LOCKS_PURGING_SQL = purging(BOUNDED_HOST_LOCKS_SQL);

/**
 * Serialises the busy-time writes of these hosts with every other transaction's, in one order (no deadlock):
 * first this instance's turn (in a booking transaction), then the advisory locks shared by all instances. With
 * `now` (every writer of busy blocks), the hosts' slot holds that ended by then are deleted with it.
 */
export async function lockHostCalendars(tx: EntityManager, hostIds: readonly string[], now?: Date): Promise<void> {
  const sorted = [...new Set(hostIds)].sort();
  const turns = turnsOfTransaction.get(tx);
  if (turns) takeTurns(turns, sorted);
  if (sorted.length === 0) return;
  const lockKeys = sorted.map((hostId) => `host-calendar:${hostId}`);
  // Within a booking transaction, the milliseconds left of its budget (0 would mean no limit at all).
  const bound = turns?.waitUntil === undefined ? [] : [String(Math.max(1, turns.waitUntil - Date.now()))];
  if (now === undefined) {
    await executePrepared(tx, 'booking.host-locks', bound.length ? BOUNDED_HOST_LOCKS_SQL : HOST_LOCKS_SQL, [...bound, lockKeys]);
  } else {
    const sql = bound.length ? BOUNDED_HOST_LOCKS_PURGING_SQL : HOST_LOCKS_PURGING_SQL;
    await executePrepared(tx, 'booking.host-locks-purging', sql, [sorted, now, ...bound, lockKeys]);
  }
}

/** PostgreSQL exclusion_violation (23P01), wherever the driver or the ORM put it in the cause chain. */
export function isExclusionViolation(error: unknown): boolean {
  return sqlState(error) === EXCLUSION_VIOLATION;
}

/** The SQLSTATE of a PostgreSQL error, wherever the driver or the ORM put it in the cause chain. */
function sqlState(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = typeof current === 'object' ? (current as { code?: unknown }).code : undefined;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function pause({ min, max }: { min: number; max: number }): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, min + Math.random() * (max - min)));
}
