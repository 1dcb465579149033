import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, tickingClock, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

const MONDAY = '2026-03-02';

describe('event type kinds', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A clock that ticks, so every booking has its own created_at (round-robin fairness reads it).
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
    return users;
  }

  const book = (owner: TestUser, eventTypeId: string, start: string, durationMin = 30) =>
    t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({ eventTypeId, start, durationMin, invitee: invitee() });

  const slots = async (owner: TestUser, eventTypeId: string, from: string, to: string) => {
    const res = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from, to })
      .set(...bearer(owner.token));
    expect(res.status).toBe(200);
    return (res.body.data as { start: string }[]).map((slot) => slot.start);
  };

  const hostOf = async (bookingId: string) =>
    ((await t.em().execute('select host_id from booking where id = ?', [bookingId]))[0] as { host_id: string }).host_id;

  it('one_on_one: one booking per slot, hosted by the owner', async () => {
    const [owner] = await team(1);
    const eventTypeId = (await createEventType(t.em(), owner!.id)).id;
    const first = await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`);
    expect(first.status).toBe(201);
    expect(await hostOf(first.body.id)).toBe(owner!.id);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`)).status).toBe(409);
    expect(await slots(owner!, eventTypeId, `${MONDAY}T09:00:00Z`, `${MONDAY}T10:00:00Z`)).toEqual([`${MONDAY}T09:30:00.000Z`]);
  });

  it('group: up to seatsPerSlot invitees share a slot; it stays offered until full', async () => {
    const [owner] = await team(1);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { kind: 'group', seatsPerSlot: 2, bufferAfterMin: 10 })).id;
    const window = [`${MONDAY}T09:00:00Z`, `${MONDAY}T10:30:00Z`] as const;
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:30:00Z`)).status).toBe(201);
    // The joinable slot is still offered; 09:00 is not (its own 10-minute after-buffer reaches the block),
    // nor is 10:00 (the block's buffer reaches into it).
    expect(await slots(owner!, eventTypeId, ...window)).toEqual([`${MONDAY}T09:30:00.000Z`]);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`)).status).toBe(409);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:30:00Z`)).status).toBe(201);
    expect(await slots(owner!, eventTypeId, ...window)).toEqual([]);
    const full = await book(owner!, eventTypeId, `${MONDAY}T09:30:00Z`);
    expect(full.status).toBe(409);
    const blocks = await t.em().execute('select seats_taken from busy_block where host_id = ? and active', [owner!.id]);
    expect(blocks).toEqual([{ seats_taken: 2 }]);
  });

  it('group: a different duration at the same start is not the same slot', async () => {
    const [owner] = await team(1);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { kind: 'group', seatsPerSlot: 5, durationsMin: [30, 60] })).id;
    expect((await book(owner!, eventTypeId, `${MONDAY}T10:00:00Z`, 30)).status).toBe(201);
    expect((await book(owner!, eventTypeId, `${MONDAY}T10:00:00Z`, 60)).status).toBe(409);
  });

  it('round_robin: a slot is offered while any host is free; bookings go to the least recently booked host', async () => {
    const [owner, b, c] = await team(3);
    const eventTypeId = (await createEventType(t.em(), owner!.id, {
      kind: 'round_robin',
      hosts: [owner!.id, b!.id, c!.id],
    })).id;
    const assigned: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`);
      expect(res.status).toBe(201);
      assigned.push(await hostOf(res.body.id));
    }
    // Three bookings of one slot: each host once (never-booked hosts first).
    expect([...assigned].sort()).toEqual([owner!.id, b!.id, c!.id].sort());
    expect(await slots(owner!, eventTypeId, `${MONDAY}T09:00:00Z`, `${MONDAY}T10:00:00Z`)).toEqual([`${MONDAY}T09:30:00.000Z`]);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`)).status).toBe(409);

    // The next slots follow the same rotation: least recently booked first.
    const next: string[] = [];
    for (const start of [`${MONDAY}T11:00:00Z`, `${MONDAY}T12:00:00Z`, `${MONDAY}T13:00:00Z`]) {
      const res = await book(owner!, eventTypeId, start);
      expect(res.status).toBe(201);
      next.push(await hostOf(res.body.id));
    }
    expect(next).toEqual(assigned);
  });

  it('round_robin: a busy host is skipped, even when it is the least recently booked', async () => {
    const [owner, b] = await team(2);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { kind: 'round_robin', hosts: [owner!.id, b!.id] })).id;
    const bSolo = (await createEventType(t.em(), b!.id)).id;
    // b is busy at 10:00 through its own event type; owner was booked most recently, yet gets the slot.
    expect((await book(b!, bSolo, `${MONDAY}T10:00:00Z`)).status).toBe(201);
    const first = await book(owner!, eventTypeId, `${MONDAY}T14:00:00Z`);
    expect(await hostOf(first.body.id)).toBe([owner!.id, b!.id].sort()[0]);
    const res = await book(owner!, eventTypeId, `${MONDAY}T10:00:00Z`);
    expect(res.status).toBe(201);
    expect(await hostOf(res.body.id)).toBe(owner!.id);
  });

  it('round_robin and collective use each host’s own hours', async () => {
    const [owner, b] = await team(2);
    await setSchedule(t.em(), b!.id, { monday: [{ start: '12:00', end: '14:00' }] });
    const rr = (await createEventType(t.em(), owner!.id, { kind: 'round_robin', hosts: [owner!.id, b!.id], durationsMin: [60] })).id;
    const collective = (await createEventType(t.em(), owner!.id, { kind: 'collective', hosts: [owner!.id, b!.id], durationsMin: [60] })).id;
    const day = [`${MONDAY}T00:00:00Z`, `${MONDAY}T23:00:00Z`] as const;
    expect(await slots(owner!, rr, ...day)).toHaveLength(8);
    expect(await slots(owner!, collective, ...day)).toEqual([`${MONDAY}T12:00:00.000Z`, `${MONDAY}T13:00:00.000Z`]);
    expect((await book(owner!, collective, `${MONDAY}T10:00:00Z`, 60)).status).toBe(409);
  });

  it('collective: books every host at once, and is not offered when any host is busy', async () => {
    const [owner, b] = await team(2);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { kind: 'collective', hosts: [owner!.id, b!.id] })).id;
    const bSolo = (await createEventType(t.em(), b!.id)).id;
    expect((await book(b!, bSolo, `${MONDAY}T09:30:00Z`)).status).toBe(201);
    expect(await slots(owner!, eventTypeId, `${MONDAY}T09:00:00Z`, `${MONDAY}T10:30:00Z`)).toEqual([
      `${MONDAY}T09:00:00.000Z`,
      `${MONDAY}T10:00:00.000Z`,
    ]);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:30:00Z`)).status).toBe(409);
    const res = await book(owner!, eventTypeId, `${MONDAY}T10:00:00Z`);
    expect(res.status).toBe(201);
    const blocks = await t.em().execute<{ host_id: string }[]>(
      'select bb.host_id from booking_busy_block l join busy_block bb on bb.id = l.busy_block_id where l.booking_id = ? order by 1',
      [res.body.id],
    );
    expect(blocks.map((row: { host_id: string }) => row.host_id)).toEqual([owner!.id, b!.id].sort());
    expect(await hostOf(res.body.id)).toBe(owner!.id);
    // Both hosts are now busy at 10:00, whichever event type asks.
    expect((await book(b!, bSolo, `${MONDAY}T10:00:00Z`)).status).toBe(409);
  });

  it('without event_type_host rows a round-robin event type is hosted by its owner alone', async () => {
    const [owner] = await team(1);
    const eventTypeId = (await createEventType(t.em(), owner!.id, { kind: 'round_robin' })).id;
    const res = await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`);
    expect(res.status).toBe(201);
    expect(await hostOf(res.body.id)).toBe(owner!.id);
    expect((await book(owner!, eventTypeId, `${MONDAY}T09:00:00Z`)).status).toBe(409);
  });
});
