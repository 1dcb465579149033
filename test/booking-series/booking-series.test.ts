/**
 * Booking series over REST on a real database: every occurrence an ordinary booking carrying `seriesId`, on the
 * host's wall clock across DST; all or nothing, with a 409 naming each failing occurrence and reason and leaving
 * nothing behind; the limits count the series' own occurrences; canceling what is still to come; 400s and 404s.
 */
import { rebuildBusyDays } from '../../src/modules/calendars/busy-days.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { BEHIND_PROXY, type TestApp } from '../helpers/app.ts';
import { createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { startListeningApp } from '../oauth/support.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

// Monday 30 November 2026, 00:00 UTC; hosts work 9 to 5 on weekdays in Berlin (08:00 to 16:00 UTC in winter).
const NOW = '2026-11-30T00:00:00.000Z';
const TUESDAYS = ['2026-12-01T08:00:00.000Z', '2026-12-08T08:00:00.000Z', '2026-12-15T08:00:00.000Z', '2026-12-22T08:00:00.000Z'];

function settableClock(at: string): Clock & { set(at: string): void } {
  let current = new Date(at);
  return { now: () => new Date(current), set: (next) => (current = new Date(next)) };
}

const clock = settableClock(NOW);
let t: TestApp & { siteUrl: string };

beforeAll(async () => {
  t = await startListeningApp({ clock, env: { ...BEHIND_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
});
afterAll(() => t.close());

/** A Berlin host working weekdays 9 to 5, with a webhook endpoint, and an event type taking series of up to 10. */
async function hostWith(options: EventTypeOptions = {}) {
  const user = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
  await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
  const hook = await t.http
    .post('/api/v2/webhooks')
    .set(...bearer(user.token))
    .send({ url: 'http://127.0.0.1:9/hook', events: ['booking.created', 'booking.canceled'] });
  expect(hook.status).toBe(201);
  const eventType = await createEventType(t.em(), user.id, { recurrence: { maxCount: 10 }, ...options });
  return { user, eventType };
}

type Recurrence = { frequency: string; interval: number; count: number };
const weekly = (count: number): Recurrence => ({ frequency: 'weekly', interval: 1, count });

const bookSeries = (user: TestUser, eventTypeId: string, startAt: string, recurrence: Recurrence, extra: object = {}) =>
  t.http
    .post('/api/v2/booking-series')
    .set(...bearer(user.token))
    .send({ eventTypeId, startAt, durationMin: 30, invitee: invitee(), recurrence, ...extra });

const bookOne = (user: TestUser, eventTypeId: string, start: string) =>
  t.http.post('/api/v2/bookings').set(...bearer(user.token)).send({ eventTypeId, start, durationMin: 30, invitee: invitee() });

/** What a booking leaves in the database for this owner: bookings, series, busy time, webhook events, e-mails. */
async function footprint(ownerId: string) {
  const [row] = await t.em().execute<Record<string, number>[]>(
    `select (select count(*)::int from booking where owner_id = ?) as bookings,
            (select count(*)::int from booking_series where owner_id = ?) as series,
            (select count(*)::int from busy_block where host_id = ?) as blocks,
            (select count(*)::int from webhook_event where owner_id = ?) as events,
            (select count(*)::int from booking_message m join booking b on b.id = m.booking_id where b.owner_id = ?) as messages,
            (select count(*)::int from booking_calendar_event e join booking b on b.id = e.booking_id where b.owner_id = ?) as calendar_events`,
    [ownerId, ownerId, ownerId, ownerId, ownerId, ownerId],
  );
  return row!;
}

describe('POST /booking-series', () => {
  it('books every occurrence as an ordinary booking carrying seriesId, announced one by one, confirmed by e-mail once', async () => {
    const { user, eventType } = await hostWith();
    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(4), { notes: 'Weekly sync' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      eventType: { id: eventType.id, name: 'Intro call' },
      hostId: user.id,
      timeZone: 'Europe/Berlin',
      recurrence: { frequency: 'weekly', interval: 1, count: 4 },
      startAt: TUESDAYS[0],
    });
    const bookings = res.body.bookings as { id: string; startAt: string; seriesId: string; status: string; notes: string }[];
    expect(bookings.map((booking) => booking.startAt)).toEqual(TUESDAYS);
    for (const booking of bookings) expect(booking).toMatchObject({ seriesId: res.body.id, status: 'active', notes: 'Weekly sync' });

    const fetched = await t.http.get(`/api/v2/booking-series/${res.body.id}`).set(...bearer(user.token));
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
    const one = await t.http.get(`/api/v2/bookings/${bookings[2]!.id}`).set(...bearer(user.token));
    expect(one.body).toMatchObject({ id: bookings[2]!.id, seriesId: res.body.id, startAt: TUESDAYS[2] });
    const listed = await t.http.get('/api/v2/bookings').query({ order: 'asc' }).set(...bearer(user.token));
    expect(listed.body.data.map((booking: { seriesId: string }) => booking.seriesId)).toEqual(Array(4).fill(res.body.id));
    // One confirmation to the invitee and one note to the host for the whole series; each occurrence its reminder
    // and its skipped confirmation (the series' one announced it).
    expect(await footprint(user.id)).toMatchObject({ bookings: 4, series: 1, blocks: 4, events: 4, messages: 2 + 4 + 4 });

    // The times are taken: a single booking on one of them is refused.
    expect((await bookOne(user, eventType.id, TUESDAYS[1]!)).status).toBe(409);
  });

  it('keeps 09:00 in Berlin across the March change: 08:00 UTC, then 07:00 UTC', async () => {
    const { user, eventType } = await hostWith();
    const res = await bookSeries(user, eventType.id, '2027-03-16T08:00:00Z', weekly(3));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.bookings.map((booking: { startAt: string }) => booking.startAt)).toEqual([
      '2027-03-16T08:00:00.000Z',
      '2027-03-23T08:00:00.000Z',
      '2027-03-30T07:00:00.000Z',
    ]);
  });

  it('monthly on the 31st books the last day of shorter months', async () => {
    const { user, eventType } = await hostWith();
    const res = await bookSeries(user, eventType.id, '2027-03-31T07:00:00Z', { frequency: 'monthly', interval: 1, count: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Wed 31 March, Fri 30 April, Mon 31 May 2027, 09:00 in Berlin (summer time).
    expect(res.body.bookings.map((booking: { startAt: string }) => booking.startAt)).toEqual([
      '2027-03-31T07:00:00.000Z',
      '2027-04-30T07:00:00.000Z',
      '2027-05-31T07:00:00.000Z',
    ]);
  });

  it('books the longest series, 52 weekly occurrences through a year of DST changes, in one request', async () => {
    const { user, eventType } = await hostWith({ recurrence: { maxCount: 52 } });
    const started = performance.now();
    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(52));
    const tookMs = performance.now() - started;
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const starts = res.body.bookings.map((booking: { startAt: string }) => booking.startAt);
    expect(starts).toHaveLength(52);
    // 09:00 in Berlin all year: 08:00 UTC in winter, 07:00 UTC from 28 March to 31 October 2027.
    expect(new Set(starts.map((start: string) => start.slice(11)))).toEqual(new Set(['08:00:00.000Z', '07:00:00.000Z']));
    expect(starts.at(-1)).toBe('2027-11-23T08:00:00.000Z');
    console.info(`a 52-occurrence series took ${Math.round(tookMs)} ms`);
  });

  it('a taken date refuses the whole series: a 409 naming it, and nothing left behind', async () => {
    const { user, eventType } = await hostWith();
    expect((await bookOne(user, eventType.id, TUESDAYS[2]!)).status).toBe(201);
    const before = await footprint(user.id);

    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(4));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      title: 'Conflict',
      message: expect.stringContaining("1 of the series' 4 occurrences cannot be booked"),
      details: [{ code: 'booked', path: ['occurrences', 2], startAt: TUESDAYS[2], message: expect.stringContaining(`${TUESDAYS[2]}: `) }],
    });
    expect(await footprint(user.id)).toEqual(before);
    // Its other times are still free.
    expect((await bookOne(user, eventType.id, TUESDAYS[1]!)).status).toBe(201);
  });

  it('names every failing occurrence and every reason: taken, outside the window, busy in a calendar, past', async () => {
    const { user, eventType } = await hostWith({ bookingWindow: { type: 'range', start: '2026-11-01', end: '2026-12-20' } });
    expect((await bookOne(user, eventType.id, '2026-12-08T08:00:00Z')).status).toBe(201);
    await calendarBusy(user.id, '2026-12-15T07:30:00Z', '2026-12-15T09:00:00Z');
    const before = await footprint(user.id);

    const res = await bookSeries(user, eventType.id, '2026-11-24T08:00:00Z', weekly(5));
    expect(res.status).toBe(409);
    expect(res.body.details.map((detail: { code: string; path: unknown[]; startAt: string }) => [detail.path[1], detail.code, detail.startAt])).toEqual([
      [0, 'minimum_notice', '2026-11-24T08:00:00.000Z'],
      [2, 'booked', '2026-12-08T08:00:00.000Z'],
      [3, 'calendar_busy', '2026-12-15T08:00:00.000Z'],
      [4, 'booking_window', '2026-12-22T08:00:00.000Z'],
    ]);
    expect(res.body.message).toContain("4 of the series' 5 occurrences");
    expect(await footprint(user.id)).toEqual(before);
  });

  it('limits count every occurrence, also the series’ own: a week of at most 2', async () => {
    const { user, eventType } = await hostWith({ limits: { perWeek: 2 } });
    const daily = await bookSeries(user, eventType.id, TUESDAYS[0]!, { frequency: 'daily', interval: 1, count: 3 });
    expect(daily.status).toBe(409);
    expect(daily.body.details).toEqual([
      expect.objectContaining({ code: 'weekly_limit', path: ['occurrences', 2], startAt: '2026-12-03T08:00:00.000Z', message: expect.stringContaining('2026-11-30 to 2026-12-06') }),
    ]);
    expect((await footprint(user.id)).bookings).toBe(0);

    // Two a week over three weeks fit; a third booking in any of those weeks then does not.
    const twice = await bookSeries(user, eventType.id, TUESDAYS[0]!, { frequency: 'daily', interval: 1, count: 2 });
    expect(twice.status).toBe(201);
    expect((await bookOne(user, eventType.id, '2026-12-04T08:00:00Z')).status).toBe(409);
  });

  it('limits count the bookings already there: one a day, with a booking on the second day', async () => {
    const { user, eventType } = await hostWith({ limits: { perDay: 1 } });
    expect((await bookOne(user, eventType.id, '2026-12-02T14:00:00Z')).status).toBe(201);
    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, { frequency: 'daily', interval: 1, count: 3 });
    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([expect.objectContaining({ code: 'daily_limit', path: ['occurrences', 1], startAt: '2026-12-02T08:00:00.000Z' })]);
  });

  it('a group series takes a seat in a session already booked, and a new session on the other dates', async () => {
    const { user, eventType } = await hostWith({ kind: 'group', seatsPerSlot: 3 });
    const single = await bookOne(user, eventType.id, TUESDAYS[1]!);
    expect(single.status).toBe(201);
    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(3));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const blocks = await t.em().execute<{ booking_id: string; busy_block_id: string; seats_taken: number }[]>(
      `select l.booking_id, l.busy_block_id, bb.seats_taken from booking_busy_block l join busy_block bb on bb.id = l.busy_block_id
        where bb.host_id = ? order by bb.start_at, l.booking_id`,
      [user.id],
    );
    const [first, second, third] = res.body.bookings as { id: string }[];
    const blockOf = (bookingId: string) => blocks.find((block) => block.booking_id === bookingId)!;
    expect(blockOf(second!.id).busy_block_id).toBe(blockOf(single.body.id).busy_block_id);
    expect(blockOf(second!.id).seats_taken).toBe(2);
    expect([blockOf(first!.id).seats_taken, blockOf(third!.id).seats_taken]).toEqual([1, 1]);
    expect(new Set(blocks.map((block) => block.busy_block_id)).size).toBe(3);
  });

  it('an event type without series, or a series longer than its maxCount: 409 naming why', async () => {
    const { user, eventType } = await hostWith({ recurrence: null });
    const none = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(2));
    expect(none.status).toBe(409);
    expect(none.body.details).toEqual([{ code: 'recurrence_not_allowed', path: ['recurrence'], message: expect.stringContaining('does not take booking series') }]);

    const short = await hostWith({ recurrence: { maxCount: 2 } });
    const long = await bookSeries(short.user, short.eventType.id, TUESDAYS[0]!, weekly(4));
    expect(long.status).toBe(409);
    expect(long.body.details).toEqual([
      expect.objectContaining({ code: 'recurrence_max_count', path: ['occurrences', 2], startAt: TUESDAYS[2] }),
      expect.objectContaining({ code: 'recurrence_max_count', path: ['occurrences', 3], startAt: TUESDAYS[3] }),
    ]);
    expect((await footprint(short.user.id)).bookings).toBe(0);
  });

  it('400 names the field: over 52, an interval of 5, an unknown frequency, a missing start', async () => {
    const { user, eventType } = await hostWith();
    expectBadRequest(await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(53)), ['recurrence', 'count']);
    expectBadRequest(await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(1)), ['recurrence', 'count']);
    expectBadRequest(await bookSeries(user, eventType.id, TUESDAYS[0]!, { frequency: 'weekly', interval: 5, count: 2 }), ['recurrence', 'interval']);
    expectBadRequest(await bookSeries(user, eventType.id, TUESDAYS[0]!, { frequency: 'yearly', interval: 1, count: 2 }), ['recurrence', 'frequency']);
    const noStart = await t.http
      .post('/api/v2/booking-series')
      .set(...bearer(user.token))
      .send({ eventTypeId: eventType.id, durationMin: 30, invitee: invitee(), recurrence: weekly(2) });
    expectBadRequest(noStart, ['startAt']);
    expectBadRequest(await bookSeries(user, eventType.id, '9999-12-01T08:00:00Z', { frequency: 'monthly', interval: 4, count: 52 }), ['startAt']);
  });

  it('another user’s event type and series are 404; a token without write:bookings is 403', async () => {
    const { user, eventType } = await hostWith();
    const stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
    expect((await bookSeries(stranger, eventType.id, TUESDAYS[0]!, weekly(2))).status).toBe(404);
    const mine = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(2));
    expect(mine.status).toBe(201);
    expect((await t.http.get(`/api/v2/booking-series/${mine.body.id}`).set(...bearer(stranger.token))).status).toBe(404);
    expect((await t.http.delete(`/api/v2/booking-series/${mine.body.id}`).set(...bearer(stranger.token)).send({})).status).toBe(404);
    expect((await t.http.get(`/api/v2/booking-series/${newId()}`).set(...bearer(user.token))).status).toBe(404);
    const reader = await createUserWithToken(t.em(), { timezone: 'UTC', scopes: ['read:bookings'] });
    expect((await bookSeries(reader, eventType.id, TUESDAYS[0]!, weekly(2))).status).toBe(403);
  });
});

describe('occurrences alone, and DELETE /booking-series/{id}', () => {
  it('an occurrence is canceled or rescheduled alone; the series then cancels only what is still to come', async () => {
    const { user, eventType } = await hostWith();
    const res = await bookSeries(user, eventType.id, TUESDAYS[0]!, weekly(4));
    const [first, second, third, fourth] = res.body.bookings as { id: string }[];

    const moved = await t.http.post(`/api/v2/bookings/${third!.id}/reschedule`).set(...bearer(user.token)).send({ start: '2026-12-16T10:00:00Z' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ seriesId: res.body.id, startAt: '2026-12-16T10:00:00.000Z' });
    const alone = await t.http.delete(`/api/v2/bookings/${fourth!.id}`).set(...bearer(user.token)).send({});
    expect(alone.body).toMatchObject({ status: 'canceled', seriesId: res.body.id });
    const series = await t.http.get(`/api/v2/booking-series/${res.body.id}`).set(...bearer(user.token));
    expect(series.body.bookings.map((booking: { status: string }) => booking.status)).toEqual(['active', 'active', 'active', 'canceled']);

    // After the first occurrence has started: it stays, the two still to come are canceled, the fourth is left as it was.
    clock.set('2026-12-01T08:15:00Z');
    try {
      const canceled = await t.http.delete(`/api/v2/booking-series/${res.body.id}`).set(...bearer(user.token)).send({ reason: 'Project ended' });
      expect(canceled.status).toBe(200);
      const byId = new Map(canceled.body.bookings.map((booking: { id: string }) => [booking.id, booking]));
      expect(byId.get(first!.id)).toMatchObject({ status: 'active' });
      expect(byId.get(second!.id)).toMatchObject({ status: 'canceled', cancelReason: 'Project ended', canceledBy: 'host' });
      expect(byId.get(third!.id)).toMatchObject({ status: 'canceled', cancelReason: 'Project ended' });
      expect(byId.get(fourth!.id)).toMatchObject({ status: 'canceled', cancelReason: null });
      const [{ count }] = await t.em().execute<[{ count: number }]>(
        `select count(*)::int as count from webhook_event where owner_id = ? and type = 'booking.canceled'`,
        [user.id],
      );
      expect(count).toBe(3);
      // Their time is free again; canceling again changes nothing.
      expect((await bookOne(user, eventType.id, TUESDAYS[1]!)).status).toBe(201);
      const again = await t.http.delete(`/api/v2/booking-series/${res.body.id}`).set(...bearer(user.token)).send({});
      expect(again.body.bookings.map((booking: { status: string }) => booking.status)).toEqual(canceled.body.bookings.map((booking: { status: string }) => booking.status));
    } finally {
      clock.set(NOW);
    }
  });
});

/** A busy time from a connected calendar of the host (a connection that never syncs by itself). */
async function calendarBusy(hostId: string, from: string, to: string): Promise<void> {
  const connection = newId();
  const calendar = newId();
  await t.em().execute(
    `insert into calendar_connection (id, owner_id, kind, name, secret, masked_url, status, last_synced_at, next_sync_at, created_at)
     values (?, ?, 'caldav', 'Work', 'v1.unused', 'https://calendar.invalid/…', 'ok', '2100-01-01', '2100-01-01', now())`,
    [connection, hostId],
  );
  await t.em().execute(`insert into connected_calendar (id, connection_id, name) values (?, ?, 'Work')`, [calendar, connection]);
  await t.em().execute(`insert into calendar_busy (host_id, connection_id, calendar_id, busy, counts) values (?, ?, ?, tstzrange(?, ?), true)`, [
    hostId,
    connection,
    calendar,
    from,
    to,
  ]);
  await rebuildBusyDays(t.em(), connection);
}
