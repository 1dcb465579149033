/** A hold keeps what the booking would take: round robin the host it would get, collective every host; limits count it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, tickingClock, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

const MONDAY = '2026-03-02';
const TUESDAY = '2026-03-03';

describe('slot holds of teams and limited event types', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A clock that ticks a second per read: every booking has its own created_at (round-robin fairness reads it).
    t = await startTestApp({ clock: tickingClock('2026-03-01T12:00:00Z') });
  });
  afterAll(() => t.close());

  async function team(n: number): Promise<TestUser[]> {
    const users: TestUser[] = [];
    for (let i = 0; i < n; i++) {
      const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
      await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
      users.push(user);
    }
    return users.sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  const hold = (owner: TestUser, eventTypeId: string, startAt: string) =>
    t.http.post('/api/v2/slot-holds').set(...bearer(owner.token)).send({ eventTypeId, startAt, durationMin: 30 });
  const book = (owner: TestUser, eventTypeId: string, start: string, holdId?: string) =>
    t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({ eventTypeId, start, durationMin: 30, invitee: invitee(), ...(holdId ? { holdId } : {}) });
  const slots = async (owner: TestUser, eventTypeId: string, day: string) => {
    const res = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: `${day}T00:00:00Z`, to: `${day}T23:59:00Z` })
      .set(...bearer(owner.token));
    expect(res.status).toBe(200);
    return (res.body.data as { start: string }[]).map((slot) => slot.start);
  };
  const hostOf = async (bookingId: string) =>
    ((await t.em().execute('select host_id from booking where id = ?', [bookingId]))[0] as { host_id: string }).host_id;

  it('round robin: each hold keeps the host a booking would get, the slot stays offered while a host is free, the booking keeps that host', async () => {
    const [a, b] = await team(2);
    const eventTypeId = (await createEventType(t.em(), a!.id, { kind: 'round_robin', hosts: [a!.id, b!.id] })).id;
    const start = `${MONDAY}T10:00:00Z`;
    const first = await hold(a!, eventTypeId, start);
    expect(first.status).toBe(201);
    // Never-booked hosts tie; the first by id goes first.
    expect(first.body.hostIds).toEqual([a!.id]);
    expect(await slots(a!, eventTypeId, MONDAY)).toContain(`${MONDAY}T10:00:00.000Z`);
    const second = await hold(a!, eventTypeId, start);
    expect(second.body.hostIds).toEqual([b!.id]);
    expect(await slots(a!, eventTypeId, MONDAY)).not.toContain(`${MONDAY}T10:00:00.000Z`);
    expect((await hold(a!, eventTypeId, start)).status).toBe(409);
    expect((await book(a!, eventTypeId, start)).status).toBe(409);

    const booked = await book(a!, eventTypeId, start, second.body.id);
    expect(booked.status).toBe(201);
    expect(await hostOf(booked.body.id)).toBe(b!.id);
    expect((await t.http.delete(`/api/v2/slot-holds/${first.body.id}`).set(...bearer(a!.token))).status).toBe(204);
    const afterRelease = await book(a!, eventTypeId, start);
    expect(afterRelease.status).toBe(201);
    expect(await hostOf(afterRelease.body.id)).toBe(a!.id);
  });

  it('collective: a hold keeps every host, also from their other event types, and the booking takes them all', async () => {
    const [a, b] = await team(2);
    const eventTypeId = (await createEventType(t.em(), a!.id, { kind: 'collective', hosts: [a!.id, b!.id] })).id;
    const ofB = (await createEventType(t.em(), b!.id)).id;
    const start = `${TUESDAY}T10:00:00Z`;
    const held = await hold(a!, eventTypeId, start);
    expect(held.status).toBe(201);
    expect(held.body.hostIds).toEqual([a!.id, b!.id]);
    expect(await slots(b!, ofB, TUESDAY)).not.toContain(`${TUESDAY}T10:00:00.000Z`);
    expect((await book(b!, ofB, start)).status).toBe(409);
    const explained = await t.http
      .get(`/api/v2/availability/explain?eventTypeId=${ofB}&start=${start}`)
      .set(...bearer(b!.token));
    expect(explained.body.reasons).toEqual([{ kind: 'held', hostId: b!.id }]);

    const booked = await book(a!, eventTypeId, start, held.body.id);
    expect(booked.status).toBe(201);
    const blocks = await t.em().execute<{ host_id: string; hold_id: string | null }[]>(
      `select bb.host_id, bb.hold_id from booking_busy_block l join busy_block bb on bb.id = l.busy_block_id
        where l.booking_id = ? order by bb.host_id`,
      [booked.body.id],
    );
    expect(blocks).toEqual([
      { host_id: a!.id, hold_id: null },
      { host_id: b!.id, hold_id: null },
    ]);
  });

  it('counts a hold toward the event type’s daily limit as the booking it would become, until it is let go', async () => {
    const [owner] = await team(1);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { limits: { perDay: 1 } })).id;
    const held = await hold(owner!, eventTypeId, `${MONDAY}T10:00:00Z`);
    expect(held.status).toBe(201);
    expect(await slots(owner!, eventTypeId, MONDAY)).toEqual([]);
    expect((await book(owner!, eventTypeId, `${MONDAY}T14:00:00Z`)).status).toBe(409);
    expect((await hold(owner!, eventTypeId, `${MONDAY}T14:00:00Z`)).status).toBe(409);
    expect((await t.http.delete(`/api/v2/slot-holds/${held.body.id}`).set(...bearer(owner!.token))).status).toBe(204);
    expect(await slots(owner!, eventTypeId, MONDAY)).toContain(`${MONDAY}T14:00:00.000Z`);
    // Booking with the hold itself is not refused by the limit the hold fills.
    const again = await hold(owner!, eventTypeId, `${MONDAY}T14:00:00Z`);
    expect((await book(owner!, eventTypeId, `${MONDAY}T14:00:00Z`, again.body.id)).status).toBe(201);
  });
});
