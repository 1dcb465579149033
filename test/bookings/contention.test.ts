import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

/**
 * Bursts of bookings on overlapping slots of one host end in 201 or 409 only (no 500 from a deadlock, no 503
 * from a stall), with exactly as many 201s as the calendar has room for, and quickly. test/bookings/concurrency.test.ts
 * proves the same per kind with smaller bursts; this is the storm. How long the answers take is measured by
 * `npm run chaos`, not asserted here: timed tests fail on a busy machine without a fault in the code.
 */

const NOW = '2026-03-01T12:00:00Z';
const BURST = 200;

/** 30-minute slots on a 15-minute grid: each pair overlaps, pairs do not, so exactly one booking per pair fits. */
const PAIRS = ['10:00', '11:00', '12:00', '13:00', '14:00'].map((time) => [
  `2026-03-02T${time}:00Z`,
  `2026-03-02T${time.slice(0, 2)}:15:00Z`,
]);

describe(`${BURST} concurrent bookings on overlapping slots`, () => {
  let t: TestApp;

  beforeAll(async () => {
    // The service's own pool size: with 20 transactions at once the deadlocks showed, with the tests' 10 rarely.
    t = await startTestApp({ clock: fixedClock(NOW), poolMax: 20 });
  });
  afterAll(() => t.close());

  async function host(): Promise<TestUser> {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    return user;
  }

  function book(token: string, eventTypeId: string, start: string): Promise<Response> {
    return t.http
      .post('/api/v2/bookings')
      .set(...bearer(token))
      .send({ eventTypeId, start, durationMin: 30, invitee: invitee() });
  }

  function tally(results: Response[]): Record<number, number> {
    const statuses: Record<number, number> = {};
    for (const res of results) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    return statuses;
  }

  function expectOnlyCreatedOrConflict(results: Response[]): void {
    const others = results.filter((res) => res.status !== 201 && res.status !== 409).map((res) => `${res.status} ${res.text}`);
    expect(others).toEqual([]);
  }

  async function activeBlocks(hostIds: string[]): Promise<number> {
    const [row] = await t.em().execute<{ n: number }[]>(
      'select count(*)::int as n from busy_block where host_id in (?) and active',
      [hostIds],
    );
    return row!.n;
  }

  it('one host, one event type: exactly one 201 per pair of overlapping slots, the rest 409', async () => {
    const owner = await host();
    const eventTypeId = (await createEventType(t.em(), owner.id, { slotIntervalMin: 15 })).id;
    const starts = Array.from({ length: BURST }, (_, i) => PAIRS[i % PAIRS.length]![Math.floor(i / PAIRS.length) % 2]!);
    const results = await Promise.all(starts.map((start) => book(owner.token, eventTypeId, start)));
    expectOnlyCreatedOrConflict(results);
    expect(tally(results)).toEqual({ 201: PAIRS.length, 409: BURST - PAIRS.length });
    expect(await activeBlocks([owner.id])).toBe(PAIRS.length);
  });

  it('two hosts shared by collective, round-robin and one-on-one event types: 201 or 409 only, never an overlap', async () => {
    const [first, second] = [await host(), await host()];
    const collective = (await createEventType(t.em(), first!.id, { kind: 'collective', hosts: [first!.id, second!.id], slotIntervalMin: 15 })).id;
    const roundRobin = (await createEventType(t.em(), second!.id, { kind: 'round_robin', hosts: [second!.id, first!.id], slotIntervalMin: 15 })).id;
    const soloFirst = (await createEventType(t.em(), first!.id, { slotIntervalMin: 15 })).id;
    const soloSecond = (await createEventType(t.em(), second!.id, { slotIntervalMin: 15 })).id;
    const kinds = [
      { token: first!.token, eventTypeId: collective },
      { token: second!.token, eventTypeId: roundRobin },
      { token: first!.token, eventTypeId: soloFirst },
      { token: second!.token, eventTypeId: soloSecond },
    ];
    const results = await Promise.all(
      Array.from({ length: BURST }, (_, i) => {
        const { token, eventTypeId } = kinds[i % kinds.length]!;
        const pair = PAIRS[Math.floor(i / kinds.length) % PAIRS.length]!;
        return book(token, eventTypeId, pair[Math.floor(i / (kinds.length * PAIRS.length)) % 2]!);
      }),
    );
    expectOnlyCreatedOrConflict(results);
    // Each host has room for one booking per pair; every 201 took at least one host's room.
    const created = tally(results)[201] ?? 0;
    expect(created).toBeGreaterThanOrEqual(PAIRS.length);
    expect(created).toBeLessThanOrEqual(2 * PAIRS.length);
    expect(await activeBlocks([first!.id, second!.id])).toBe(2 * PAIRS.length);
  });
});
