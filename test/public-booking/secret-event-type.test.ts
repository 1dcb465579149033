import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

/**
 * A secret event type is open to the public procedures only with its current private link key: its id alone
 * (shown on every invitee's manage page) or a key replaced since opens nothing, and the refusal is the 404 of an
 * event type that does not exist. An invitee's manage token opens the availability of their booking's event type.
 */

// Sunday 2026-03-01 12:00 UTC; the host works 9 to 5 UTC on weekdays.
const NOW = '2026-03-01T12:00:00Z';

function trpc(t: TestApp) {
  return {
    query: (path: string, input: unknown) =>
      t.http.get(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.21').query({ input: JSON.stringify(superjson.serialize(input)) }),
    mutate: (path: string, input: unknown) =>
      t.http.post(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.21').send(superjson.serialize(input) as object),
  };
}
const data = <T>(res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as T;

let t: TestApp;
let host: TestUser;
let api: ReturnType<typeof trpc>;
let secretId: string;
let oldKey: string;
let currentKey: string;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW), env: BEHIND_PROXY, publicRateLimitPerMinute: 10_000 });
  api = trpc(t);
  host = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
  oldKey = 'the-key-before-regeneration';
  secretId = (await createEventType(t.em(), host.id, { slug: 'vip', secret: true, privateLinkKey: oldKey, durationsMin: [30] })).id;
  const regenerated = await t.http.post(`/api/v2/event-types/${secretId}/private-link`).set(...bearer(host.token));
  expect(regenerated.status, regenerated.text).toBe(200);
  currentKey = new URL(regenerated.body.url as string).searchParams.get('key')!;
  await createEventType(t.em(), host.id, { secret: true, privateLinkKey: 'another-secret-key' });
});
afterAll(() => t.close());

const window = (day: string) => ({ from: `${day}T00:00:00Z`, to: `${day}T23:59:00Z` });
const person = () => ({ ...invitee(), timezone: 'UTC' });

/** The answer for an event type id that does not exist: what a refusal must look like, so that ids leak nothing. */
async function missingAnswer(call: (eventTypeId: string) => Promise<{ status: number; body: unknown }>) {
  const res = await call('no-such-event-type');
  expect(res.status).toBe(404);
  return res.body;
}

const calls = {
  availability: (eventTypeId: string, access: object) =>
    api.query('publicBooking.availability', { eventTypeId, ...window('2026-03-02'), ...access }),
  book: (eventTypeId: string, access: object, start = '2026-03-03T09:00:00Z') =>
    api.mutate('publicBooking.book', { eventTypeId, start, durationMin: 30, invitee: person(), ...access }),
  captureLead: (eventTypeId: string, access: object) =>
    api.mutate('publicBooking.captureLead', { eventTypeId, email: 'lead@example.test', timezone: 'UTC', ...access }),
};

async function counts() {
  const [row] = await t.em().execute<{ bookings: string; leads: string }[]>(
    'select (select count(*) from booking where event_type_id = ?) as bookings, (select count(*) from lead where event_type_id = ?) as leads',
    [secretId, secretId],
  );
  return row;
}

describe.each(Object.keys(calls) as (keyof typeof calls)[])('publicBooking.%s of a secret event type', (name) => {
  const call = calls[name];

  it.each([
    ['without a key', {}],
    ['with a null key', { key: null }],
    ['with the key the link had before it was regenerated', () => ({ key: oldKey })],
    ['with a wrong key', { key: 'guess' }],
    ['with the key of another secret event type', () => ({ key: 'another-secret-key' })],
  ])('%s: the 404 of an event type that does not exist, and nothing written', async (_label, accessOf) => {
    const access = typeof accessOf === 'function' ? accessOf() : accessOf;
    const before = await counts();
    const res = await call(secretId, access);
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual(await missingAnswer((id) => call(id, access)));
    expect(await counts()).toEqual(before);
  });

  it('with its current key: served', async () => {
    const res = await call(secretId, { key: currentKey });
    expect(res.status, res.text).toBe(200);
  });
});

describe('the invitee of a secret event type, on their manage page', () => {
  it('sees its availability with their manage token and reschedules their booking; the token opens nothing else', async () => {
    const booked = await calls.book(secretId, { key: currentKey }, '2026-03-04T09:00:00Z');
    expect(booked.status, booked.text).toBe(200);
    const token = data<{ links: { manage: string } }>(booked).links.manage.split('/').at(-1)!;

    const slots = await api.query('publicBooking.availability', { eventTypeId: secretId, ...window('2026-03-05'), manageToken: token });
    expect(slots.status, slots.text).toBe(200);
    const [slot] = data<{ data: { start: string }[] }>(slots).data;
    const moved = await api.mutate('publicBooking.rescheduleManaged', { token, start: slot!.start });
    expect(moved.status, moved.text).toBe(200);
    expect(data<{ booking: { startAt: string } }>(moved).booking.startAt).toBe(new Date(slot!.start).toISOString());

    // Not another event type's availability, not a booking or a lead.
    const otherSecret = (await createEventType(t.em(), host.id, { secret: true, privateLinkKey: 'other-key' })).id;
    const other = await api.query('publicBooking.availability', { eventTypeId: otherSecret, ...window('2026-03-05'), manageToken: token });
    expect(other.status).toBe(404);
    expect((await calls.book(secretId, { manageToken: token }, '2026-03-06T09:00:00Z')).status).toBe(404);
    expect((await calls.captureLead(secretId, { manageToken: token })).status).toBe(404);

    // A canceled booking holds nothing any more, and its page links to no booking page (the key is not known here).
    const canceled = await api.mutate('publicBooking.cancelManaged', { token });
    expect(canceled.status).toBe(200);
    expect(data<{ eventType: { url: string | null } }>(canceled).eventType.url).toBeNull();
    const after = await api.query('publicBooking.availability', { eventTypeId: secretId, ...window('2026-03-05'), manageToken: token });
    expect(after.status).toBe(404);
  });
});

describe('a public event type', () => {
  it('still needs no key, and ignores one', async () => {
    const open = (await createEventType(t.em(), host.id, { durationsMin: [30] })).id;
    expect((await calls.availability(open, {})).status).toBe(200);
    expect((await calls.availability(open, { key: 'anything' })).status).toBe(200);
    expect((await calls.captureLead(open, {})).status).toBe(200);
    expect((await calls.book(open, {}, '2026-03-09T09:00:00Z')).status).toBe(200);
  });
});
