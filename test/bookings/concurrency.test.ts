import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BOOKING_CONTENTION } from '../../src/config/timeouts.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';

/**
 * These races are about who wins, not about how long a queue may wait: every loser must get its turn and learn
 * that the slot is taken, however slow a loaded machine makes each turn. On such a machine the 59 turns behind
 * one winner outlast the default 2 s wait (BOOKING_WAIT_MS, read once at import), and the last ones answer the
 * busy calendar's 409 instead; that budget is tested in lock-waiters.test.ts and test/faults/timeouts.test.ts.
 */
const WAIT_BEFORE = vi.hoisted(() => {
  const before = process.env.BOOKING_WAIT_MS;
  process.env.BOOKING_WAIT_MS = '25000';
  return before;
});
if (WAIT_BEFORE === undefined) delete process.env.BOOKING_WAIT_MS;
else process.env.BOOKING_WAIT_MS = WAIT_BEFORE;

const NOW = '2026-03-01T12:00:00Z';
const CONCURRENT = 60;

describe('concurrent POST /api/v2/bookings never double-books', () => {
  let t: TestApp;

  beforeAll(async () => {
    expect(BOOKING_CONTENTION.hostLockMs, 'the wait these races run with').toBe(25_000);
    t = await startTestApp({ clock: fixedClock(NOW) });
  });
  afterAll(() => t.close());

  /** A fresh owner (so every case has its own host and calendar) with one event type. */
  async function ownerWith(options: EventTypeOptions): Promise<{ owner: TestUser; eventTypeId: string }> {
    const owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    return { owner, eventTypeId: (await createEventType(t.em(), owner.id, options)).id };
  }

  function fire(owner: TestUser, eventTypeId: string, starts: string[], durationMin = 30) {
    return Promise.all(
      starts.map((start) =>
        t.http
          .post('/api/v2/bookings')
          .set(...bearer(owner.token))
          .send({ eventTypeId, start, durationMin, invitee: invitee() }),
      ),
    );
  }

  async function counts(hostIds: string[]) {
    const [row] = await t.em().execute(
      `select (select count(*)::int from booking where host_id in (?) and status = 'active') as bookings,
              (select count(*)::int from busy_block where host_id in (?) and active) as blocks`,
      [hostIds, hostIds],
    );
    return row as { bookings: number; blocks: number };
  }

  const statuses = (responses: { status: number }[]) =>
    responses.reduce<Record<number, number>>((acc, res) => {
      acc[res.status] = (acc[res.status] ?? 0) + 1;
      return acc;
    }, {});

  it(`${CONCURRENT} requests for one free slot: exactly one 201, the rest 409`, async () => {
    const { owner, eventTypeId } = await ownerWith({});
    const responses = await fire(owner, eventTypeId, Array(CONCURRENT).fill('2026-03-02T10:00:00Z'));
    expect(statuses(responses)).toEqual({ 201: 1, 409: CONCURRENT - 1 });
    for (const res of responses.filter((r) => r.status === 409)) {
      expect(res.body).toEqual({ title: 'Conflict', message: expect.stringMatching(/taken/) });
    }
    expect(await counts([owner.id])).toEqual({ bookings: 1, blocks: 1 });
  });

  it('requests for overlapping slots with different starts: exactly one wins', async () => {
    // 30-minute slots every 15 minutes: 10:00, 10:15 and 10:30 overlap the first two pairwise only,
    // so among 10:00 and 10:15 at most one can win.
    const { owner, eventTypeId } = await ownerWith({ slotIntervalMin: 15 });
    const starts = Array.from({ length: CONCURRENT }, (_, i) => (i % 2 === 0 ? '2026-03-02T10:00:00Z' : '2026-03-02T10:15:00Z'));
    const responses = await fire(owner, eventTypeId, starts);
    expect(statuses(responses)).toEqual({ 201: 1, 409: CONCURRENT - 1 });
    expect(await counts([owner.id])).toEqual({ bookings: 1, blocks: 1 });
  });

  it('slots that only overlap through their buffers: exactly one wins', async () => {
    const { owner, eventTypeId } = await ownerWith({ bufferAfterMin: 15 });
    const starts = Array.from({ length: CONCURRENT }, (_, i) => (i % 2 === 0 ? '2026-03-02T10:00:00Z' : '2026-03-02T10:30:00Z'));
    const responses = await fire(owner, eventTypeId, starts);
    expect(statuses(responses)).toEqual({ 201: 1, 409: CONCURRENT - 1 });
    expect(await counts([owner.id])).toEqual({ bookings: 1, blocks: 1 });
  });

  it('two event types of one owner race for the same time: the host is still booked once', async () => {
    const { owner, eventTypeId } = await ownerWith({});
    const second = (await createEventType(t.em(), owner.id, { durationsMin: [60] })).id;
    const responses = await Promise.all([
      fire(owner, eventTypeId, Array(CONCURRENT / 2).fill('2026-03-02T11:00:00Z')),
      fire(owner, second, Array(CONCURRENT / 2).fill('2026-03-02T11:00:00Z'), 60),
    ]);
    expect(statuses(responses.flat())).toEqual({ 201: 1, 409: CONCURRENT - 1 });
    expect(await counts([owner.id])).toEqual({ bookings: 1, blocks: 1 });
  });

  it('a group slot with 3 seats under concurrency: exactly 3 bookings share one block', async () => {
    const { owner, eventTypeId } = await ownerWith({ kind: 'group', seatsPerSlot: 3 });
    const responses = await fire(owner, eventTypeId, Array(CONCURRENT).fill('2026-03-02T10:00:00Z'));
    expect(statuses(responses)).toEqual({ 201: 3, 409: CONCURRENT - 3 });
    expect(await counts([owner.id])).toEqual({ bookings: 3, blocks: 1 });
    const [block] = await t.em().execute(
      `select bb.seats_taken, count(l.booking_id)::int as links
         from busy_block bb join booking_busy_block l on l.busy_block_id = bb.id
        where bb.host_id = ? group by bb.id`,
      [owner.id],
    );
    expect(block).toEqual({ seats_taken: 3, links: 3 });
  });

  it('a round-robin slot with 2 hosts under concurrency: exactly 2 bookings, one per host', async () => {
    const owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const colleague = await createUserWithToken(t.em(), { timezone: 'UTC' });
    for (const user of [owner, colleague]) await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    const eventTypeId = (await createEventType(t.em(), owner.id, { kind: 'round_robin', hosts: [owner.id, colleague.id] })).id;
    const responses = await fire(owner, eventTypeId, Array(CONCURRENT).fill('2026-03-02T10:00:00Z'));
    expect(statuses(responses)).toEqual({ 201: 2, 409: CONCURRENT - 2 });
    const hosts = await t.em().execute<{ host_id: string }[]>('select host_id from booking where event_type_id = ? order by host_id', [eventTypeId]);
    expect(hosts.map((row: { host_id: string }) => row.host_id)).toEqual([owner.id, colleague.id].sort());
  });

  it('a collective slot raced by a one-on-one booking of one of its hosts: never both', async () => {
    const owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const colleague = await createUserWithToken(t.em(), { timezone: 'UTC' });
    for (const user of [owner, colleague]) await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    const collective = (await createEventType(t.em(), owner.id, { kind: 'collective', hosts: [owner.id, colleague.id] })).id;
    const solo = (await createEventType(t.em(), colleague.id)).id;
    const responses = await Promise.all([
      fire(owner, collective, Array(CONCURRENT / 2).fill('2026-03-02T10:00:00Z')),
      fire(colleague, solo, Array(CONCURRENT / 2).fill('2026-03-02T10:00:00Z')),
    ]);
    const all = responses.flat();
    expect(all.filter((res) => res.status === 201)).toHaveLength(1);
    expect(all.filter((res) => res.status !== 201 && res.status !== 409)).toEqual([]);
    const { blocks } = await counts([owner.id, colleague.id]);
    const collectiveWon = responses[0]!.some((res) => res.status === 201);
    expect(blocks).toBe(collectiveWon ? 2 : 1);
  });
});
