import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { PAGE_HOLDS_PER_CLIENT } from '../../src/modules/slot-holds/slot-holds.service.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

const NOW = '2026-03-01T12:00:00Z';
const at = (day: string, time: string) => `2026-03-0${day}T${time}:00.000Z`;

/** The booking page's calls: tRPC over HTTP with superjson, no credentials, from one client address. */
function page(t: TestApp, ip: string) {
  const mutate = (path: string, input: unknown) => t.http.post(`/trpc/${path}`).set('X-Forwarded-For', ip).send(superjson.serialize(input) as object);
  return {
    hold: (input: object) => mutate('publicBooking.hold', input),
    release: (input: object) => mutate('publicBooking.releaseHold', input),
    book: (input: object) => mutate('publicBooking.book', input),
    slots: async (eventTypeId: string, day: string, extra: object = {}) => {
      const input = { eventTypeId, from: at(day, '00:00'), to: at(day, '23:59'), ...extra };
      const res = await t.http
        .get('/trpc/publicBooking.availability')
        .set('X-Forwarded-For', ip)
        .query({ input: JSON.stringify(superjson.serialize(input)) });
      expect(res.status).toBe(200);
      return (data(res).data as { start: string }[]).map((slot) => slot.start);
    },
  };
}
const data = (res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as Record<string, unknown>;

describe('the booking page’s slot holds (/trpc publicBooking.hold, releaseHold, book with holdId)', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), env: BEHIND_PROXY, publicRateLimitPerMinute: 10_000 });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, { durationsMin: [30] })).id;
  });
  afterAll(() => t.close());

  it('holds the picked time for the page alone: another browser neither sees it offered, nor holds, books or lets it go', async () => {
    const mine = page(t, '203.0.113.10');
    const theirs = page(t, '198.51.100.20');
    const res = await mine.hold({ eventTypeId, startAt: at('2', '10:00'), durationMin: 30 });
    expect(res.status).toBe(200);
    const hold = data(res);
    expect(hold).toEqual({
      id: expect.any(String),
      eventTypeId,
      startAt: at('2', '10:00'),
      endAt: at('2', '10:30'),
      durationMin: 30,
      expiresAt: '2026-03-01T12:10:00.000Z',
      holdToken: expect.stringMatching(/^hld_[a-z2-7]{59}$/),
    });
    // Only the token's hash is stored.
    const [row] = await t.em().execute<{ holder: string }[]>('select holder from slot_hold where id = ?', [hold.id]);
    expect(row!.holder).toMatch(/^page:[0-9a-f]{64}$/);
    expect(row!.holder).not.toContain(String(hold.holdToken));

    expect(await theirs.slots(eventTypeId, '2')).not.toContain(at('2', '10:00'));
    expect((await theirs.hold({ eventTypeId, startAt: at('2', '10:00'), durationMin: 30 })).status).toBe(409);
    const stranger = { eventTypeId, start: at('2', '10:00'), durationMin: 30, invitee: invitee() };
    expect((await theirs.book(stranger)).status).toBe(409);
    expect((await theirs.book({ ...stranger, holdId: hold.id })).status).toBe(404);
    expect((await theirs.book({ ...stranger, holdId: hold.id, holdToken: 'hld_not-the-token' })).status).toBe(404);
    expect((await theirs.release({ holdId: hold.id, holdToken: 'hld_not-the-token' })).status).toBe(404);
    // Nor can the host's API use a hold of the page.
    const api = await t.http.post('/api/v2/bookings').set(...bearer(owner.token)).send({ ...stranger, holdId: hold.id });
    expect(api.status).toBe(404);

    const booked = await mine.book({ ...stranger, holdId: hold.id, holdToken: hold.holdToken });
    expect(booked.status).toBe(200);
    expect(data(booked)).toMatchObject({ startAt: at('2', '10:00'), status: 'active', links: { manage: expect.any(String) } });
    expect((await mine.release({ holdId: hold.id, holdToken: hold.holdToken })).status).toBe(404);
  });

  it('lets the page’s hold go when the invitee goes back: the time is offered again at once', async () => {
    const mine = page(t, '203.0.113.11');
    const hold = data(await mine.hold({ eventTypeId, startAt: at('3', '10:00'), durationMin: 30 }));
    expect(await mine.slots(eventTypeId, '3')).not.toContain(at('3', '10:00'));
    const released = await mine.release({ holdId: hold.id, holdToken: hold.holdToken });
    expect(released.status).toBe(200);
    expect(data(released)).toEqual({ released: true });
    expect(await mine.slots(eventTypeId, '3')).toContain(at('3', '10:00'));
  });

  it('opens a secret event type only with its key, as every public procedure', async () => {
    const secret = (await createEventType(t.em(), owner.id, { secret: true, privateLinkKey: 'k3y-h0ld', durationsMin: [30] })).id;
    const mine = page(t, '203.0.113.12');
    const without = await mine.hold({ eventTypeId: secret, startAt: at('4', '10:00'), durationMin: 30 });
    expect(without.status).toBe(404);
    expect((await mine.hold({ eventTypeId: secret, startAt: at('4', '10:00'), durationMin: 30, key: 'wrong' })).status).toBe(404);
    expect((await mine.hold({ eventTypeId: secret, startAt: at('4', '10:00'), durationMin: 30, key: 'k3y-h0ld' })).status).toBe(200);
  });

  it(`caps the live holds of one client address at ${PAGE_HOLDS_PER_CLIENT}; other addresses are not held up`, async () => {
    const busy = page(t, '203.0.113.13');
    const starts = ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30', '13:00', '13:30', '14:00'];
    for (const time of starts.slice(0, PAGE_HOLDS_PER_CLIENT)) {
      expect((await busy.hold({ eventTypeId, startAt: at('5', time), durationMin: 30 })).status, time).toBe(200);
    }
    const over = await busy.hold({ eventTypeId, startAt: at('5', '14:00'), durationMin: 30 });
    expect(over.status).toBe(429);
    expect(over.body.error.json.message).toContain(`At most ${PAGE_HOLDS_PER_CLIENT}`);
    expect((await page(t, '198.51.100.21').hold({ eventTypeId, startAt: at('5', '14:00'), durationMin: 30 })).status).toBe(200);
  });
});
