import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createBooking, createEventType, type EventTypeOptions, type TestEventType } from '../helpers/booking-factories.ts';

// Sunday 2026-03-01 12:00 UTC. The hosts work 9 to 5 on weekdays in New York (14:00–22:00 UTC on Monday 2 March).
const NOW = '2026-03-01T12:00:00Z';
const MONDAY_9AM = '2026-03-02T14:00:00Z';

describe('GET /api/v2/availability/explain', () => {
  let t: TestApp;
  let owner: TestUser;
  let colleague: TestUser;
  let stranger: TestUser;

  const explain = (query: Record<string, string | number>, user: TestUser = owner) =>
    t.http.get('/api/v2/availability/explain').query(query).set(...bearer(user.token));
  const eventTypeFor = (options: EventTypeOptions = {}, user: TestUser = owner) => createEventType(t.em(), user.id, options);

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW) });
    owner = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    colleague = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
    // Tuesday 3 March is off; on Wednesday 4 March the owner works 10 to 12 only.
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5, [
      { date: '2026-03-03', intervals: [] },
      { date: '2026-03-04', intervals: [{ start: '10:00', end: '12:00' }] },
    ]);
    await setSchedule(t.em(), colleague.id, WEEKDAYS_9_TO_5);
  });
  afterAll(() => t.close());

  it('answers an offered slot as available, with no reasons', async () => {
    const eventType = await eventTypeFor({ durationsMin: [30, 60] });
    const res = await explain({ eventTypeId: eventType.id, start: MONDAY_9AM, durationMin: 60 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      available: true,
      start: '2026-03-02T14:00:00.000Z',
      end: '2026-03-02T15:00:00.000Z',
      hosts: [{ hostId: owner.id, available: true }],
      reasons: [],
    });
  });

  it('names working hours, date overrides, the slot grid, minimum notice and an inactive event type', async () => {
    const eventType = await eventTypeFor({ durationsMin: [30] });
    const reasonsAt = async (start: string, id = eventType.id) => {
      const res = await explain({ eventTypeId: id, start });
      expect(res.status).toBe(200);
      expect(res.body.available).toBe(res.body.reasons.length === 0);
      return res.body.reasons;
    };
    expect(await reasonsAt('2026-03-02T13:30:00Z')).toEqual([{ kind: 'outside_working_hours', hostId: owner.id }]);
    expect(await reasonsAt('2026-03-03T15:00:00Z')).toEqual([{ kind: 'date_override', hostId: owner.id, date: '2026-03-03' }]);
    expect(await reasonsAt('2026-03-04T14:00:00Z')).toEqual([{ kind: 'date_override', hostId: owner.id, date: '2026-03-04' }]);
    expect(await reasonsAt('2026-03-04T15:00:00Z')).toEqual([]);
    expect(await reasonsAt('2026-03-02T14:10:00Z')).toEqual([{ kind: 'slot_interval', stepMin: 30, hostId: owner.id }]);
    expect(await reasonsAt('2026-03-02T14:00:30Z')).toEqual([{ kind: 'slot_interval', stepMin: 30 }]);
    // A past Friday, inside working hours.
    expect(await reasonsAt('2026-02-27T15:00:00Z')).toEqual([{ kind: 'minimum_notice', minNoticeMin: 0, earliestStart: '2026-03-01T12:00:00.000Z' }]);

    const twoDaysNotice = await eventTypeFor({ minNoticeMin: 2880 });
    expect(await reasonsAt(MONDAY_9AM, twoDaysNotice.id)).toEqual([
      { kind: 'minimum_notice', minNoticeMin: 2880, earliestStart: '2026-03-03T12:00:00.000Z' },
    ]);
    const inactive = await eventTypeFor({ active: false });
    expect(await reasonsAt(MONDAY_9AM, inactive.id)).toEqual([{ kind: 'inactive' }]);
    // Every reason at once, not the first one found.
    expect(await reasonsAt('2026-03-03T13:10:00Z', inactive.id)).toEqual([
      { kind: 'inactive' },
      { kind: 'date_override', hostId: owner.id, date: '2026-03-03' },
    ]);
  });

  it('names the booking a slot overlaps, and the one whose buffers it runs into', async () => {
    const buffered = await eventTypeFor({ durationsMin: [30], bufferAfterMin: 15, slotIntervalMin: 15 });
    const booking = await createBooking(t.em(), { eventType: buffered, startAt: '2026-03-05T15:00:00Z' });
    const at = async (start: string) => (await explain({ eventTypeId: buffered.id, start })).body;
    expect(await at('2026-03-05T15:15:00Z')).toMatchObject({ available: false, reasons: [{ kind: 'booked', hostId: owner.id, bookingId: booking.id }] });
    expect(await at('2026-03-05T15:30:00Z')).toMatchObject({ available: false, reasons: [{ kind: 'buffer', hostId: owner.id, bookingId: booking.id }] });
    expect(await at('2026-03-05T14:30:00Z')).toMatchObject({ available: false, reasons: [{ kind: 'buffer', hostId: owner.id, bookingId: booking.id }] });
    expect(await at('2026-03-05T15:45:00Z')).toMatchObject({ available: true, reasons: [] });
  });

  it('says when every seat of a group slot is taken, and offers a seat while one is left', async () => {
    const group = await eventTypeFor({ kind: 'group', seatsPerSlot: 2, durationsMin: [60] });
    const start = '2026-03-05T18:00:00Z';
    await createBooking(t.em(), { eventType: group, startAt: start });
    expect((await explain({ eventTypeId: group.id, start })).body).toMatchObject({ available: true, reasons: [] });
    await createBooking(t.em(), { eventType: group, startAt: start });
    expect((await explain({ eventTypeId: group.id, start })).body).toMatchObject({
      available: false,
      reasons: [{ kind: 'seats_full', hostId: owner.id }],
    });
  });

  describe('teams', () => {
    const start = '2026-03-06T15:00:00Z';
    let colleaguesOwn: TestEventType;
    let roundRobin: TestEventType;
    let collective: TestEventType;

    beforeAll(async () => {
      roundRobin = await eventTypeFor({ kind: 'round_robin', hosts: [owner.id, colleague.id] });
      collective = await eventTypeFor({ kind: 'collective', hosts: [owner.id, colleague.id] });
      // The colleague's own booking, of their own event type: the owner may not see it.
      colleaguesOwn = await eventTypeFor({}, colleague);
      await createBooking(t.em(), { eventType: colleaguesOwn, startAt: start });
    });

    it('round robin is available while one host is free, and answers per host without naming others’ bookings', async () => {
      const res = await explain({ eventTypeId: roundRobin.id, start });
      expect(res.body).toEqual({
        available: true,
        start: '2026-03-06T15:00:00.000Z',
        end: '2026-03-06T15:30:00.000Z',
        hosts: expect.arrayContaining([
          { hostId: owner.id, available: true },
          { hostId: colleague.id, available: false },
        ]),
        reasons: [{ kind: 'booked', hostId: colleague.id }],
      });
      const own = await createBooking(t.em(), { eventType: roundRobin, startAt: start, hostId: owner.id });
      const busy = await explain({ eventTypeId: roundRobin.id, start });
      expect(busy.body.available).toBe(false);
      expect(busy.body.reasons).toEqual(
        expect.arrayContaining([
          { kind: 'booked', hostId: owner.id, bookingId: own.id },
          { kind: 'booked', hostId: colleague.id },
        ]),
      );
      expect(busy.body.reasons).toHaveLength(2);
    });

    it('collective needs every host', async () => {
      const res = await explain({ eventTypeId: collective.id, start: '2026-03-06T16:00:00Z' });
      expect(res.body).toMatchObject({ available: true, reasons: [] });
      const busy = await explain({ eventTypeId: collective.id, start: '2026-03-06T15:00:00Z' });
      expect(busy.body.available).toBe(false);
      expect(busy.body.hosts).toEqual(expect.arrayContaining([{ hostId: owner.id, available: false }, { hostId: colleague.id, available: false }]));
      expect(busy.body.reasons).toEqual(expect.arrayContaining([{ kind: 'booked', hostId: colleague.id }]));
      // The owner's day off is the colleague's working day: a reason of the owner's alone.
      const dayOff = await explain({ eventTypeId: collective.id, start: '2026-03-03T15:00:00Z' });
      expect(dayOff.body).toMatchObject({ available: false, reasons: [{ kind: 'date_override', hostId: owner.id, date: '2026-03-03' }] });
    });

    it('agrees with GET /availability on every start of a day, for each kind', async () => {
      const oneOnOne = await eventTypeFor({ durationsMin: [45], bufferBeforeMin: 10, slotIntervalMin: 15 });
      await createBooking(t.em(), { eventType: oneOnOne, startAt: '2026-03-06T17:00:00Z' });
      const window = { from: '2026-03-06T00:00:00Z', to: '2026-03-07T00:00:00Z' };
      for (const eventType of [oneOnOne, roundRobin, collective]) {
        const offered = await t.http
          .get('/api/v2/availability')
          .query({ eventTypeId: eventType.id, ...window })
          .set(...bearer(owner.token));
        const starts = new Set(offered.body.data.map((slot: { start: string }) => slot.start));
        expect(starts.size).toBeGreaterThan(0);
        for (let minute = 13 * 60; minute < 23 * 60; minute += 15) {
          const start = new Date(Date.parse(window.from) + minute * 60_000).toISOString();
          const res = await explain({ eventTypeId: eventType.id, start });
          expect(res.body.available, `${eventType.kind} ${start}`).toBe(starts.has(start));
          if (!res.body.available) expect(res.body.reasons.length).toBeGreaterThan(0);
        }
      }
    });
  });

  it('validates its query like the rest of the API', async () => {
    const eventType = await eventTypeFor({ durationsMin: [30, 60] });
    const cases: [Record<string, string | number>, string][] = [
      [{ eventTypeId: eventType.id, start: MONDAY_9AM, durationMin: 45 }, 'durationMin'],
      [{ eventTypeId: eventType.id, start: MONDAY_9AM, durationMin: 'long' }, 'durationMin'],
      [{ eventTypeId: eventType.id, start: '2026-03-02T14:00:00' }, 'start'],
      [{ eventTypeId: eventType.id, start: 'tomorrow' }, 'start'],
      [{ start: MONDAY_9AM }, 'eventTypeId'],
    ];
    for (const [query, field] of cases) {
      const res = await explain(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.details.map((d: { path: string[] }) => d.path[0])).toContain(field);
    }
    const durations = await explain({ eventTypeId: eventType.id, start: MONDAY_9AM, durationMin: 45 });
    expect(durations.body.details[0].message).toContain('30, 60');
    const unknownParameter = await explain({ eventTypeId: eventType.id, start: MONDAY_9AM, tz: 'UTC' });
    expect(unknownParameter.status).toBe(400);
    expect((await explain({ eventTypeId: 'nope', start: MONDAY_9AM })).status).toBe(404);
    expect((await explain({ eventTypeId: eventType.id, start: MONDAY_9AM }, stranger)).status).toBe(404);
    for (const start of ['0001-01-01T00:00:00Z', '9999-12-31T23:00:00Z', '2026-03-02T09:00:00-05:00']) {
      const res = await explain({ eventTypeId: eventType.id, start });
      expect(res.status, start).toBe(200);
    }
    const pastYear9999 = await explain({ eventTypeId: eventType.id, start: '9999-12-31T23:30:00Z' });
    expect(pastYear9999.status).toBe(400);
    expect(pastYear9999.body.details[0].path).toEqual(['start']);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const forbidden = await explain({ eventTypeId: eventType.id, start: MONDAY_9AM }, narrow);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('read:availability');
  });

  it('serves the same procedure over tRPC', async () => {
    const eventType = await eventTypeFor();
    const input = encodeURIComponent(JSON.stringify({ json: { eventTypeId: eventType.id, start: '2026-03-02T13:00:00Z' } }));
    const res = await t.http.get(`/trpc/availability.explain?input=${input}`).set(...bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.result.data.json).toMatchObject({ available: false, reasons: [{ kind: 'outside_working_hours', hostId: owner.id }] });
  });
});
