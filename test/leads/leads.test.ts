import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead, type TestEventType, type TestLead } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';

interface LeadBody {
  id: string;
  status: string;
  booked: boolean;
  createdAt: string;
}

describe('GET /api/v2/leads', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let demo: TestEventType;
  let converted: TestLead;
  let fresh: TestLead;
  let lost: TestLead;
  let qualified: TestLead;
  let bookingId: string;
  let bobsLead: TestLead;

  const ids = (res: { body: { data: LeadBody[] } }) => res.body.data.map((lead) => lead.id);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUserWithToken(t.em());
    bob = await createUserWithToken(t.em());
    demo = await createEventType(t.em(), alice.id, { name: 'Product demo', slug: 'demo' });
    const bobsType = await createEventType(t.em(), bob.id, { name: 'Bob demo', slug: 'demo' });
    const booking = await createBooking(t.em(), {
      eventType: demo,
      startAt: '2026-06-01T10:00:00Z',
      invitee: { email: 'conv@example.test' },
    });
    bookingId = booking.id;
    converted = await createLead(t.em(), {
      eventType: demo,
      email: 'conv@example.test',
      name: 'Connie Convert',
      timezone: 'America/Denver',
      status: 'qualified',
      bookingId,
      createdAt: new Date('2026-05-01T09:00:00.5Z'),
      completedAt: new Date('2026-05-01T09:05:00Z'),
    });
    fresh = await createLead(t.em(), {
      eventType: demo,
      email: 'new@example.test',
      name: null,
      timezone: 'Europe/Lisbon',
      createdAt: new Date('2026-05-03T09:00:00Z'),
    });
    lost = await createLead(t.em(), { eventType: demo, status: 'lost', createdAt: new Date('2026-05-02T09:00:00Z') });
    qualified = await createLead(t.em(), { eventType: demo, status: 'qualified', createdAt: new Date('2026-04-30T09:00:00Z') });
    bobsLead = await createLead(t.em(), { eventType: bobsType, createdAt: new Date('2026-05-05T09:00:00Z') });
  });
  afterAll(() => t.close());

  it('lists the caller’s leads newest first, field for field', async () => {
    const res = await t.http.get('/api/v2/leads').set(...bearer(alice.token));
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([fresh.id, lost.id, converted.id, qualified.id]);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.data[0]).toEqual({
      id: fresh.id,
      name: null,
      email: 'new@example.test',
      timezone: 'Europe/Lisbon',
      status: 'new',
      eventType: { id: demo.id, name: 'Product demo', slug: 'demo' },
      booked: false,
      bookingId: null,
      createdAt: '2026-05-03T09:00:00.000Z',
      completedAt: null,
    });
    expect(res.body.data[2]).toEqual({
      id: converted.id,
      name: 'Connie Convert',
      email: 'conv@example.test',
      timezone: 'America/Denver',
      status: 'qualified',
      eventType: { id: demo.id, name: 'Product demo', slug: 'demo' },
      booked: true,
      bookingId,
      createdAt: '2026-05-01T09:00:00.500Z',
      completedAt: '2026-05-01T09:05:00.000Z',
    });
  });

  it('keeps users apart', async () => {
    const res = await t.http.get('/api/v2/leads').set(...bearer(bob.token));
    expect(ids(res)).toEqual([bobsLead.id]);
  });

  it('filters on booked: the string "false" means false', async () => {
    const notBooked = await t.http.get('/api/v2/leads').query({ booked: 'false' }).set(...bearer(alice.token));
    expect(notBooked.status).toBe(200);
    expect(ids(notBooked)).toEqual([fresh.id, lost.id, qualified.id]);
    expect(notBooked.body.data.every((lead: LeadBody) => lead.booked === false)).toBe(true);

    const booked = await t.http.get('/api/v2/leads').query({ booked: 'true' }).set(...bearer(alice.token));
    expect(ids(booked)).toEqual([converted.id]);
  });

  it('filters on status, alone and with booked', async () => {
    const onlyQualified = await t.http.get('/api/v2/leads').query({ status: 'qualified' }).set(...bearer(alice.token));
    expect(ids(onlyQualified)).toEqual([converted.id, qualified.id]);
    const qualifiedNotBooked = await t.http
      .get('/api/v2/leads')
      .query({ status: 'qualified', booked: 'false' })
      .set(...bearer(alice.token));
    expect(ids(qualifiedNotBooked)).toEqual([qualified.id]);
    const contacted = await t.http.get('/api/v2/leads').query({ status: 'contacted' }).set(...bearer(alice.token));
    expect(contacted.body).toEqual({ data: [], nextCursor: null });
  });

  it('serves the same procedure over tRPC, where booked is a real boolean', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { booked: false } }));
    const res = await t.http.get(`/trpc/leads.list?input=${input}`).set(...bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.data.map((lead: LeadBody) => lead.id)).toEqual([fresh.id, lost.id, qualified.id]);
  });

  it('refuses bad query parameters with 400 and details', async () => {
    for (const booked of ['yes', '1', 'TRUE', 'no']) {
      expectBadRequest(await t.http.get('/api/v2/leads').query({ booked }).set(...bearer(alice.token)), 'booked');
    }
    for (const status of ['open', 'booked', 'NEW']) {
      expectBadRequest(await t.http.get('/api/v2/leads').query({ status }).set(...bearer(alice.token)), 'status');
    }
    for (const limit of ['0', '101', 'abc']) {
      expectBadRequest(await t.http.get('/api/v2/leads').query({ limit }).set(...bearer(alice.token)), 'limit');
    }
  });

  it('refuses a missing token with 401 and a token without read:leads with 403', async () => {
    expect((await t.http.get('/api/v2/leads')).status).toBe(401);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:contacts', 'read:bookings'] });
    const res = await t.http.get('/api/v2/leads').set(...bearer(narrow.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('read:leads') });
  });

  describe('paging', () => {
    let pager: TestUser;
    let all: string[];

    beforeAll(async () => {
      pager = await createUserWithToken(t.em());
      const form = await createEventType(t.em(), pager.id);
      // 13 leads on 5 instants, with microseconds as now() writes them.
      const counts = [3, 1, 4, 2, 3];
      for (const [i, count] of counts.entries()) {
        for (let j = 0; j < count; j++) {
          const lead = await createLead(t.em(), {
            eventType: form,
            createdAt: new Date(Date.UTC(2026, 4, 1 + i)),
            status: j % 2 ? 'contacted' : 'new',
          });
          await t.em().execute(`update lead set created_at = created_at + interval '0.000777 second' where id = ?`, [lead.id], 'run');
        }
      }
      const rows = await t
        .em()
        .execute<{ id: string }[]>('select id from lead where owner_id = ? order by created_at desc, id desc', [pager.id]);
      all = rows.map((row) => row.id);
      expect(all).toHaveLength(13);
    });

    async function walk(query: Record<string, string>): Promise<string[]> {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await t.http
          .get('/api/v2/leads')
          .query({ ...query, ...(cursor ? { cursor } : {}) })
          .set(...bearer(pager.token));
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        cursor = res.body.nextCursor ?? undefined;
        if (!cursor) return seen;
      }
      throw new Error('paging did not end');
    }

    it('visits every lead exactly once, newest first', async () => {
      expect(await walk({ limit: '4' })).toEqual(all);
      expect(await walk({ limit: '1' })).toEqual(all);
    });

    it('pages a filtered list', async () => {
      const contacted = await t
        .em()
        .execute<{ id: string }[]>(
          `select id from lead where owner_id = ? and status = 'contacted' order by created_at desc, id desc`,
          [pager.id],
        );
      expect(await walk({ limit: '2', status: 'contacted', booked: 'false' })).toEqual(contacted.map((row) => row.id));
    });

    it('refuses a cursor that was tampered with, belongs to someone else, another filter or another list', async () => {
      const first = await t.http.get('/api/v2/leads').query({ limit: '3', booked: 'false' }).set(...bearer(pager.token));
      const cursor: string = first.body.nextCursor;
      const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'x' ? 'y' : 'x'}${cursor.slice(6)}`;
      expectBadRequest(
        await t.http.get('/api/v2/leads').query({ limit: '3', booked: 'false', cursor: tampered }).set(...bearer(pager.token)),
        'cursor',
        'invalid_cursor',
      );
      expectBadRequest(
        await t.http.get('/api/v2/leads').query({ limit: '3', booked: 'false', cursor }).set(...bearer(alice.token)),
        'cursor',
        'invalid_cursor',
      );
      for (const filter of [{ booked: 'true' }, {}, { booked: 'false', status: 'new' }]) {
        expectBadRequest(
          await t.http.get('/api/v2/leads').query({ limit: '3', ...filter, cursor }).set(...bearer(pager.token)),
          'cursor',
          'invalid_cursor',
        );
      }
      // A bookings cursor is not a leads cursor, even for the same user.
      const bookingsType = await createEventType(t.em(), pager.id, { kind: 'group' });
      await createBooking(t.em(), { eventType: bookingsType, startAt: '2026-06-01T10:00:00Z' });
      await createBooking(t.em(), { eventType: bookingsType, startAt: '2026-06-01T10:00:00Z' });
      const bookings = await t.http.get('/api/v2/bookings').query({ limit: '1' }).set(...bearer(pager.token));
      expect(bookings.body.nextCursor).toEqual(expect.any(String));
      expectBadRequest(
        await t.http.get('/api/v2/leads').query({ cursor: bookings.body.nextCursor }).set(...bearer(pager.token)),
        'cursor',
        'invalid_cursor',
      );
      const ok = await t.http.get('/api/v2/leads').query({ limit: '3', booked: 'false', cursor }).set(...bearer(pager.token));
      expect(ids(ok)).toEqual(all.slice(3, 6));
    });
  });
});
