import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType as insertEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { startListeningApp } from '../oauth/support.ts';

// Monday 1 June 2026, 12:00 UTC. Users get Monday-Friday 09:00-17:00 in their own zone (UTC here).
const NOW = '2026-06-01T12:00:00.000Z';
const LATER = '2026-06-01T12:05:00.000Z';

/** A clock the test can move. */
function settableClock(at: string): Clock & { set(at: string): void } {
  let current = new Date(at);
  return { now: () => new Date(current), set: (next) => (current = new Date(next)) };
}

interface EventTypeBody {
  id: string;
  slug: string;
  url: string;
  active: boolean;
  secret: boolean;
  updatedAt: string;
}

let t: TestApp & { siteUrl: string };
const clock = settableClock(NOW);
let alice: TestUser;
let bob: TestUser;
let aliceSlug: string;

beforeAll(async () => {
  t = await startListeningApp({ clock });
  alice = await createUserWithToken(t.em(), { timezone: 'UTC' });
  bob = await createUserWithToken(t.em(), { timezone: 'UTC' });
  const [row] = await t.em().execute<{ slug: string }[]>('select slug from app_user where id = ?', [alice.id]);
  aliceSlug = row!.slug;
});
afterAll(() => t.close());

const create = (user: TestUser, body: object) => t.http.post('/api/v2/event-types').set(...bearer(user.token)).send(body);
const patch = (user: TestUser, id: string, body: object) =>
  t.http.patch(`/api/v2/event-types/${id}`).set(...bearer(user.token)).send(body);
const deactivate = (user: TestUser, id: string) => t.http.delete(`/api/v2/event-types/${id}`).set(...bearer(user.token));
const slots = async (user: TestUser, eventTypeId: string, query: Record<string, string | number> = {}) => {
  const res = await t.http
    .get('/api/v2/availability')
    .query({ eventTypeId, from: '2026-06-01T00:00:00Z', to: '2026-06-02T00:00:00Z', ...query })
    .set(...bearer(user.token));
  expect(res.status).toBe(200);
  return res.body.data.map((slot: { start: string }) => slot.start.slice(11, 16));
};

const list = async (user: TestUser): Promise<EventTypeBody[]> =>
  (await t.http.get('/api/v2/event-types').set(...bearer(user.token))).body.data;
const privateLinkKey = (url: string): string => new URL(url).searchParams.get('key') ?? '';
/** The status the public booking page gets for alice's event type with this key. */
const publicEventType = async (slug: string, key: string): Promise<number> =>
  (
    await t.http
      .get('/trpc/publicBooking.eventType')
      .query({ input: JSON.stringify(superjson.serialize({ userSlug: aliceSlug, eventTypeSlug: slug, key })) })
  ).status;

async function settings(id: string) {
  const [row] = await t.em().execute<
    { min_notice_min: number; slot_interval_min: number | null; seats_per_slot: number; private_link_key_hash: string | null }[]
  >('select min_notice_min, slot_interval_min, seats_per_slot, private_link_key_hash from event_type where id = ?', [id]);
  return row!;
}

describe('POST /api/v2/event-types', () => {
  it('creates with defaults: 201 with the EventType, a slug from the name, one seat, no notice', async () => {
    const res = await create(alice, { name: 'Intro Call', durationsMin: [30, 60] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Intro Call',
      slug: 'intro-call',
      url: `${t.siteUrl}/book/${encodeURIComponent(aliceSlug)}/intro-call`,
      kind: 'one_on_one',
      durationsMin: [30, 60],
      bufferBeforeMin: 0,
      bufferAfterMin: 0,
      color: '#2563eb',
      active: true,
      secret: false,
      organizationId: null,
      reminders: [{ offsetMin: 1440, to: 'invitee' }],
      notifications: true,
      createdAt: NOW,
      updatedAt: NOW,
      minimumNoticeMin: 0,
      slotIntervalMin: null,
      seatsPerSlot: null,
      bookingWindow: null,
      limits: null,
      cancelNoticeMin: 0,
      rescheduleNoticeMin: 0,
      requiresConfirmation: false,
      recurrence: null,
      description: null,
      locations: [],
    });
    expect(await settings(res.body.id)).toEqual({ min_notice_min: 0, slot_interval_min: null, seats_per_slot: 1, private_link_key_hash: null });

    const list = await t.http.get('/api/v2/event-types').set(...bearer(alice.token));
    expect(list.body.data).toContainEqual(res.body);
  });

  it('stores every setting; a secret one gets a private link its url carries', async () => {
    const res = await create(alice, {
      name: 'Team Workshop',
      slug: 'workshop',
      kind: 'group',
      durationsMin: [90],
      bufferBeforeMin: 15,
      bufferAfterMin: 240,
      color: '#16A34A',
      secret: true,
      active: false,
      minimumNoticeMin: 1440,
      slotIntervalMin: 30,
      seatsPerSlot: 25,
    });
    expect(res.status).toBe(201);
    const key = privateLinkKey(res.body.url);
    expect(key).toMatch(/^[a-z2-7]{52}$/);
    expect(await settings(res.body.id)).toEqual({ min_notice_min: 1440, slot_interval_min: 30, seats_per_slot: 25, private_link_key_hash: hashToken(key) });
    expect(res.body).toMatchObject({
      slug: 'workshop',
      kind: 'group',
      minimumNoticeMin: 1440,
      slotIntervalMin: 30,
      seatsPerSlot: 25,
      durationsMin: [90],
      bufferBeforeMin: 15,
      bufferAfterMin: 240,
      color: '#16a34a',
      secret: true,
      active: false,
      url: `${t.siteUrl}/book/${encodeURIComponent(aliceSlug)}/workshop?key=${key}`,
    });
  });

  it('gives a group event type 10 seats unless told otherwise', async () => {
    const res = await create(alice, { name: 'Group default', kind: 'group', durationsMin: [60] });
    expect(res.status).toBe(201);
    expect((await settings(res.body.id)).seats_per_slot).toBe(10);
  });

  it('makes a derived slug unique with -2, -3; an explicit slug that is taken is 409; other users may reuse it', async () => {
    const user = await createUserWithToken(t.em());
    const slugsOf = await Promise.all([1, 2, 3].map(async () => (await create(user, { name: 'Coffee chat!', durationsMin: [15] })).body.slug));
    expect([...slugsOf].sort()).toEqual(['coffee-chat', 'coffee-chat-2', 'coffee-chat-3'].sort());

    const taken = await create(user, { name: 'Other', slug: 'coffee-chat-2', durationsMin: [15] });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ title: 'Conflict', message: expect.stringContaining('coffee-chat-2') });

    const elsewhere = await create(bob, { name: 'Mine', slug: 'coffee-chat-2', durationsMin: [15] });
    expect(elsewhere.status).toBe(201);
    expect((await create(bob, { name: '会議', durationsMin: [15] })).body.slug).toBe('event');
  });

  it.each([
    ['no name', { durationsMin: [30] }, ['name']],
    ['a blank name', { name: '   ', durationsMin: [30] }, ['name']],
    ['a name over 100 characters', { name: 'x'.repeat(101), durationsMin: [30] }, ['name']],
    ['no durations', { name: 'X' }, ['durationsMin']],
    ['empty durations', { name: 'X', durationsMin: [] }, ['durationsMin']],
    ['repeated durations', { name: 'X', durationsMin: [30, 30] }, ['durationsMin']],
    ['13 durations', { name: 'X', durationsMin: Array.from({ length: 13 }, (_, i) => 5 + i) }, ['durationsMin']],
    ['a 4-minute duration', { name: 'X', durationsMin: [4] }, ['durationsMin', 0]],
    ['a 721-minute duration', { name: 'X', durationsMin: [30, 721] }, ['durationsMin', 1]],
    ['a fractional duration', { name: 'X', durationsMin: [30.5] }, ['durationsMin', 0]],
    ['a duration as a string', { name: 'X', durationsMin: ['30'] }, ['durationsMin', 0]],
    ['a buffer over 240', { name: 'X', durationsMin: [30], bufferAfterMin: 241 }, ['bufferAfterMin']],
    ['a negative buffer', { name: 'X', durationsMin: [30], bufferBeforeMin: -1 }, ['bufferBeforeMin']],
    ['a named colour', { name: 'X', durationsMin: [30], color: 'red' }, ['color']],
    ['a slug with spaces', { name: 'X', durationsMin: [30], slug: 'my slug' }, ['slug']],
    ['a slug with capitals', { name: 'X', durationsMin: [30], slug: 'Intro' }, ['slug']],
    ['a slug starting with a hyphen', { name: 'X', durationsMin: [30], slug: '-intro' }, ['slug']],
    ['a slug over 60 characters', { name: 'X', durationsMin: [30], slug: 'a'.repeat(61) }, ['slug']],
    ['an unknown kind', { name: 'X', durationsMin: [30], kind: 'webinar' }, ['kind']],
    ['a negative notice', { name: 'X', durationsMin: [30], minimumNoticeMin: -1 }, ['minimumNoticeMin']],
    ['a notice over a year', { name: 'X', durationsMin: [30], minimumNoticeMin: 525_601 }, ['minimumNoticeMin']],
    ['a 4-minute slot interval', { name: 'X', durationsMin: [30], slotIntervalMin: 4 }, ['slotIntervalMin']],
    ['one seat for a group', { name: 'X', durationsMin: [30], kind: 'group', seatsPerSlot: 1 }, ['seatsPerSlot']],
    ['1001 seats', { name: 'X', durationsMin: [30], kind: 'group', seatsPerSlot: 1001 }, ['seatsPerSlot']],
    ['seats for a one-on-one', { name: 'X', durationsMin: [30], seatsPerSlot: 5 }, ['seatsPerSlot']],
    ['seats for a round robin', { name: 'X', durationsMin: [30], kind: 'round_robin', seatsPerSlot: 5 }, ['seatsPerSlot']],
    ['secret as a string', { name: 'X', durationsMin: [30], secret: 'true' }, ['secret']],
    ['an unknown field', { name: 'X', durationsMin: [30], duration: 30 }, []],
  ])('refuses %s with 400 and details', async (_label, body, path) => {
    const before = await t.em().execute<{ n: number }[]>('select count(*)::int as n from event_type where owner_id = ?', [alice.id]);
    expectBadRequest(await create(alice, body), path);
    const after = await t.em().execute<{ n: number }[]>('select count(*)::int as n from event_type where owner_id = ?', [alice.id]);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it('refuses a token without write:event-types with 403 and a missing token with 401', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:event-types'] });
    const res = await create(reader, { name: 'X', durationsMin: [30] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('write:event-types') });
    expect(res.headers['www-authenticate']).toContain('scope="write:event-types"');
    const anonymous = await t.http.post('/api/v2/event-types').send({ name: 'X', durationsMin: [30] });
    expect(anonymous.status).toBe(401);
  });

  it('creates an event type whose slots follow its notice, interval and durations', async () => {
    const res = await create(alice, { name: 'Grid', durationsMin: [45], minimumNoticeMin: 120, slotIntervalMin: 60 });
    expect(res.status).toBe(201);
    // Monday 09:00-17:00 UTC, not before 14:00 (two hours' notice), a start every hour, 45 minutes each.
    expect(await slots(alice, res.body.id)).toEqual(['14:00', '15:00', '16:00']);
  });
});

describe('PATCH /api/v2/event-types/{id}', () => {
  it('changes only the fields sent and moves updatedAt', async () => {
    clock.set(NOW);
    const created = (await create(alice, { name: 'Patch me', durationsMin: [30], bufferBeforeMin: 5, color: '#111111' })).body as EventTypeBody;
    clock.set(LATER);
    const res = await patch(alice, created.id, { name: 'Patched', durationsMin: [20, 40], color: '#ABCDEF' });
    clock.set(NOW);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      name: 'Patched',
      durationsMin: [20, 40],
      color: '#abcdef',
      updatedAt: LATER,
    });
    expect(res.body.bufferBeforeMin).toBe(5);

    const empty = await patch(alice, created.id, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(res.body);
  });

  it('changes the slots: notice, interval (null: every duration), durations', async () => {
    const created = (await create(alice, { name: 'Slots', durationsMin: [45], slotIntervalMin: 60 })).body as EventTypeBody;
    expect(await slots(alice, created.id)).toEqual(['12:00', '13:00', '14:00', '15:00', '16:00']);
    expect((await patch(alice, created.id, { minimumNoticeMin: 120, slotIntervalMin: null })).status).toBe(200);
    expect(await settings(created.id)).toMatchObject({ min_notice_min: 120, slot_interval_min: null });
    // Every 45 minutes from 09:00: 14:15, 15:00 and 15:45 are at least two hours away and end by 17:00.
    expect(await slots(alice, created.id)).toEqual(['14:15', '15:00', '15:45']);
  });

  it('refuses kind (it cannot change) and unknown fields with 400', async () => {
    const created = (await create(alice, { name: 'Fixed kind', durationsMin: [30] })).body as EventTypeBody;
    const res = await patch(alice, created.id, { kind: 'group' });
    expectBadRequest(res, []);
    expect(res.body.message).toContain('kind cannot change');
    expectBadRequest(await patch(alice, created.id, { nmae: 'typo' }), []);
    expectBadRequest(await patch(alice, created.id, { durationsMin: [] }), ['durationsMin']);
    expectBadRequest(await patch(alice, created.id, { name: '' }), ['name']);
    expectBadRequest(await patch(alice, created.id, { seatsPerSlot: 4 }), ['seatsPerSlot']);
    expectBadRequest(await patch(alice, created.id, { active: 'yes' }), ['active']);
  });

  it('changes the seats of a group event type', async () => {
    const created = (await create(alice, { name: 'Seats', kind: 'group', durationsMin: [30] })).body as EventTypeBody;
    expect((await patch(alice, created.id, { seatsPerSlot: 3 })).status).toBe(200);
    expect((await settings(created.id)).seats_per_slot).toBe(3);
  });

  it('answers 404 for another user’s event type and an unknown one, changing nothing', async () => {
    const bobs = (await create(bob, { name: 'Bob’s', durationsMin: [30] })).body as EventTypeBody;
    const foreign = await patch(alice, bobs.id, { name: 'Mine now' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ title: 'Not Found', message: 'Event type not found' });
    expect((await patch(alice, 'no-such-id', { name: 'X' })).status).toBe(404);
    const [row] = await t.em().execute<{ name: string }[]>('select name from event_type where id = ?', [bobs.id]);
    expect(row!.name).toBe('Bob’s');
  });

  it('refuses a slug the user already has with 409; keeping its own slug is fine', async () => {
    const first = (await create(alice, { name: 'First', slug: 'first-one', durationsMin: [30] })).body as EventTypeBody;
    const second = (await create(alice, { name: 'Second', slug: 'second-one', durationsMin: [30] })).body as EventTypeBody;
    const res = await patch(alice, second.id, { slug: 'first-one' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ title: 'Conflict', message: expect.stringContaining('first-one') });
    expect((await patch(alice, first.id, { slug: 'first-one', name: 'First!' })).status).toBe(200);
    const renamed = await patch(alice, second.id, { slug: 'second-renamed' });
    expect(renamed.body.url).toBe(`${t.siteUrl}/book/${encodeURIComponent(aliceSlug)}/second-renamed`);
  });

  it('turning secret on creates a private link, shown once (kept while it stays on); turning it off discards it', async () => {
    const created = (await create(alice, { name: 'Hidden', slug: 'hidden', durationsMin: [30] })).body as EventTypeBody;
    const on = await patch(alice, created.id, { secret: true });
    const key = privateLinkKey(on.body.url);
    expect(key).toMatch(/^[a-z2-7]{52}$/);
    expect(on.body).toMatchObject({ secret: true, url: `${created.url}?key=${key}` });
    expect((await settings(created.id)).private_link_key_hash).toBe(hashToken(key));
    expect(await publicEventType(created.slug, key)).toBe(200);
    // Only the hash is kept: later answers give the page without the key, and the link keeps working.
    const again = await patch(alice, created.id, { secret: true });
    expect(again.body).toMatchObject({ secret: true, url: created.url });
    expect((await list(alice)).find((et) => et.id === created.id)?.url).toBe(created.url);
    expect(await publicEventType(created.slug, key)).toBe(200);
    const off = await patch(alice, created.id, { secret: false });
    expect(off.body).toMatchObject({ secret: false, url: created.url });
    expect((await settings(created.id)).private_link_key_hash).toBeNull();
    const newLink = await patch(alice, created.id, { secret: true });
    expect(privateLinkKey(newLink.body.url)).not.toBe(key);
    expect(await publicEventType(created.slug, key)).toBe(404);
  });

  it('POST /event-types/{id}/private-link replaces the key: the new link works, the old one at once no longer', async () => {
    const created = (await create(alice, { name: 'Rotated', slug: 'rotated', durationsMin: [30], secret: true })).body as EventTypeBody;
    const oldKey = privateLinkKey(created.url);
    const rotated = await t.http.post(`/api/v2/event-types/${created.id}/private-link`).set(...bearer(alice.token)).send({});
    expect(rotated.status).toBe(200);
    const newKey = privateLinkKey(rotated.body.url);
    expect(newKey).toMatch(/^[a-z2-7]{52}$/);
    expect(newKey).not.toBe(oldKey);
    expect(await publicEventType('rotated', newKey)).toBe(200);
    expect(await publicEventType('rotated', oldKey)).toBe(404);
    const notSecret = (await create(alice, { name: 'Open', durationsMin: [30] })).body as EventTypeBody;
    const conflict = await t.http.post(`/api/v2/event-types/${notSecret.id}/private-link`).set(...bearer(alice.token)).send({});
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({ title: 'Conflict', message: expect.stringContaining('secret') });
    const othersOwn = await t.http.post(`/api/v2/event-types/${created.id}/private-link`).set(...bearer(bob.token)).send({});
    expect(othersOwn.status).toBe(404);
    expect(await publicEventType('rotated', newKey)).toBe(200);
  });

  it('leaves existing bookings as they were booked', async () => {
    const created = (await create(alice, { name: 'Booked', durationsMin: [30], bufferAfterMin: 10 })).body as EventTypeBody;
    const booking = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(alice.token))
      .send({
        eventTypeId: created.id,
        start: '2026-06-02T10:00:00Z',
        durationMin: 30,
        invitee: { name: 'Ivy', email: 'ivy.booked@example.test', timezone: 'UTC' },
      });
    expect(booking.status).toBe(201);
    const patched = await patch(alice, created.id, { name: 'Renamed', durationsMin: [60], bufferAfterMin: 60, bufferBeforeMin: 30 });
    expect(patched.status).toBe(200);
    const [row] = await t.em().execute<{ start_at: Date; duration_min: number; busy: string }[]>(
      `select b.start_at, b.duration_min, bb.busy::text as busy
         from booking b join booking_busy_block l on l.booking_id = b.id join busy_block bb on bb.id = l.busy_block_id
        where b.id = ?`,
      [booking.body.id],
    );
    expect(row!.duration_min).toBe(30);
    expect(new Date(row!.start_at).toISOString()).toBe('2026-06-02T10:00:00.000Z');
    expect(row!.busy).toBe('["2026-06-02 10:00:00+00","2026-06-02 10:40:00+00")');
    const list = await t.http.get('/api/v2/bookings').set(...bearer(alice.token));
    const listed = list.body.data.find((b: { id: string }) => b.id === booking.body.id);
    expect(listed).toMatchObject({ durationMin: 30, endAt: '2026-06-02T10:30:00.000Z', eventType: { name: 'Renamed' } });
  });
});

describe('DELETE /api/v2/event-types/{id}', () => {
  it('deactivates (idempotently): no slots, bookings refused with 409; PATCH active: true brings it back', async () => {
    clock.set(NOW);
    const created = (await create(alice, { name: 'Retire me', durationsMin: [30] })).body as EventTypeBody;
    expect((await slots(alice, created.id)).length).toBeGreaterThan(0);

    clock.set(LATER);
    const res = await deactivate(alice, created.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, active: false, updatedAt: LATER });
    clock.set('2026-06-01T12:10:00Z');
    const again = await deactivate(alice, created.id);
    clock.set(NOW);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);

    expect(await slots(alice, created.id)).toEqual([]);
    const booking = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(alice.token))
      .send({ eventTypeId: created.id, start: '2026-06-02T10:00:00Z', durationMin: 30, invitee: { name: 'I', email: 'i@example.test', timezone: 'UTC' } });
    expect(booking.status).toBe(409);
    expect(booking.body.message).toContain('inactive');

    const list = await t.http.get('/api/v2/event-types').set(...bearer(alice.token));
    expect(list.body.data).toContainEqual(res.body);

    expect((await patch(alice, created.id, { active: true })).body.active).toBe(true);
    expect((await slots(alice, created.id)).length).toBeGreaterThan(0);
  });

  it('keeps the bookings of a deactivated event type', async () => {
    const created = (await create(alice, { name: 'With history', durationsMin: [30] })).body as EventTypeBody;
    const booking = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(alice.token))
      .send({ eventTypeId: created.id, start: '2026-06-03T10:00:00Z', durationMin: 30, invitee: { name: 'H', email: 'h@example.test', timezone: 'UTC' } });
    expect(booking.status).toBe(201);
    expect((await deactivate(alice, created.id)).status).toBe(200);
    const list = await t.http.get('/api/v2/bookings').set(...bearer(alice.token));
    expect(list.body.data).toContainEqual(booking.body);
  });

  it('answers 404 for another user’s event type and an unknown one; 403 without the scope', async () => {
    const bobs = await insertEventType(t.em(), bob.id, { name: 'Bob active' });
    expect((await deactivate(alice, bobs.id)).status).toBe(404);
    expect((await deactivate(alice, 'nope')).status).toBe(404);
    const [row] = await t.em().execute<{ active: boolean }[]>('select active from event_type where id = ?', [bobs.id]);
    expect(row!.active).toBe(true);
    const reader = await createUserWithToken(t.em(), { scopes: ['read:event-types', 'write:bookings'] });
    expect((await deactivate(reader, bobs.id)).status).toBe(403);
  });
});

describe('the same procedures through tRPC', () => {
  it('create, update and deactivate with a bearer token; same validation and ownership', async () => {
    const client = trpcClient(t.siteUrl, { bearer: alice.token });
    const created = await client.eventTypes.create.mutate({ name: 'Over tRPC', durationsMin: [25] });
    expect(created).toMatchObject({ name: 'Over tRPC', slug: 'over-trpc', kind: 'one_on_one', durationsMin: [25], active: true });

    const renamed = await client.eventTypes.update.mutate({ id: created.id, name: 'Renamed over tRPC' });
    expect(renamed.name).toBe('Renamed over tRPC');

    const kindChange = await failure(client.eventTypes.update.mutate({ id: created.id, kind: 'group' } as never));
    expect(kindChange).toMatchObject({ status: 400, message: expect.stringContaining('kind cannot change') });
    const invalid = await failure(client.eventTypes.create.mutate({ name: 'X', durationsMin: [1] }));
    expect(invalid.status).toBe(400);

    const bobsView = await failure(trpcClient(t.siteUrl, { bearer: bob.token }).eventTypes.deactivate.mutate({ id: created.id }));
    expect(bobsView.status).toBe(404);

    const deactivated = await client.eventTypes.deactivate.mutate({ id: created.id });
    expect(deactivated).toMatchObject({ id: created.id, active: false });
  });
});
