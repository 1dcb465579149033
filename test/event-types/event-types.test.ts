import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

describe('GET /api/v2/event-types', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let aliceSlug: string;
  let intro: TestEventType;
  let workshop: TestEventType;
  let hidden: TestEventType;
  let retired: TestEventType;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL: 'https://cal.example.test' } });
    alice = await createUserWithToken(t.em(), { name: 'Alice' });
    bob = await createUserWithToken(t.em(), { name: 'Bob' });
    const [row] = await t.em().execute<{ slug: string }[]>('select slug from app_user where id = ?', [alice.id]);
    aliceSlug = row!.slug;
    // Created out of order on purpose: the list is ordered by creation time, then id.
    workshop = await createEventType(t.em(), alice.id, {
      name: 'Group workshop',
      slug: 'workshop',
      kind: 'group',
      durationsMin: [90, 120],
      bufferBeforeMin: 15,
      bufferAfterMin: 10,
      color: '#16a34a',
      organizationId: 'org-42',
      createdAt: new Date('2026-02-01T10:00:00.123Z'),
      updatedAt: new Date('2026-02-03T08:30:00Z'),
    });
    intro = await createEventType(t.em(), alice.id, {
      name: 'Intro call',
      slug: 'intro',
      durationsMin: [30, 60],
      createdAt: new Date('2026-01-15T09:00:00Z'),
    });
    hidden = await createEventType(t.em(), alice.id, {
      name: 'VIP consult',
      slug: 'vip',
      secret: true,
      privateLinkKey: 'k3y with/slash',
      createdAt: new Date('2026-03-01T00:00:00Z'),
    });
    retired = await createEventType(t.em(), alice.id, {
      name: 'Old demo',
      slug: 'old-demo',
      kind: 'round_robin',
      active: false,
      createdAt: new Date('2026-03-01T00:00:00Z'),
    });
    await createEventType(t.em(), bob.id, { name: 'Bob only', slug: 'intro', createdAt: new Date('2026-01-01T00:00:00Z') });
  });
  afterAll(() => t.close());

  it("lists the caller's event types, field for field, oldest first", async () => {
    const res = await t.http.get('/api/v2/event-types').set(...bearer(alice.token));
    expect(res.status).toBe(200);
    const base = `https://cal.example.test/book/${encodeURIComponent(aliceSlug)}`;
    // hidden and retired were created at the same instant: the id decides.
    const sameInstant = [hidden, retired].sort((a, b) => (a.id < b.id ? -1 : 1)).map((et) => et.id);
    expect(res.body.data.map((et: { id: string }) => et.id)).toEqual([intro.id, workshop.id, ...sameInstant]);
    const byId = new Map(res.body.data.map((et: { id: string }) => [et.id, et]));
    expect(byId.get(workshop.id)).toEqual({
      id: workshop.id,
      name: 'Group workshop',
      slug: 'workshop',
      url: `${base}/workshop`,
      kind: 'group',
      durationsMin: [90, 120],
      bufferBeforeMin: 15,
      bufferAfterMin: 10,
      color: '#16a34a',
      active: true,
      secret: false,
      organizationId: 'org-42',
      reminders: [{ offsetMin: 1440, to: 'invitee' }],
      notifications: true,
      createdAt: '2026-02-01T10:00:00.123Z',
      updatedAt: '2026-02-03T08:30:00.000Z',
      minimumNoticeMin: 0,
      slotIntervalMin: null,
      seatsPerSlot: 10,
      bookingWindow: null,
      limits: null,
      cancelNoticeMin: 0,
      rescheduleNoticeMin: 0,
      requiresConfirmation: false,
      recurrence: null,
      description: null,
      locations: [],
    });
    expect(byId.get(intro.id)).toEqual({
      id: intro.id,
      name: 'Intro call',
      slug: 'intro',
      url: `${base}/intro`,
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
      createdAt: '2026-01-15T09:00:00.000Z',
      updatedAt: '2026-01-15T09:00:00.000Z',
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
    // The private link's key is stored hashed: a listing gives the page without it.
    expect(byId.get(hidden.id)).toMatchObject({ secret: true, url: `${base}/vip` });
    expect(res.text).not.toContain('k3y');
    expect(byId.get(retired.id)).toMatchObject({ active: false, kind: 'round_robin', url: `${base}/old-demo` });
  });

  it("never shows another user's event types", async () => {
    const res = await t.http.get('/api/v2/event-types').set(...bearer(bob.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ name: 'Bob only', slug: 'intro' });
  });

  it('answers an empty list to a user without event types', async () => {
    const carol = await createUserWithToken(t.em());
    const res = await t.http.get('/api/v2/event-types').set(...bearer(carol.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('refuses a missing token with 401', async () => {
    const res = await t.http.get('/api/v2/event-types');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ title: 'Unauthorized', message: expect.any(String) });
  });

  it('refuses a token without read:event-types with 403 naming the scope', async () => {
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:bookings', 'write:event-types'] });
    const res = await t.http.get('/api/v2/event-types').set(...bearer(narrow.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('read:event-types') });
  });

  it('serves the same procedure over tRPC', async () => {
    const res = await t.http.get('/trpc/eventTypes.list').set(...bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.data.map((et: { id: string }) => et.id)).toContain(intro.id);
  });
});
