import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';

// "Now": Sunday 2026-03-01 12:00 UTC, before both daylight-saving changes of the spring.
const NOW = '2026-03-01T12:00:00Z';

describe('GET /api/v2/availability', () => {
  let t: TestApp;
  let ny: TestUser;
  let berlin: TestUser;
  let other: TestUser;
  let nyEventType: string;
  let berlinEventType: string;

  const get = (query: Record<string, string | number>, user: TestUser = ny) =>
    t.http.get('/api/v2/availability').query(query).set(...bearer(user.token));
  const startsOf = (res: { body: { data: { start: string }[] } }) => res.body.data.map((slot) => slot.start);

  async function eventTypeFor(user: TestUser, options: EventTypeOptions = {}) {
    return (await createEventType(t.em(), user.id, options)).id;
  }

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW) });
    ny = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    berlin = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
    other = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), ny.id, WEEKDAYS_9_TO_5);
    await setSchedule(t.em(), berlin.id, WEEKDAYS_9_TO_5);
    nyEventType = await eventTypeFor(ny, { durationsMin: [60, 30] });
    berlinEventType = await eventTypeFor(berlin, { durationsMin: [60] });
  });
  afterAll(() => t.close());

  it('returns {data: Slot[]} ordered by start, in UTC by default, with the first duration', async () => {
    const res = await get({ eventTypeId: nyEventType, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    expect(res.body.data).toHaveLength(8);
    expect(res.body.data[0]).toEqual({ start: '2026-03-02T14:00:00.000Z', end: '2026-03-02T15:00:00.000Z' });
    const starts = startsOf(res).map((s) => Date.parse(s));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
  });

  it('writes the slots in `tz` (same instants) and honours `duration`', async () => {
    const query = { eventTypeId: nyEventType, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };
    const inBerlin = await get({ ...query, tz: 'Europe/Berlin', duration: 30 });
    expect(inBerlin.status).toBe(200);
    expect(inBerlin.body.data).toHaveLength(16);
    expect(inBerlin.body.data[0]).toEqual({ start: '2026-03-02T15:00:00+01:00', end: '2026-03-02T15:30:00+01:00' });
    const inKolkata = await get({ ...query, tz: 'Asia/Kolkata' });
    expect(inKolkata.body.data[0].start).toBe('2026-03-02T19:30:00+05:30');
    expect(Date.parse(inKolkata.body.data[0].start)).toBe(Date.parse('2026-03-02T14:00:00Z'));
  });

  it('answers 400 with details for invalid arguments', async () => {
    const base = { eventTypeId: nyEventType, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' };
    const cases: [Record<string, string | number>, string][] = [
      [{ ...base, to: '2026-03-02T00:00:00Z' }, 'to'],
      [{ ...base, to: '2026-03-01T00:00:00Z' }, 'to'],
      [{ ...base, to: '2026-04-02T00:00:01Z' }, 'to'],
      [{ ...base, tz: 'Mars/Olympus' }, 'tz'],
      [{ ...base, tz: '+01:00' }, 'tz'],
      [{ ...base, from: 'yesterday' }, 'from'],
      [{ ...base, from: '2026-03-02T00:00:00' }, 'from'],
      [{ ...base, duration: 45 }, 'duration'],
      [{ ...base, duration: 'long' }, 'duration'],
      [{ from: base.from, to: base.to }, 'eventTypeId'],
    ];
    for (const [query, field] of cases) {
      const res = await get(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body).toEqual({ title: 'Bad Request', message: expect.any(String), details: expect.any(Array) });
      expect(res.body.details.map((d: { path: string[] }) => d.path[0])).toContain(field);
    }
    // Exactly 31 days is allowed.
    expect((await get({ ...base, to: '2026-04-02T00:00:00Z' })).status).toBe(200);
  });

  it('answers 404 for an unknown event type and for another user’s', async () => {
    const foreign = await eventTypeFor(other);
    for (const eventTypeId of ['missing', foreign]) {
      const res = await get({ eventTypeId, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ title: 'Not Found', message: 'Event type not found' });
    }
  });

  it('offers nothing for an inactive event type', async () => {
    const inactive = await eventTypeFor(ny, { active: false });
    const res = await get({ eventTypeId: inactive, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  describe('daylight-saving changes', () => {
    it('America/New_York spring forward: 09:00 local moves from 14:00Z to 13:00Z', async () => {
      const res = await get({ eventTypeId: nyEventType, from: '2026-03-06T00:00:00Z', to: '2026-03-10T00:00:00Z', tz: 'America/New_York' });
      const firsts = startsOf(res).filter((s) => s.includes('T09:00'));
      expect(firsts).toEqual(['2026-03-06T09:00:00-05:00', '2026-03-09T09:00:00-04:00']);
      const utc = await get({ eventTypeId: nyEventType, from: '2026-03-06T00:00:00Z', to: '2026-03-10T00:00:00Z' });
      const firstOfDay = new Map<string, string>();
      for (const s of startsOf(utc)) if (!firstOfDay.has(s.slice(0, 10))) firstOfDay.set(s.slice(0, 10), s);
      expect([...firstOfDay.values()]).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
    });

    it('America/New_York fall back: 09:00 local moves from 13:00Z to 14:00Z', async () => {
      const res = await get({ eventTypeId: nyEventType, from: '2026-10-30T00:00:00Z', to: '2026-11-03T00:00:00Z' });
      expect(startsOf(res).filter((s) => s.slice(0, 10) !== '2026-10-31')).toContain('2026-10-30T13:00:00.000Z');
      expect(startsOf(res)).toContain('2026-11-02T14:00:00.000Z');
      expect(startsOf(res)).not.toContain('2026-11-02T13:00:00.000Z');
      expect(res.body.data.filter((s: { start: string }) => s.start.startsWith('2026-11-02'))).toHaveLength(8);
    });

    it('Europe/Berlin spring forward and fall back', async () => {
      const spring = await get(
        { eventTypeId: berlinEventType, from: '2026-03-27T00:00:00Z', to: '2026-03-31T00:00:00Z', tz: 'Europe/Berlin' },
        berlin,
      );
      expect(startsOf(spring).filter((s) => s.includes('T09:00'))).toEqual(['2026-03-27T09:00:00+01:00', '2026-03-30T09:00:00+02:00']);
      const autumn = await get({ eventTypeId: berlinEventType, from: '2026-10-23T00:00:00Z', to: '2026-10-27T00:00:00Z' }, berlin);
      expect(startsOf(autumn).filter((s) => s.endsWith('T07:00:00.000Z') || s.endsWith('T08:00:00.000Z'))).toEqual([
        '2026-10-23T07:00:00.000Z',
        '2026-10-23T08:00:00.000Z',
        '2026-10-26T08:00:00.000Z',
      ]);
    });

    it('a date override across the New York spring-forward gap and the Berlin fall-back overlap', async () => {
      const nyNight = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
      await setSchedule(t.em(), nyNight.id, {}, [{ date: '2026-03-08', intervals: [{ start: '01:00', end: '04:00' }] }]);
      const gap = await eventTypeFor(nyNight, { durationsMin: [60] });
      const res = await get(
        { eventTypeId: gap, from: '2026-03-08T00:00:00Z', to: '2026-03-09T00:00:00Z', tz: 'America/New_York' },
        nyNight,
      );
      expect(startsOf(res)).toEqual(['2026-03-08T01:00:00-05:00', '2026-03-08T03:00:00-04:00']);

      const berlinNight = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
      await setSchedule(t.em(), berlinNight.id, {}, [{ date: '2026-10-25', intervals: [{ start: '01:00', end: '04:00' }] }]);
      const overlap = await eventTypeFor(berlinNight, { durationsMin: [60] });
      const res2 = await get(
        { eventTypeId: overlap, from: '2026-10-24T00:00:00Z', to: '2026-10-26T00:00:00Z', tz: 'Europe/Berlin' },
        berlinNight,
      );
      expect(startsOf(res2)).toEqual([
        '2026-10-25T01:00:00+02:00',
        '2026-10-25T02:00:00+02:00',
        '2026-10-25T02:00:00+01:00',
        '2026-10-25T03:00:00+01:00',
      ]);
    });
  });

  it('applies date overrides: a blocked weekday and an extra Saturday', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5, [
      { date: '2026-03-02', intervals: [] },
      { date: '2026-03-07', intervals: [{ start: '10:00', end: '12:00' }] },
    ]);
    const eventTypeId = await eventTypeFor(user, { durationsMin: [60] });
    const res = await get({ eventTypeId, from: '2026-03-02T00:00:00Z', to: '2026-03-09T00:00:00Z' }, user);
    const days = startsOf(res).map((s) => s.slice(0, 10));
    expect(days).not.toContain('2026-03-02');
    expect(days.filter((d) => d === '2026-03-03')).toHaveLength(8);
    expect(startsOf(res).filter((s) => s.startsWith('2026-03-07'))).toEqual(['2026-03-07T10:00:00.000Z', '2026-03-07T11:00:00.000Z']);
  });

  it('keeps the minimum notice, counted from the injected clock', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, { sunday: [{ start: '09:00', end: '17:00' }] });
    const eventTypeId = await eventTypeFor(user, { minNoticeMin: 90 });
    const res = await get({ eventTypeId, from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' }, user);
    // Now is 12:00: 13:30 is the first start at least 90 minutes away; nothing earlier, nothing in the past.
    expect(startsOf(res)[0]).toBe('2026-03-01T13:30:00.000Z');
    expect(res.body.data).toHaveLength(7);
  });

  it('keeps buffers around existing bookings', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    const eventTypeId = await eventTypeFor(user, { bufferBeforeMin: 30, bufferAfterMin: 15 });
    const booked = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: '2026-03-02T11:00:00Z', durationMin: 30, invitee: invitee() });
    expect(booked.status).toBe(201);
    // Busy: 10:30–11:45. A new slot needs 30 minutes before and 15 after clear of it.
    const res = await get({ eventTypeId, from: '2026-03-02T09:00:00Z', to: '2026-03-02T13:00:00Z' }, user);
    expect(startsOf(res)).toEqual([
      '2026-03-02T09:00:00.000Z',
      '2026-03-02T09:30:00.000Z',
      '2026-03-02T12:30:00.000Z',
    ]);
  });

  it('round trip: a slot from /availability books with 201 and then disappears from /availability', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    const eventTypeId = await eventTypeFor(user, { durationsMin: [30, 60], slotIntervalMin: 15, bufferAfterMin: 5 });
    const query = { eventTypeId, from: '2026-03-09T00:00:00Z', to: '2026-03-10T00:00:00Z', tz: 'America/New_York', duration: 60 };
    const before = await get(query, user);
    const chosen = before.body.data[5] as { start: string; end: string };
    expect(chosen.start).toBe('2026-03-09T10:15:00-04:00');
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: chosen.start, durationMin: 60, invitee: invitee() });
    expect(res.status).toBe(201);
    expect(res.body.startAt).toBe('2026-03-09T14:15:00.000Z');
    expect(res.body.endAt).toBe(new Date(chosen.end).toISOString());
    const after = await get(query, user);
    expect(startsOf(after)).not.toContain(chosen.start);
    // Everything overlapping 10:15–11:20 (with the 5-minute buffers) is gone too; the rest is unchanged.
    const gone = startsOf(before).filter((s) => !startsOf(after).includes(s));
    expect(gone).toEqual([
      '2026-03-09T09:15:00-04:00',
      '2026-03-09T09:30:00-04:00',
      '2026-03-09T09:45:00-04:00',
      '2026-03-09T10:00:00-04:00',
      '2026-03-09T10:15:00-04:00',
      '2026-03-09T10:30:00-04:00',
      '2026-03-09T10:45:00-04:00',
      '2026-03-09T11:00:00-04:00',
      '2026-03-09T11:15:00-04:00',
    ]);
    // Every remaining slot still books (slot offered == slot bookable).
    const next = after.body.data[0] as { start: string };
    const again = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: next.start, durationMin: 60, invitee: invitee() });
    expect(again.status).toBe(201);
  });

  it('a slot offered after midnight by a week-long window books, with a step that does not divide a day', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const allDay = [{ start: '00:00', end: '24:00' }];
    const week = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
    await setSchedule(t.em(), user.id, Object.fromEntries(week.map((day) => [day, allDay])));
    const eventTypeId = await eventTypeFor(user, { durationsMin: [30], slotIntervalMin: 7 });
    const listed = await get({ eventTypeId, from: '2026-03-02T00:00:00Z', to: '2026-03-06T00:00:00Z' }, user);
    const tuesday = startsOf(listed).filter((start) => start.startsWith('2026-03-03T00:'));
    // The grid starts again at Tuesday's own midnight: 00:00, 00:07, … (not where Monday's would run on to).
    expect(tuesday.slice(0, 3)).toEqual(['2026-03-03T00:00:00.000Z', '2026-03-03T00:07:00.000Z', '2026-03-03T00:14:00.000Z']);
    const booked = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: tuesday[1], durationMin: 30, invitee: invitee() });
    expect(booked.status).toBe(201);
  });
});
