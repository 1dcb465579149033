/**
 * A series booked with the slot hold of its first occurrence, on a real database: the hold's time passes to the
 * series and the hold ends; another's or an unknown hold is 404, one on another slot a 400 naming the field; while
 * a hold keeps the first date, any other series over it is refused at occurrence 0 (`held`); a refused series
 * leaves the hold alive; round robin keeps the held host; an ended hold is no obstacle.
 */
import superjson from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { movableClock } from '../oauth/support.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

// Monday 30 November 2026; hosts work 9 to 5 UTC on weekdays.
const NOW = new Date('2026-11-30T00:00:00.000Z');
const MONDAYS = ['2026-12-07T10:00:00.000Z', '2026-12-14T10:00:00.000Z', '2026-12-21T10:00:00.000Z'];
const weekly = (count: number) => ({ frequency: 'weekly', interval: 1, count });

const clock = movableClock(NOW);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: BEHIND_PROXY, publicRateLimitPerMinute: 10_000 });
});
beforeEach(() => clock.set(NOW));
afterAll(() => t.close());

async function hostWith(options: EventTypeOptions = {}) {
  const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
  const eventType = await createEventType(t.em(), user.id, { durationsMin: [30, 60], recurrence: { maxCount: 6 }, ...options });
  return { user, eventTypeId: eventType.id };
}

const hold = async (user: TestUser, eventTypeId: string, startAt: string) => {
  const res = await t.http.post('/api/v2/slot-holds').set(...bearer(user.token)).send({ eventTypeId, startAt, durationMin: 30 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; hostIds: string[]; expiresAt: string };
};
const series = (user: TestUser, eventTypeId: string, startAt: string, count: number, extra: object = {}) =>
  t.http
    .post('/api/v2/booking-series')
    .set(...bearer(user.token))
    .send({ eventTypeId, startAt, durationMin: 30, invitee: invitee(), recurrence: weekly(count), ...extra });
const bookOne = (user: TestUser, eventTypeId: string, start: string) =>
  t.http.post('/api/v2/bookings').set(...bearer(user.token)).send({ eventTypeId, start, durationMin: 30, invitee: invitee() });
const getHold = (user: TestUser, id: string) => t.http.get(`/api/v2/slot-holds/${id}`).set(...bearer(user.token));

/** The booking page: tRPC over HTTP with superjson, no credentials. */
const page = (procedure: string, input: object) =>
  t.http.post(`/trpc/publicBooking.${procedure}`).set('X-Forwarded-For', '203.0.113.61').send(superjson.serialize(input) as object);
const pageData = (res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as Record<string, unknown>;

const startsOf = (body: { bookings: { startAt: string }[] }) => body.bookings.map((booking) => booking.startAt);
const holdRows = (id: string) =>
  t.em().execute<{ blocks: number }[]>('select (select count(*)::int from busy_block where hold_id = h.id) as blocks from slot_hold h where h.id = ?', [id]);

describe('POST /booking-series with holdId', () => {
  it('books the series from the caller’s hold: 201, the held time its first date, the hold and its blocks gone', async () => {
    const { user, eventTypeId } = await hostWith();
    const held = await hold(user, eventTypeId, MONDAYS[0]!);
    const res = await series(user, eventTypeId, MONDAYS[0]!, 3, { holdId: held.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(startsOf(res.body)).toEqual(MONDAYS);
    expect((await getHold(user, held.id)).status).toBe(404);
    expect(await holdRows(held.id)).toEqual([]);
    const blocks = await t.em().execute<{ n: number }[]>('select count(*)::int as n from busy_block where host_id = ? and hold_id is null and active', [user.id]);
    expect(blocks).toEqual([{ n: 3 }]);
    // The hold is spent.
    expect((await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: held.id })).status).toBe(404);
  });

  it('answers a hold on another slot with a 400 naming the field, an unknown or someone else’s hold with 404; the hold stays', async () => {
    const { user, eventTypeId } = await hostWith();
    const other = await createEventType(t.em(), user.id, { durationsMin: [30], recurrence: { maxCount: 6 } });
    const held = await hold(user, eventTypeId, MONDAYS[0]!);
    expectBadRequest(await series(user, eventTypeId, '2026-12-07T11:00:00Z', 2, { holdId: held.id }), ['startAt']);
    expectBadRequest(await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: held.id, durationMin: 60 }), ['durationMin']);
    expectBadRequest(await series(user, other.id, MONDAYS[0]!, 2, { holdId: held.id }), ['eventTypeId']);
    expect((await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: 'no-such-hold' })).status).toBe(404);

    // The booking page cannot use the owner's hold, nor the owner a hold of the page.
    const body = { eventTypeId, startAt: MONDAYS[0]!, durationMin: 30, invitee: invitee(), recurrence: weekly(2) };
    expect((await page('bookSeries', { ...body, holdId: held.id, holdToken: 'hld_not-the-token' })).status).toBe(404);
    expect((await page('bookSeries', { ...body, holdId: held.id })).status).toBe(404);
    const pageHold = pageData(await page('hold', { eventTypeId, startAt: '2026-12-08T10:00:00Z', durationMin: 30 }));
    expect((await series(user, eventTypeId, '2026-12-08T10:00:00Z', 2, { holdId: pageHold.id })).status).toBe(404);

    expect((await getHold(user, held.id)).status).toBe(200);
    expect((await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: held.id })).status).toBe(201);
  });

  it('while A holds the first date, B’s series over it is 409 naming occurrence 0 as held; A’s series with the hold books', async () => {
    const { user: a, eventTypeId } = await hostWith();
    const held = await hold(a, eventTypeId, MONDAYS[0]!);
    const refused = await page('bookSeries', { eventTypeId, startAt: MONDAYS[0]!, durationMin: 30, invitee: invitee(), recurrence: weekly(3) });
    expect(refused.status).toBe(409);
    expect(refused.body.error.json.details).toEqual([
      expect.objectContaining({ code: 'held', path: ['occurrences', 0], startAt: MONDAYS[0], message: expect.stringContaining('holding that time') }),
    ]);
    const booked = await series(a, eventTypeId, MONDAYS[0]!, 3, { holdId: held.id });
    expect(booked.status, JSON.stringify(booked.body)).toBe(201);
    expect(startsOf(booked.body)).toEqual(MONDAYS);
  });

  it('a refused series (a later date taken) keeps the hold alive with its time, and a shorter one then books with it', async () => {
    const { user, eventTypeId } = await hostWith();
    const held = await hold(user, eventTypeId, MONDAYS[0]!);
    expect((await bookOne(user, eventTypeId, MONDAYS[2]!)).status).toBe(201);
    const refused = await series(user, eventTypeId, MONDAYS[0]!, 3, { holdId: held.id });
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([expect.objectContaining({ code: 'booked', path: ['occurrences', 2], startAt: MONDAYS[2] })]);

    expect((await getHold(user, held.id)).status).toBe(200);
    expect(await holdRows(held.id)).toEqual([{ blocks: 1 }]);
    expect((await bookOne(user, eventTypeId, MONDAYS[0]!)).status).toBe(409);
    const shorter = await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: held.id });
    expect(shorter.status, JSON.stringify(shorter.body)).toBe(201);
    expect(await holdRows(held.id)).toEqual([]);
  });

  it('round robin keeps the held host for the whole series, though another host has become the fairer', async () => {
    const members = await Promise.all([0, 1].map(() => createUserWithToken(t.em(), { timezone: 'UTC' })));
    for (const member of members) await setSchedule(t.em(), member.id, WEEKDAYS_9_TO_5);
    const [first, second] = members.map((member) => member.id).sort() as [string, string];
    const owner = members.find((member) => member.id === first)!;
    const team = await createEventType(t.em(), owner.id, { kind: 'round_robin', hosts: [first, second], recurrence: { maxCount: 6 } });
    const held = await hold(owner, team.id, MONDAYS[0]!);
    expect(held.hostIds).toEqual([first]);
    // The held host books meanwhile, so the other host is now the fairer: a series without a hold goes to them.
    const single = await bookOne(owner, team.id, '2026-12-01T14:00:00Z');
    const [booked] = await t.em().execute<{ host_id: string }[]>('select host_id from booking where id = ?', [single.body.id]);
    expect(booked!.host_id).toBe(first);
    expect((await series(owner, team.id, '2026-12-02T14:00:00Z', 2)).body.hostId).toBe(second);

    const res = await series(owner, team.id, MONDAYS[0]!, 3, { holdId: held.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.hostId).toBe(first);
    const hosts = await t.em().execute<{ host_id: string }[]>('select host_id from booking where series_id = ?', [res.body.id]);
    expect(hosts.map((row) => row.host_id)).toEqual([first, first, first]);
  });

  it('a hold that has ended is no obstacle: its blocks are taken out under the series’ locks', async () => {
    const { user, eventTypeId } = await hostWith();
    const held = await hold(user, eventTypeId, MONDAYS[0]!);
    clock.set(new Date(held.expiresAt));
    expect((await series(user, eventTypeId, MONDAYS[0]!, 2, { holdId: held.id })).status).toBe(404);
    const res = await series(user, eventTypeId, MONDAYS[0]!, 2);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await t.em().execute('select id from busy_block where hold_id = ?', [held.id])).toEqual([]);
  });
});

describe('the booking page', () => {
  it('books a series with its hold (the hold token), and the hold is gone', async () => {
    const { eventTypeId } = await hostWith();
    const pageHold = pageData(await page('hold', { eventTypeId, startAt: MONDAYS[0]!, durationMin: 30 }));
    const body = { eventTypeId, startAt: MONDAYS[0]!, durationMin: 30, invitee: invitee(), recurrence: weekly(3) };
    const res = await page('bookSeries', { ...body, holdId: pageHold.id, holdToken: pageHold.holdToken });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(startsOf(pageData(res) as never)).toEqual(MONDAYS);
    expect(await holdRows(String(pageHold.id))).toEqual([]);
    expect((await page('releaseHold', { holdId: pageHold.id, holdToken: pageHold.holdToken })).status).toBe(404);
  });
});
