import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';

// "Now" is Sunday 2026-03-01 12:00 UTC; the owner works Monday to Friday 09:00–17:00 UTC.
const NOW = '2026-03-01T12:00:00Z';
const SITE = 'http://localhost:3000';

let t: TestApp;
let owner: TestUser;
let other: TestUser;
let intro: TestEventType;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW) });
  owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
  other = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
  intro = await createEventType(t.em(), owner.id, { name: 'Intro call', slug: 'intro', durationsMin: [30] });
});
afterAll(() => t.close());

const book = (start: string, extra: Record<string, unknown> = {}) =>
  t.http
    .post('/api/v2/bookings')
    .set(...bearer(owner.token))
    .send({ eventTypeId: intro.id, start, durationMin: 30, invitee: invitee(), ...extra });

describe('what a booking was created with comes back', () => {
  it('POST /bookings answers 201 with notes, answers, guests and location, and Location names GET /bookings/{id}', async () => {
    const created = await book('2026-03-02T10:00:00Z', {
      notes: 'Bring the numbers',
      answers: [{ questionId: 'topic', value: 'Pricing' }],
      guests: ['guest@example.test'],
      locationInput: 'Office 4',
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${SITE}/api/v2/bookings/${created.body.id}`);
    const expected = {
      notes: 'Bring the numbers',
      answers: [{ questionId: 'topic', value: 'Pricing' }],
      guests: ['guest@example.test'],
      location: { kind: 'invitee_input', value: 'Office 4' },
    };
    expect(created.body).toMatchObject(expected);

    const read = await t.http.get(`/api/v2/bookings/${created.body.id}`).set(...bearer(owner.token));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    const listed = await t.http.get('/api/v2/bookings').set(...bearer(owner.token));
    expect(listed.body.data.find((booking: { id: string }) => booking.id === created.body.id)).toMatchObject(expected);
  });

  it('a booking made without them has null notes and empty answers and guests', async () => {
    const created = await book('2026-03-02T11:00:00Z');
    expect(created.body).toMatchObject({ notes: null, answers: [], guests: [], location: null });
  });
});

describe('single-resource reads', () => {
  it('GET /bookings/{id}: another user’s or an unknown booking is 404; a token without read:bookings is 403', async () => {
    const created = await book('2026-03-02T12:00:00Z');
    expect((await t.http.get(`/api/v2/bookings/${created.body.id}`).set(...bearer(other.token))).status).toBe(404);
    expect((await t.http.get('/api/v2/bookings/nope').set(...bearer(owner.token))).status).toBe(404);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:event-types'] });
    expect((await t.http.get(`/api/v2/bookings/${created.body.id}`).set(...bearer(narrow.token))).status).toBe(403);
  });

  it('GET /event-types/{id} answers the event type as the list shows it; another user’s is 404', async () => {
    const list = await t.http.get('/api/v2/event-types').set(...bearer(owner.token));
    const read = await t.http.get(`/api/v2/event-types/${intro.id}`).set(...bearer(owner.token));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(list.body.data.find((eventType: { id: string }) => eventType.id === intro.id));
    expect((await t.http.get(`/api/v2/event-types/${intro.id}`).set(...bearer(other.token))).status).toBe(404);
  });

  it('GET /leads/{id} answers the lead as the list shows it; another user’s is 404', async () => {
    const lead = await createLead(t.em(), { eventType: intro });
    const list = await t.http.get('/api/v2/leads').set(...bearer(owner.token));
    const read = await t.http.get(`/api/v2/leads/${lead.id}`).set(...bearer(owner.token));
    expect(read.status).toBe(200);
    expect(read.body).toEqual(list.body.data.find((row: { id: string }) => row.id === lead.id));
    expect((await t.http.get(`/api/v2/leads/${lead.id}`).set(...bearer(other.token))).status).toBe(404);
  });

  it('the reads exist on /trpc too', async () => {
    const res = await t.http
      .get(`/trpc/eventTypes.get?input=${encodeURIComponent(JSON.stringify({ json: { id: intro.id } }))}`)
      .set(...bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.id).toBe(intro.id);
  });
});

describe('Location on every 201', () => {
  it('POST /event-types and POST /webhooks name the new resource, which GET then answers', async () => {
    const eventType = await t.http.post('/api/v2/event-types').set(...bearer(owner.token)).send({ name: 'Demo', durationsMin: [15] });
    expect(eventType.status).toBe(201);
    expect(eventType.headers.location).toBe(`${SITE}/api/v2/event-types/${eventType.body.id}`);
    expect((await t.http.get(new URL(eventType.headers.location as string).pathname).set(...bearer(owner.token))).status).toBe(200);

    const webhook = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(owner.token))
      .send({ url: 'https://93.184.215.14/hook', events: ['booking.created'] });
    expect(webhook.status).toBe(201);
    expect(webhook.headers.location).toBe(`${SITE}/api/v2/webhooks/${webhook.body.id}`);
    expect((await t.http.get(new URL(webhook.headers.location as string).pathname).set(...bearer(owner.token))).status).toBe(200);
  });

  it('an idempotent replay (201 again) names the same booking', async () => {
    const person = invitee();
    const send = () => book('2026-03-03T10:00:00Z', { invitee: person }).set('Idempotency-Key', 'single-reads-replay');
    const first = await send();
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(`${SITE}/api/v2/bookings/${first.body.id}`);
  });
});

describe('DELETE /bookings/{id} with a reason', () => {
  const cancel = (id: string) => t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(owner.token));

  it('takes the reason from a JSON body and stores it', async () => {
    const created = await book('2026-03-04T10:00:00Z');
    const res = await cancel(created.body.id).send({ reason: 'Out sick' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', cancelReason: 'Out sick', canceledBy: 'host' });
  });

  it('still takes it from the query string', async () => {
    const created = await book('2026-03-04T11:00:00Z');
    const res = await cancel(created.body.id).query({ reason: 'Travel' });
    expect(res.body).toMatchObject({ status: 'canceled', cancelReason: 'Travel' });
  });

  it.each([
    ['a reason that is not a string', { reason: 5 }, 'reason'],
    ['an unknown field', { why: 'x' }, 'why'],
    ['a reason over 500 characters', { reason: 'x'.repeat(501) }, 'reason'],
  ])('refuses %s with 400 and leaves the booking active', async (_label, body, path) => {
    const created = await book('2026-03-04T12:00:00Z');
    const res = await cancel(created.body.id).send(body);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: [path] })]));
    expect((await t.http.get(`/api/v2/bookings/${created.body.id}`).set(...bearer(owner.token))).body.status).toBe('active');
    await cancel(created.body.id);
  });

  it('refuses a reason given both in the query and the body, a body that is not an object, and one that is not JSON', async () => {
    const created = await book('2026-03-04T13:00:00Z');
    expect((await cancel(created.body.id).query({ reason: 'a' }).send({ reason: 'b' })).status).toBe(400);
    expect((await cancel(created.body.id).set('Content-Type', 'application/json').send('["x"]')).status).toBe(400);
    expect((await cancel(created.body.id).set('Content-Type', 'text/plain').send('reason=x')).status).toBe(415);
    expect((await t.http.get(`/api/v2/bookings/${created.body.id}`).set(...bearer(owner.token))).body.status).toBe('active');
  });
});
