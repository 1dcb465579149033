import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { movableClock } from '../oauth/support.ts';

// "Now" is Sunday 2026-03-01 12:00 UTC; the owner works Monday to Friday 09:00–17:00 UTC.
const NOW = new Date('2026-03-01T12:00:00Z');
const at = (day: string, time: string) => `2026-03-0${day}T${time}:00.000Z`;

describe('slot holds (REST)', () => {
  const clock = movableClock(NOW);
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;

  const api = (user: TestUser = owner) => ({
    hold: (body: object) => t.http.post('/api/v2/slot-holds').set(...bearer(user.token)).send(body),
    get: (id: string) => t.http.get(`/api/v2/slot-holds/${id}`).set(...bearer(user.token)),
    release: (id: string) => t.http.delete(`/api/v2/slot-holds/${id}`).set(...bearer(user.token)),
    book: (body: object) => t.http.post('/api/v2/bookings').set(...bearer(user.token)).send(body),
    slots: async (day: string) => {
      const res = await t.http
        .get(`/api/v2/availability?eventTypeId=${eventTypeId}&from=${at(day, '00:00')}&to=${at(day, '23:59')}&duration=30`)
        .set(...bearer(user.token));
      expect(res.status).toBe(200);
      return (res.body.data as { start: string }[]).map((slot) => slot.start);
    },
    explain: (start: string) =>
      t.http.get(`/api/v2/availability/explain?eventTypeId=${eventTypeId}&start=${start}&durationMin=30`).set(...bearer(user.token)),
  });
  const slot = (start: string, durationMin = 30) => ({ eventTypeId, startAt: start, durationMin });
  const booking = (start: string, extra: object = {}) => ({ eventTypeId, start, durationMin: 30, invitee: invitee(), ...extra });

  beforeAll(async () => {
    t = await startTestApp({ clock });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, { durationsMin: [30, 60], bufferAfterMin: 15 })).id;
  });
  beforeEach(() => clock.set(NOW));
  afterAll(() => t.close());

  it('holds an offered slot: 201 with the hold, which availability stops offering, explain calls held and nobody else books', async () => {
    // Any offset names the instant /availability wrote.
    const res = await api().hold(slot('2026-03-02T11:00:00+01:00'));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      eventTypeId,
      startAt: at('2', '10:00'),
      endAt: at('2', '10:30'),
      durationMin: 30,
      hostIds: [owner.id],
      expiresAt: '2026-03-01T12:10:00.000Z',
    });
    expect(res.headers.location).toBe(`http://localhost:3000/api/v2/slot-holds/${res.body.id}`);
    expect(await api().get(res.body.id)).toMatchObject({ status: 200, body: res.body });

    // The held slot, and those whose 15-minute buffer after them would reach it or its own, are gone.
    const offered = await api().slots('2');
    for (const gone of ['09:30', '10:00', '10:30']) expect(offered).not.toContain(at('2', gone));
    for (const kept of ['09:00', '11:00']) expect(offered).toContain(at('2', kept));
    const explained = await api().explain(at('2', '10:00'));
    expect(explained.body).toMatchObject({ available: false, reasons: [{ kind: 'held', hostId: owner.id }] });
    expect((await api().explain(at('2', '10:30'))).body.reasons).toEqual([{ kind: 'buffer', hostId: owner.id }]);

    const taken = await api().book(booking(at('2', '10:00')));
    expect(taken.status).toBe(409);
    expect((await api().hold(slot(at('2', '10:00')))).status).toBe(409);
    expect((await api().hold(slot(at('2', '09:30')))).status).toBe(409);

    const busy = await t.http.get(`/api/v2/availability/busy?from=${at('2', '00:00')}&to=${at('3', '00:00')}`).set(...bearer(owner.token));
    expect(busy.body.data).toEqual([{ source: 'hold', start: at('2', '10:00'), end: at('2', '10:30') }]);
  });

  it('books the held slot with holdId: the hold ends, its time becomes the booking’s, and the id is spent', async () => {
    const held = (await api().hold(slot(at('3', '10:00')))).body as { id: string };
    const booked = await api().book(booking(at('3', '10:00'), { holdId: held.id }));
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({ startAt: at('3', '10:00'), status: 'active' });
    expect((await api().get(held.id)).status).toBe(404);
    const again = await api().book(booking(at('3', '10:00'), { holdId: held.id }));
    expect(again).toMatchObject({ status: 404, body: { message: 'Slot hold not found' } });
    const blocks = await t.em().execute<{ hold_id: string | null; bookings: number }[]>(
      `select bb.hold_id, (select count(*)::int from booking_busy_block l where l.busy_block_id = bb.id) as bookings
         from busy_block bb where bb.host_id = ? and bb.start_at = ?`,
      [owner.id, at('3', '10:00')],
    );
    expect(blocks).toEqual([{ hold_id: null, bookings: 1 }]);
    expect(await t.em().execute('select id from slot_hold where id = ?', [held.id])).toEqual([]);
  });

  it('answers a booking that names another slot than its hold with a 400 on that field, an unknown hold with 404', async () => {
    const held = (await api().hold(slot(at('4', '10:00')))).body as { id: string };
    const other = await createEventType(t.em(), owner.id, { durationsMin: [30] });
    const cases: [object, string][] = [
      [booking(at('4', '11:00'), { holdId: held.id }), 'start'],
      [{ ...booking(at('4', '10:00'), { holdId: held.id }), durationMin: 60 }, 'durationMin'],
      [{ ...booking(at('4', '10:00'), { holdId: held.id }), eventTypeId: other.id }, 'eventTypeId'],
    ];
    for (const [body, field] of cases) {
      const res = await api().book(body);
      expect(res.status, field).toBe(400);
      expect(res.body.details, field).toEqual([expect.objectContaining({ path: [field] })]);
    }
    expect((await api().book(booking(at('4', '10:00'), { holdId: 'no-such-hold' }))).status).toBe(404);
    // The hold is still there, and still books.
    expect((await api().book(booking(at('4', '10:00'), { holdId: held.id }))).status).toBe(201);
  });

  it('lets a hold go: 204, the slot is offered and bookable at once, and a second release is 404', async () => {
    const held = (await api().hold(slot(at('5', '10:00')))).body as { id: string };
    const released = await api().release(held.id);
    expect(released.status).toBe(204);
    expect(released.text).toBe('');
    expect(await api().slots('5')).toContain(at('5', '10:00'));
    expect((await api().release(held.id)).status).toBe(404);
    expect((await api().book(booking(at('5', '10:00'), { holdId: held.id }))).status).toBe(404);
    expect((await api().book(booking(at('5', '10:00')))).status).toBe(201);
  });

  it('ends a hold after SLOT_HOLD_TTL without any job: the slot is offered and booked, and the hold is gone everywhere', async () => {
    const held = (await api().hold(slot(at('6', '10:00')))).body as { id: string; expiresAt: string };
    clock.set(new Date(Date.parse(held.expiresAt) - 1000));
    expect(await api().slots('6')).not.toContain(at('6', '10:00'));
    expect((await api().book(booking(at('6', '10:00')))).status).toBe(409);

    clock.set(new Date(held.expiresAt));
    expect(await api().slots('6')).toContain(at('6', '10:00'));
    expect((await api().explain(at('6', '10:00'))).body).toMatchObject({ available: true, reasons: [] });
    expect((await api().get(held.id)).status).toBe(404);
    expect((await api().release(held.id)).status).toBe(404);
    expect((await api().book(booking(at('6', '10:00'), { holdId: held.id }))).status).toBe(404);
    // The ended hold's block is still in the table until a writer of this host's time takes it out: this booking.
    const before = await t.em().execute('select id from busy_block where hold_id = ?', [held.id]);
    expect(before).toHaveLength(1);
    expect((await api().book(booking(at('6', '10:00')))).status).toBe(201);
    expect(await t.em().execute('select id from busy_block where hold_id = ?', [held.id])).toEqual([]);
  });

  it('refuses a slot the event type does not offer as bad input naming the field, as a group event type', async () => {
    const bad: [object, string][] = [
      [slot('2026-03-01T09:00:00Z'), 'startAt'], // in the past
      [slot(at('7', '10:00')), 'startAt'], // Saturday: outside the hours
      [slot(at('9', '10:10')), 'startAt'], // off the grid
      [slot(at('9', '10:00'), 45), 'durationMin'],
      [{ ...slot(at('9', '10:00')), startAt: 'tomorrow' }, 'startAt'],
      [{ eventTypeId, durationMin: 30 }, 'startAt'],
    ];
    for (const [body, field] of bad) {
      const res = await api().hold(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details, JSON.stringify(body)).toEqual([expect.objectContaining({ path: [field] })]);
    }
    const group = await createEventType(t.em(), owner.id, { kind: 'group' });
    const groupHold = await api().hold({ eventTypeId: group.id, startAt: at('9', '10:00'), durationMin: 30 });
    expect(groupHold).toMatchObject({ status: 400, body: { details: [expect.objectContaining({ path: ['eventTypeId'] })] } });
    const inactive = await createEventType(t.em(), owner.id, { active: false });
    expect((await api().hold({ eventTypeId: inactive.id, startAt: at('9', '10:00'), durationMin: 30 })).status).toBe(409);
  });

  it('keeps each hold its maker’s: another user gets 404 for it everywhere, and cannot hold on others’ event types', async () => {
    const stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const held = (await api().hold(slot(at('9', '11:00')))).body as { id: string };
    expect((await api(stranger).get(held.id)).status).toBe(404);
    expect((await api(stranger).release(held.id)).status).toBe(404);
    expect((await api(stranger).hold(slot(at('9', '12:00')))).status).toBe(404);
    // Another token of the same user is the same holder.
    const { token } = await createPersonalAccessToken(t.em(), { userId: owner.id, name: 'second', scopes: ALL_SCOPES });
    const sameUser = { ...owner, token };
    expect((await api(sameUser).get(held.id)).status).toBe(200);
    expect((await api(sameUser).book(booking(at('9', '11:00'), { holdId: held.id }))).status).toBe(201);
  });

  it('needs the booking write scope to hold or let go, and the read scope to look', async () => {
    const readOnly = await createUserWithToken(t.em(), { timezone: 'UTC', scopes: ['read:bookings'] });
    const res = await api(readOnly).hold(slot(at('9', '13:00')));
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('write:bookings');
    expect((await api(readOnly).release('x')).status).toBe(403);
    const writeOnly = await createUserWithToken(t.em(), { timezone: 'UTC', scopes: ['write:bookings'] });
    expect((await api(writeOnly).get('x')).status).toBe(403);
  });
});
