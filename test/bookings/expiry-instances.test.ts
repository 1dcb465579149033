/**
 * The pending-expiry batches of two instances at once, sharing invitees: each batch declines its requests in one
 * transaction, refreshing each invitee's contact under that contact's lock until the commit. Taken in the order of
 * the requests' starts, two batches whose invitees come in opposite orders each held one lock and waited for the
 * other's (a deadlock: one batch rolled back, the worker logged a failed poll). Here the interleaving is forced
 * with real locks: a third connection holds the first invitee's contact lock until both batches wait.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { declineUnconfirmed } from '../../src/modules/bookings/booking-confirmation.service.ts';
import { contactLockKey } from '../../src/modules/contacts/contacts.projection.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createBooking, createEventType } from '../helpers/booking-factories.ts';
import { createUserWithToken } from '../helpers/factories.ts';

const X = 'a.xavier@example.test';
const Y = 'b.yara@example.test';

describe('pending requests expiring on two instances at once', () => {
  let database: TestDatabase;
  let first: Orm;
  let second: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await initOrm(database.url, { poolMax: 2 });
    second = await initOrm(database.url, { poolMax: 2 });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await database?.drop();
  });

  /** Waits until `count` connections of this database wait for an advisory lock. */
  async function waitersOnLocks(watcher: pg.Client, count: number): Promise<void> {
    for (const until = Date.now() + 5_000; Date.now() < until; ) {
      const { rows } = await watcher.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
      );
      if (rows[0]!.n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`fewer than ${count} connections waited for a lock`);
  }

  it('two batches with invitees in opposite orders both decline theirs, without a deadlock', async () => {
    const host = await createUserWithToken(first.em.fork(), { timezone: 'UTC' });
    const eventType = await createEventType(first.em.fork(), host.id, { requiresConfirmation: true });
    // By start: the first batch (of two) is X then Y, the second Y then X.
    const invitees = [X, Y, Y, X];
    const bookings = [];
    for (const [i, email] of invitees.entries()) {
      bookings.push(await createBooking(first.em.fork(), { eventType, status: 'pending', startAt: `2026-12-01T1${i}:00:00Z`, invitee: { email } }));
    }
    const now = new Date('2026-12-02T00:00:00Z');

    const locker = new pg.Client({ connectionString: database.url });
    const watcher = new pg.Client({ connectionString: database.url });
    await Promise.all([locker.connect(), watcher.connect()]);
    let runs: PromiseSettledResult<number>[];
    try {
      await locker.query('begin');
      await locker.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [contactLockKey(host.id, X)]);
      const firstRun = declineUnconfirmed(first.em.fork(), now, 2);
      await waitersOnLocks(watcher, 1);
      const secondRun = declineUnconfirmed(second.em.fork(), now, 2);
      await waitersOnLocks(watcher, 2);
      await locker.query('commit');
      runs = await Promise.allSettled([firstRun, secondRun]);
    } finally {
      await Promise.all([locker.end(), watcher.end()]);
    }

    expect(runs).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'fulfilled', value: 2 },
    ]);
    const rows = await first.em.fork().execute<{ id: string; status: string }[]>('select id, status from booking where owner_id = ? order by start_at', [host.id]);
    expect(rows).toEqual(bookings.map((booking) => ({ id: booking.id, status: 'declined' })));
  });
});
