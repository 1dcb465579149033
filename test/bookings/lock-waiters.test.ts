import pg from 'pg';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_TIMEOUTS } from '../../src/config/timeouts.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';

/**
 * Bookings that wait for a host's calendar must not hold pooled connections while they wait: when they did, a
 * host whose calendar was busy (a booking in progress on another instance) filled a small pool with waiters,
 * and every other request of the instance, bookings of other hosts included, timed out acquiring a connection
 * (503) although the database was fine.
 */

const NOW = '2026-03-01T12:00:00Z';
const POOL = 4;
const PER_HOST = 40;
const SLOTS = ['10:00', '10:30', '11:00', '11:30', '12:00'].map((time) => `2026-03-02T${time}:00Z`);
/** Longer than a pool acquisition may wait: a waiter holding a connection that long starves the pool. */
const HELD_MS = DATABASE_TIMEOUTS.acquireMs + 500;

describe('bookings waiting for a busy calendar', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), poolMax: POOL });
  });
  afterAll(() => t.close());

  async function host(): Promise<TestUser & { eventTypeId: string }> {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    return { ...user, eventTypeId: (await createEventType(t.em(), user.id)).id };
  }

  function book(owner: { token: string; eventTypeId: string }, start: string): Promise<Response> {
    return t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({ eventTypeId: owner.eventTypeId, start, durationMin: 30, invitee: invitee() });
  }

  /**
   * Holds a host's calendar lock from a connection of its own, as a booking in progress elsewhere does, until
   * `release` settles.
   */
  async function holdCalendar(hostId: string, release: Promise<unknown>): Promise<void> {
    const client = new pg.Client({ connectionString: t.database.url });
    await client.connect();
    try {
      await client.query('begin');
      // The key booking-transaction.ts's lockHostCalendars takes.
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`host-calendar:${hostId}`]);
      await release;
      await client.query('rollback');
    } finally {
      await client.end();
    }
  }

  function statuses(results: Response[]): Record<number, number> {
    const tally: Record<number, number> = {};
    for (const res of results) tally[res.status] = (tally[res.status] ?? 0) + 1;
    return tally;
  }

  it(`a busy host's bookings wait without their connections: ${2 * PER_HOST} bookings on a pool of ${POOL} end in 201 or 409`, async () => {
    const [busy, free] = [await host(), await host()];
    let busyAnswered!: (answers: Promise<Response[]>) => void;
    const busyAnswers = new Promise<Response[]>((resolve) => (busyAnswered = resolve));
    // Also until the busy host's last booking is answered, so that none can start after the release on a loaded machine.
    const held = holdCalendar(busy.id, Promise.all([new Promise((resolve) => setTimeout(resolve, HELD_MS)), busyAnswers]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const requests = Array.from({ length: PER_HOST }, (_, i) => [
      book(busy, SLOTS[i % SLOTS.length]!),
      book(free, SLOTS[i % SLOTS.length]!),
    ]);
    busyAnswered(Promise.all(requests.map(([b]) => b!)));
    const [busyResults, freeResults] = [await busyAnswers, await Promise.all(requests.map(([, f]) => f!))];
    await held;

    const unexpected = [...busyResults, ...freeResults].filter((res) => res.status !== 201 && res.status !== 409);
    expect(unexpected.map((res) => `${res.status} ${res.text}`)).toEqual([]);
    // The busy host's calendar stayed locked longer than any booking waits for it; the free host's slots all went.
    expect(statuses(busyResults)).toEqual({ 409: PER_HOST });
    expect(statuses(freeResults)).toEqual({ 201: SLOTS.length, 409: PER_HOST - SLOTS.length });
  });
});
