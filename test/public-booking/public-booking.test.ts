import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

const NOW = '2026-03-01T12:00:00Z';

/** The booking page's calls: tRPC over HTTP with superjson, no credentials. */
function trpc(t: TestApp, ip = '203.0.113.7') {
  return {
    query: (path: string, input: unknown) =>
      t.http
        .get(`/trpc/${path}`)
        .set('X-Forwarded-For', ip)
        .query({ input: JSON.stringify(superjson.serialize(input)) }),
    mutate: (path: string, input: unknown, headers: Record<string, string> = {}) =>
      t.http
        .post(`/trpc/${path}`)
        .set('X-Forwarded-For', ip)
        .set(headers)
        .send(superjson.serialize(input) as object),
  };
}
const data = (res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as Record<string, never>;

describe('public booking procedures (/trpc publicBooking.*)', () => {
  let t: TestApp;
  let owner: TestUser;
  let ownerSlug: string;
  let eventTypeId: string;
  let secretId: string;
  let api: ReturnType<typeof trpc>;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), env: BEHIND_PROXY });
    api = trpc(t);
    owner = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin', name: 'Berta Host' });
    ownerSlug = ((await t.em().execute('select slug from app_user where id = ?', [owner.id]))[0] as { slug: string }).slug;
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, { slug: 'consult', name: 'Consultation', durationsMin: [30, 60] })).id;
    secretId = (await createEventType(t.em(), owner.id, { slug: 'vip', secret: true, privateLinkKey: 'k3y-s3cret' })).id;
    await createEventType(t.em(), owner.id, { slug: 'old', active: false });
  });
  afterAll(() => t.close());

  describe('eventType', () => {
    it('reads an active public event type by slugs, without internal fields', async () => {
      const res = await api.query('publicBooking.eventType', { userSlug: ownerSlug, eventTypeSlug: 'consult' });
      expect(res.status).toBe(200);
      expect(data(res)).toEqual({
        id: eventTypeId,
        name: 'Consultation',
        slug: 'consult',
        url: `http://localhost:3000/book/${ownerSlug}/consult`,
        kind: 'one_on_one',
        durationsMin: [30, 60],
        color: '#2563eb',
        minNoticeMin: 0,
        seatsPerSlot: 1,
        requiresConfirmation: false,
        recurrence: null,
        owner: { name: 'Berta Host', slug: ownerSlug, timezone: 'Europe/Berlin' },
        description: null,
        locations: [],
      });
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('hides inactive, unknown and secret-without-the-right-key event types behind the same 404', async () => {
      const cases = [
        { userSlug: ownerSlug, eventTypeSlug: 'old' },
        { userSlug: ownerSlug, eventTypeSlug: 'nope' },
        { userSlug: 'nobody', eventTypeSlug: 'consult' },
        { userSlug: ownerSlug, eventTypeSlug: 'vip' },
        { userSlug: ownerSlug, eventTypeSlug: 'vip', key: 'wrong' },
      ];
      for (const input of cases) {
        const res = await api.query('publicBooking.eventType', input);
        expect(res.status, JSON.stringify(input)).toBe(404);
        expect(res.body.error.json.message).toBe('Event type not found');
      }
      const res = await api.query('publicBooking.eventType', { userSlug: ownerSlug, eventTypeSlug: 'vip', key: 'k3y-s3cret' });
      expect(res.status).toBe(200);
      expect(data(res).id).toBe(secretId);
      expect(data(res).url).toBe(`http://localhost:3000/book/${ownerSlug}/vip?key=k3y-s3cret`);
    });
  });

  describe('availability', () => {
    it('gives the same slots as the owner’s GET /availability', async () => {
      const query = { eventTypeId, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z', tz: 'Europe/Berlin' };
      const pub = await api.query('publicBooking.availability', query);
      expect(pub.status).toBe(200);
      const rest = await t.http.get('/api/v2/availability').query(query).set(...bearer(owner.token));
      expect(data(pub).data).toEqual(rest.body.data);
      expect((data(pub).data as unknown as unknown[])[0]).toEqual({ start: '2026-03-02T09:00:00+01:00', end: '2026-03-02T09:30:00+01:00' });
    });

    it('validates like the REST endpoint and 404s an inactive event type', async () => {
      const bad = await api.query('publicBooking.availability', { eventTypeId, from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.json.details[0].path).toEqual(['to']);
      const inactive = (await createEventType(t.em(), owner.id, { active: false })).id;
      const res = await api.query('publicBooking.availability', { eventTypeId: inactive, from: '2026-03-02T00:00:00Z', to: '2026-03-03T00:00:00Z' });
      expect(res.status).toBe(404);
    });
  });

  describe('book', () => {
    it('books with the POST /bookings body; the slot then disappears', async () => {
      const res = await api.mutate('publicBooking.book', {
        eventTypeId,
        start: '2026-03-02T09:00:00+01:00',
        durationMin: 30,
        invitee: invitee('pat@example.test'),
      });
      expect(res.status).toBe(200);
      expect(data(res)).toMatchObject({ status: 'active', startAt: '2026-03-02T08:00:00.000Z', durationMin: 30 });
      const again = await api.mutate('publicBooking.book', {
        eventTypeId,
        start: '2026-03-02T08:00:00Z',
        durationMin: 30,
        invitee: invitee(),
      });
      expect(again.status).toBe(409);
      const slots = await api.query('publicBooking.availability', { eventTypeId, from: '2026-03-02T08:00:00Z', to: '2026-03-02T09:00:00Z' });
      expect(data(slots)).toEqual({ data: [{ start: '2026-03-02T08:30:00.000Z', end: '2026-03-02T09:00:00.000Z' }] });
    });

    it('books a secret event type with its key (404 by its id alone), refuses an inactive one with 409 and validates the body', async () => {
      const booking = { eventTypeId: secretId, start: '2026-03-03T08:00:00Z', durationMin: 30, invitee: invitee() };
      expect((await api.mutate('publicBooking.book', booking)).status).toBe(404);
      const secret = await api.mutate('publicBooking.book', { ...booking, key: 'k3y-s3cret' });
      expect(secret.status).toBe(200);
      const inactive = (await createEventType(t.em(), owner.id, { active: false })).id;
      const res = await api.mutate('publicBooking.book', { eventTypeId: inactive, start: '2026-03-03T09:00:00Z', durationMin: 30, invitee: invitee() });
      expect(res.status).toBe(409);
      const invalid = await api.mutate('publicBooking.book', { eventTypeId, start: 'soon', durationMin: 30, invitee: invitee() });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.json.details[0].path).toEqual(['start']);
    });

    it('replays an Idempotency-Key per client address', async () => {
      const body = { eventTypeId, start: '2026-03-04T08:00:00Z', durationMin: 30, invitee: invitee() };
      const first = await api.mutate('publicBooking.book', body, { 'Idempotency-Key': 'page-retry' });
      const retry = await api.mutate('publicBooking.book', body, { 'Idempotency-Key': 'page-retry' });
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(data(retry).id).toBe(data(first).id);
      // Another address with the same key is another request: the slot is taken, 409.
      const elsewhere = await trpc(t, '198.51.100.9').mutate('publicBooking.book', body, { 'Idempotency-Key': 'page-retry' });
      expect(elsewhere.status).toBe(409);
    });
  });

  describe('captureLead', () => {
    it('captures a lead once per person and event type; the booking converts it', async () => {
      const first = await api.mutate('publicBooking.captureLead', { eventTypeId, name: 'Liam', email: 'Liam@Example.test', timezone: 'Europe/Paris' });
      expect(first.status).toBe(200);
      expect(data(first)).toEqual({ captured: true });
      await api.mutate('publicBooking.captureLead', { eventTypeId, email: 'liam@example.TEST', timezone: 'Europe/Rome' });
      const leads = await t.em().execute<{ id: string }[]>('select id, name, email, timezone, status, booking_id from lead where event_type_id = ?', [eventTypeId]);
      expect(leads).toEqual([
        { id: expect.any(String), name: 'Liam', email: 'liam@example.TEST', timezone: 'Europe/Rome', status: 'new', booking_id: null },
      ]);
      const [contact] = await t.em().execute('select kind, status from contact where owner_id = ? and email_key = ?', [owner.id, 'liam@example.test']);
      expect(contact).toEqual({ kind: 'lead', status: 'new' });

      const booked = await api.mutate('publicBooking.book', {
        eventTypeId,
        start: '2026-03-05T08:00:00Z',
        durationMin: 60,
        invitee: { name: 'Liam', email: 'LIAM@example.test', timezone: 'Europe/Paris' },
      });
      expect(booked.status).toBe(200);
      const [lead] = await t.em().execute<{ booking_id: string; completed_at: string }[]>('select booking_id, completed_at from lead where id = ?', [leads[0]!.id]);
      expect(lead!.booking_id).toBe(data(booked).id);
      expect(new Date(lead!.completed_at).toISOString()).toBe(new Date(NOW).toISOString());
      const [after] = await t.em().execute('select kind, status, meetings from contact where owner_id = ? and email_key = ?', [owner.id, 'liam@example.test']);
      expect(after).toEqual({ kind: 'client', status: 'client', meetings: 1 });
    });

    it('validates the input and 404s an unknown event type', async () => {
      const bad = await api.mutate('publicBooking.captureLead', { eventTypeId, email: 'nope', timezone: 'Nowhere/Land' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.json.details.map((d: { path: string[] }) => d.path[0]).sort()).toEqual(['email', 'timezone']);
      const missing = await api.mutate('publicBooking.captureLead', { eventTypeId: 'missing', email: 'a@example.test', timezone: 'UTC' });
      expect(missing.status).toBe(404);
    });
  });

  it('is not part of the /api/v2 REST document', async () => {
    const doc = await t.http.get('/api/docs/openapi.json');
    expect(JSON.stringify(Object.keys(doc.body.paths))).not.toMatch(/public/i);
  });
});

describe('public booking rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), publicRateLimitPerMinute: 3, env: BEHIND_PROXY });
  });
  afterAll(() => t.close());

  it('limits each client address, with the rate-limit headers, and 429 with Retry-After past the limit', async () => {
    const api = trpc(t, '192.0.2.1');
    const input = { userSlug: 'nobody', eventTypeSlug: 'none' };
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.query('publicBooking.eventType', input);
      expect(res.status).toBe(404);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(String(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await api.mutate('publicBooking.captureLead', { eventTypeId: 'x', email: 'a@example.test', timezone: 'UTC' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // Another address has its own budget.
    expect((await trpc(t, '192.0.2.2').query('publicBooking.eventType', input)).status).toBe(404);
  });
});
