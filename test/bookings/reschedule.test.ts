import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createBooking as insertBooking, createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import { invitee, setSchedule, tickingClock, WEEKDAYS_9_TO_5 } from './fixtures.ts';

// Sunday 1 March 2026, noon UTC (the clock ticks a second per read); hosts work Monday-Friday 09:00-17:00 UTC.
const MONDAY = '2026-03-02';
const at = (time: string, day = MONDAY) => `${day}T${time}:00.000Z`;

let t: TestApp & { siteUrl: string };

beforeAll(async () => {
  t = await startListeningApp({ clock: tickingClock('2026-03-01T12:00:00Z') });
});
afterAll(() => t.close());

async function host(): Promise<TestUser> {
  const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
  return user;
}

async function ownerWith(options: EventTypeOptions = {}): Promise<{ owner: TestUser; eventTypeId: string }> {
  const owner = await host();
  return { owner, eventTypeId: (await createEventType(t.em(), owner.id, options)).id };
}

async function book(owner: TestUser, eventTypeId: string, start: string, durationMin = 30, email?: string) {
  const res = await t.http
    .post('/api/v2/bookings')
    .set(...bearer(owner.token))
    .send({ eventTypeId, start, durationMin, invitee: invitee(email) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; startAt: string; endAt: string; createdAt: string; invitee: { email: string } };
}

const reschedule = (owner: TestUser, id: string, body: object, headers: Record<string, string> = {}) =>
  t.http
    .post(`/api/v2/bookings/${id}/reschedule`)
    .set(...bearer(owner.token))
    .set(headers)
    .send(body);

async function slots(owner: TestUser, eventTypeId: string, duration?: number): Promise<string[]> {
  const res = await t.http
    .get('/api/v2/availability')
    .query({ eventTypeId, from: at('00:00'), to: at('23:59'), ...(duration ? { duration } : {}) })
    .set(...bearer(owner.token));
  expect(res.status).toBe(200);
  return (res.body.data as { start: string }[]).map((slot) => slot.start.slice(11, 16));
}

/** The booking's busy blocks as the database holds them. */
async function blocksOf(bookingId: string) {
  return t.em().execute<{ id: string; host_id: string; busy: string; seats_taken: number; active: boolean }[]>(
    `select bb.id, bb.host_id, bb.busy::text as busy, bb.seats_taken, bb.active
       from booking_busy_block l join busy_block bb on bb.id = l.busy_block_id
      where l.booking_id = ? order by bb.id`,
    [bookingId],
  );
}

async function activeBlocks(hostId: string) {
  return t.em().execute<{ busy: string; seats_taken: number }[]>(
    `select busy::text as busy, seats_taken from busy_block where host_id = ? and active order by lower(busy)`,
    [hostId],
  );
}

const range = (from: string, to: string) => `["${MONDAY} ${from}:00+00","${MONDAY} ${to}:00+00")`;

describe('POST /api/v2/bookings/{id}/reschedule', () => {
  it('moves the same booking to another offered slot, freeing the old one', async () => {
    const { owner, eventTypeId } = await ownerWith({ bufferAfterMin: 10 });
    const booking = await book(owner, eventTypeId, at('10:00'));
    const oldBlock = (await blocksOf(booking.id))[0]!;

    const res = await reschedule(owner, booking.id, { start: '2026-03-02T15:00:00+01:00' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...booking,
      startAt: at('14:00'),
      endAt: at('14:30'),
    });
    expect(await blocksOf(booking.id)).toEqual([
      { id: expect.any(String), host_id: owner.id, busy: range('14:00', '14:40'), seats_taken: 1, active: true },
    ]);
    const [gone] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from busy_block where id = ?', [oldBlock.id]);
    expect(gone!.n).toBe(0);

    const offered = await slots(owner, eventTypeId);
    expect(offered).toContain('10:00');
    expect(offered).not.toContain('14:00');
    // A slot's own 10-minute after-buffer must not reach the new block either: 13:30 and 14:30 are out, 13:00 and 15:00 in.
    expect(offered).toEqual(expect.arrayContaining(['13:00', '15:00']));
    expect(offered).not.toContain('13:30');
    expect(offered).not.toContain('14:30');

    const listed = await t.http.get('/api/v2/bookings').set(...bearer(owner.token));
    expect(listed.body.data).toEqual([res.body]);
  });

  it('does not count the booking’s own time against it: a move by less than its length works', async () => {
    const { owner, eventTypeId } = await ownerWith({ durationsMin: [60], slotIntervalMin: 15, bufferBeforeMin: 15, bufferAfterMin: 15 });
    const booking = await book(owner, eventTypeId, at('10:00'), 60);
    const later = await reschedule(owner, booking.id, { start: at('10:30') });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ startAt: at('10:30'), endAt: at('11:30'), durationMin: 60 });
    const earlier = await reschedule(owner, booking.id, { start: at('10:15') });
    expect(earlier.status).toBe(200);
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('10:00', '11:30'), seats_taken: 1 }]);
  });

  it('changes the duration to another one the event type offers; others are 409, malformed ones 400', async () => {
    const { owner, eventTypeId } = await ownerWith({ durationsMin: [30, 60] });
    const booking = await book(owner, eventTypeId, at('10:00'));
    const longer = await reschedule(owner, booking.id, { start: at('11:00'), durationMin: 60 });
    expect(longer.status).toBe(200);
    expect(longer.body).toMatchObject({ startAt: at('11:00'), endAt: at('12:00'), durationMin: 60 });
    // Without durationMin the booking keeps its (new) duration.
    const kept = await reschedule(owner, booking.id, { start: at('13:00') });
    expect(kept.body).toMatchObject({ startAt: at('13:00'), endAt: at('14:00'), durationMin: 60 });

    const unoffered = await reschedule(owner, booking.id, { start: at('15:00'), durationMin: 45 });
    expect(unoffered.status).toBe(409);
    expect(unoffered.body).toEqual({ title: 'Conflict', message: expect.stringContaining('45-minute') });
  });

  it.each([
    ['no start', {}, ['start']],
    ['a start that is not a date-time', { start: 'monday 10am' }, ['start']],
    ['a start without an offset', { start: '2026-03-02T10:00:00' }, ['start']],
    ['a duration as a string', { start: '2026-03-02T11:00:00Z', durationMin: '30' }, ['durationMin']],
    ['a zero duration', { start: '2026-03-02T11:00:00Z', durationMin: 0 }, ['durationMin']],
    ['an unknown field', { start: '2026-03-02T11:00:00Z', eventTypeId: 'x' }, []],
  ])('refuses %s with 400 and details, leaving the booking alone', async (_label, body, path) => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    const res = await reschedule(owner, booking.id, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      title: 'Bad Request',
      message: expect.any(String),
      details: expect.arrayContaining([expect.objectContaining({ path })]),
    });
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('10:00', '10:30'), seats_taken: 1 }]);
  });

  it.each([
    ['off the grid', at('10:10'), /not a start time/],
    ['outside the hours', at('17:00'), /not a start time/],
    ['on a day off', '2026-03-07T10:00:00Z', /not a start time/],
    ['in the past', '2026-02-27T10:00:00Z', /past/],
    ['taken by another booking', at('11:00'), /taken/],
  ])('answers 409 for a time %s; the booking keeps its time and its block', async (_label, start, message) => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    await book(owner, eventTypeId, at('11:00'));
    const before = await blocksOf(booking.id);
    const res = await reschedule(owner, booking.id, { start });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ title: 'Conflict', message: expect.stringMatching(message) });
    expect(await blocksOf(booking.id)).toEqual(before);
    expect(await slots(owner, eventTypeId)).not.toContain('10:00');
    const listed = await t.http.get('/api/v2/bookings').set(...bearer(owner.token));
    expect(listed.body.data.find((b: { id: string }) => b.id === booking.id).startAt).toBe(at('10:00'));
  });

  it('answers 409 within the minimum notice', async () => {
    const { owner, eventTypeId } = await ownerWith({ minNoticeMin: 24 * 60 });
    const booking = await book(owner, eventTypeId, '2026-03-03T10:00:00Z');
    // Now is Sunday noon: Monday 11:00 is less than a day away, Monday 13:00 is not.
    const res = await reschedule(owner, booking.id, { start: at('11:00') });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('minimum notice');
    expect((await reschedule(owner, booking.id, { start: at('13:00') })).status).toBe(200);
    expect((await reschedule(owner, booking.id, { start: '2026-03-03T13:00:00Z' })).status).toBe(200);
  });

  it('answers 409 for a canceled booking and for a booking of an inactive event type', async () => {
    const { owner, eventTypeId } = await ownerWith();
    const canceled = await book(owner, eventTypeId, at('10:00'));
    expect((await t.http.delete(`/api/v2/bookings/${canceled.id}`).set(...bearer(owner.token))).status).toBe(200);
    const res = await reschedule(owner, canceled.id, { start: at('11:00') });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('canceled');
    expect(await blocksOf(canceled.id)).toEqual([expect.objectContaining({ active: false, busy: range('10:00', '10:30') })]);

    const active = await book(owner, eventTypeId, at('12:00'));
    expect((await t.http.delete(`/api/v2/event-types/${eventTypeId}`).set(...bearer(owner.token))).status).toBe(200);
    const inactive = await reschedule(owner, active.id, { start: at('13:00') });
    expect(inactive.status).toBe(409);
    expect(inactive.body.message).toContain('inactive');
  });

  it('answers 404 for another user’s booking or an unknown one, 403 without write:bookings, 401 without a token', async () => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    const stranger = await host();
    const foreign = await reschedule(stranger, booking.id, { start: at('11:00') });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ title: 'Not Found', message: 'Booking not found' });
    expect((await reschedule(owner, 'no-such-booking', { start: at('11:00') })).status).toBe(404);

    const reader = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const forbidden = await reschedule(reader, booking.id, { start: at('11:00') });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('write:bookings');
    expect((await t.http.post(`/api/v2/bookings/${booking.id}/reschedule`).send({ start: at('11:00') })).status).toBe(401);
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('10:00', '10:30'), seats_taken: 1 }]);
  });

  it('is naturally idempotent: moving to the time the booking has answers 200 and changes nothing', async () => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    const moved = await reschedule(owner, booking.id, { start: at('11:00') });
    const blocks = await blocksOf(booking.id);
    const again = await reschedule(owner, booking.id, { start: '2026-03-02T12:00:00+01:00', durationMin: 30 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(moved.body);
    expect(await blocksOf(booking.id)).toEqual(blocks);
  });

  it('replays the first response for a repeated Idempotency-Key; another body with the key is 422', async () => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    const first = await reschedule(owner, booking.id, { start: at('11:00') }, { 'Idempotency-Key': 'move-1' });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect((await reschedule(owner, booking.id, { start: at('12:00') })).status).toBe(200);

    const replay = await reschedule(owner, booking.id, { start: at('11:00') }, { 'Idempotency-Key': 'move-1' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('12:00', '12:30'), seats_taken: 1 }]);

    const reused = await reschedule(owner, booking.id, { start: at('13:00') }, { 'Idempotency-Key': 'move-1' });
    expect(reused.status).toBe(422);
    expect((await reschedule(owner, booking.id, { start: at('13:00') }, { 'Idempotency-Key': ' ' })).status).toBe(400);
  });

  it('group: gives the seat back to the old slot and joins or opens the new one', async () => {
    const { owner, eventTypeId } = await ownerWith({ kind: 'group', seatsPerSlot: 2 });
    const first = await book(owner, eventTypeId, at('10:00'));
    const second = await book(owner, eventTypeId, at('10:00'));
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('10:00', '10:30'), seats_taken: 2 }]);
    expect(await slots(owner, eventTypeId)).not.toContain('10:00');

    expect((await reschedule(owner, first.id, { start: at('11:00') })).status).toBe(200);
    expect(await activeBlocks(owner.id)).toEqual([
      { busy: range('10:00', '10:30'), seats_taken: 1 },
      { busy: range('11:00', '11:30'), seats_taken: 1 },
    ]);
    expect(await slots(owner, eventTypeId)).toEqual(expect.arrayContaining(['10:00', '11:00']));

    expect((await reschedule(owner, second.id, { start: at('11:00') })).status).toBe(200);
    expect(await activeBlocks(owner.id)).toEqual([{ busy: range('11:00', '11:30'), seats_taken: 2 }]);
    expect((await blocksOf(first.id))[0]!.id).toBe((await blocksOf(second.id))[0]!.id);
    expect(await slots(owner, eventTypeId)).toContain('10:00');
    expect(await slots(owner, eventTypeId)).not.toContain('11:00');
  });

  it('round robin: keeps its host when that host is free at the new time, else takes a free one', async () => {
    const owner = await host();
    const other = await host();
    const eventTypeId = (await createEventType(t.em(), owner.id, { kind: 'round_robin', hosts: [owner.id, other.id] })).id;
    const booking = await book(owner, eventTypeId, at('10:00'));
    const hostOf = async (id: string) =>
      ((await t.em().execute('select host_id from booking where id = ?', [id])) as { host_id: string }[])[0]!.host_id;
    const firstHost = await hostOf(booking.id);
    const otherHost = firstHost === owner.id ? other.id : owner.id;
    expect((await reschedule(owner, booking.id, { start: at('11:00') })).status).toBe(200);
    expect((await blocksOf(booking.id))[0]!.host_id).toBe(firstHost);

    // Make the current host busy at 13:00 through another event type: the move goes to the other host.
    const blocker = (await createEventType(t.em(), firstHost)).id;
    const hostUser = firstHost === owner.id ? owner : other;
    await book(hostUser, blocker, at('13:00'));
    expect((await reschedule(owner, booking.id, { start: at('13:00') })).status).toBe(200);
    expect((await blocksOf(booking.id))[0]!.host_id).toBe(otherHost);
    expect(await hostOf(booking.id)).toBe(otherHost);
  });

  it('collective: moves every host’s block', async () => {
    const owner = await host();
    const other = await host();
    const eventTypeId = (await createEventType(t.em(), owner.id, { kind: 'collective', hosts: [owner.id, other.id] })).id;
    const booking = await book(owner, eventTypeId, at('10:00'));
    expect((await reschedule(owner, booking.id, { start: at('15:00') })).status).toBe(200);
    const blocks = await blocksOf(booking.id);
    expect(blocks.map((b) => [b.host_id, b.busy]).sort()).toEqual(
      [
        [owner.id, range('15:00', '15:30')],
        [other.id, range('15:00', '15:30')],
      ].sort(),
    );
    expect(await activeBlocks(other.id)).toEqual([{ busy: range('15:00', '15:30'), seats_taken: 1 }]);
  });

  it('keeps the contact’s meeting count and clears a no-show of the old time', async () => {
    const owner = await host();
    const eventType = await createEventType(t.em(), owner.id, { durationsMin: [30] });
    const email = 'moved.person@example.test';
    const past = await insertBooking(t.em(), { eventType, startAt: '2026-02-27T10:00:00Z', invitee: { email }, noShow: true });
    const contact = async () => {
      const res = await t.http.get('/api/v2/contacts').query({ q: 'moved.person' }).set(...bearer(owner.token));
      return res.body.data[0] as { meetings: number; noShows: number };
    };
    expect(await contact()).toMatchObject({ meetings: 1, noShows: 1 });
    const res = await reschedule(owner, past.id, { start: at('10:00') });
    expect(res.status).toBe(200);
    expect(await contact()).toMatchObject({ meetings: 1, noShows: 0 });
  });

  it('through tRPC: the same procedure, the same rules', async () => {
    const { owner, eventTypeId } = await ownerWith();
    const booking = await book(owner, eventTypeId, at('10:00'));
    const client = trpcClient(t.siteUrl, { bearer: owner.token });
    const moved = await client.bookings.reschedule.mutate({ id: booking.id, start: at('16:00') });
    expect(moved).toMatchObject({ id: booking.id, startAt: at('16:00'), endAt: at('16:30') });
    expect(await failure(client.bookings.reschedule.mutate({ id: booking.id, start: at('16:10') }))).toMatchObject({ status: 409 });
    const stranger = await host();
    expect(await failure(trpcClient(t.siteUrl, { bearer: stranger.token }).bookings.reschedule.mutate({ id: booking.id, start: at('11:00') }))).toMatchObject({ status: 404 });
  });
});

describe('concurrent reschedules never double-book', () => {
  const statuses = (responses: { status: number }[]) =>
    responses.reduce<Record<number, number>>((acc, res) => {
      acc[res.status] = (acc[res.status] ?? 0) + 1;
      return acc;
    }, {});

  it('two bookings moved into the same free slot at once: exactly one 200, one 409', async () => {
    for (let round = 0; round < 5; round++) {
      const { owner, eventTypeId } = await ownerWith();
      const a = await book(owner, eventTypeId, at('10:00'));
      const b = await book(owner, eventTypeId, at('11:00'));
      const responses = await Promise.all([
        reschedule(owner, a.id, { start: at('14:00') }),
        reschedule(owner, b.id, { start: at('14:00') }),
      ]);
      expect(statuses(responses)).toEqual({ 200: 1, 409: 1 });
      const winner = responses[0]!.status === 200 ? a : b;
      const loser = winner === a ? b : a;
      const loserStart = loser === a ? '10:00' : '11:00';
      expect(await activeBlocks(owner.id)).toEqual(
        [
          { busy: range('14:00', '14:30'), seats_taken: 1 },
          { busy: range(loserStart, `${loserStart.slice(0, 2)}:30`), seats_taken: 1 },
        ].sort((x, y) => x.busy.localeCompare(y.busy)),
      );
      expect((await blocksOf(winner.id))[0]!.busy).toBe(range('14:00', '14:30'));
    }
  });

  it('many bookings racing for one slot, and swaps, end consistent: no 500, no overlap, each booking on its own time', async () => {
    const { owner, eventTypeId } = await ownerWith({ slotIntervalMin: 15 });
    const starts = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00'];
    const bookings = [];
    for (const start of starts) bookings.push(await book(owner, eventTypeId, at(start)));
    const responses = await Promise.all([
      ...bookings.slice(0, 4).map((b, i) => reschedule(owner, b.id, { start: at(i % 2 === 0 ? '15:00' : '15:15') })),
      // Two bookings swapping times at once.
      reschedule(owner, bookings[4]!.id, { start: at('14:00') }),
      reschedule(owner, bookings[5]!.id, { start: at('13:00') }),
    ]);
    for (const res of responses) expect([200, 409]).toContain(res.status);
    expect(responses.slice(0, 4).filter((res) => res.status === 200)).toHaveLength(1);

    const rows = await t.em().execute<{ id: string; start_at: Date; end_at: Date; busy: string; active: boolean }[]>(
      `select b.id, b.start_at, b.end_at, bb.busy::text as busy, bb.active
         from booking b join booking_busy_block l on l.booking_id = b.id join busy_block bb on bb.id = l.busy_block_id
        where b.owner_id = ?`,
      [owner.id],
    );
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row.active).toBe(true);
      const start = new Date(row.start_at).toISOString();
      expect(row.busy).toBe(range(start.slice(11, 16), new Date(row.end_at).toISOString().slice(11, 16)));
    }
    const [orphans] = await t.em().execute<{ n: number }[]>(
      `select count(*)::int as n from busy_block bb where host_id = ? and not exists (select 1 from booking_busy_block l where l.busy_block_id = bb.id)`,
      [owner.id],
    );
    expect(orphans!.n).toBe(0);
  });
});
