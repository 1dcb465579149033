import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { connectWithToken, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';

describe('GET /api/v2/contacts/{email}/history', () => {
  let t: TestApp & { siteUrl: string };
  let alice: TestUser;
  let bob: TestUser;
  let demo: TestEventType;
  const ids: Record<string, string> = {};

  const history = (token: string, email: string, query: Record<string, string> = {}) =>
    t.http
      .get(`/api/v2/contacts/${encodeURIComponent(email)}/history`)
      .query(query)
      .set(...bearer(token));

  beforeAll(async () => {
    t = await startListeningApp();
    alice = await createUserWithToken(t.em());
    bob = await createUserWithToken(t.em());
    demo = await createEventType(t.em(), alice.id, { name: 'Demo', slug: 'demo' });
    const consult = await createEventType(t.em(), alice.id, { name: 'Consult', slug: 'consult' });
    const bobsType = await createEventType(t.em(), bob.id);

    // Nora: a lead, converted; then bookings under the same address in other letter cases.
    ids.booked = (
      await createBooking(t.em(), {
        eventType: demo,
        startAt: '2026-06-01T10:00:00Z',
        invitee: { name: 'Nora N', email: 'Nora.History@example.test' },
        createdAt: new Date('2026-05-01T10:00:00Z'),
      })
    ).id;
    ids.canceled = (
      await createBooking(t.em(), {
        eventType: consult,
        startAt: '2026-06-08T10:00:00Z',
        status: 'canceled',
        cancelReason: 'Something came up',
        invitee: { name: 'Nora N', email: 'nora.history@example.test' },
        createdAt: new Date('2026-05-02T10:00:00Z'),
        canceledAt: new Date('2026-05-03T10:00:00Z'),
      })
    ).id;
    ids.noShow = (
      await createBooking(t.em(), {
        eventType: demo,
        startAt: '2026-05-20T10:00:00Z',
        noShow: true,
        invitee: { name: 'Nora N', email: 'NORA.history@example.test' },
        createdAt: new Date('2026-05-04T10:00:00Z'),
      })
    ).id;
    ids.lead = (
      await createLead(t.em(), {
        eventType: demo,
        email: 'nora.HISTORY@example.test',
        name: 'Nora',
        status: 'qualified',
        bookingId: ids.booked,
        createdAt: new Date('2026-04-30T08:00:00Z'),
        completedAt: new Date('2026-05-01T10:00:00Z'),
      })
    ).id;
    // Someone else among Alice's contacts, and Bob's own contact under Nora's address.
    await createBooking(t.em(), { eventType: demo, startAt: '2026-06-02T10:00:00Z', invitee: { email: 'other@example.test' } });
    await createLead(t.em(), { eventType: bobsType, email: 'nora.history@example.test', name: 'Nora (Bob)' });
  });
  afterAll(() => t.close());

  it('shows the contact with their bookings (latest start first) and leads, whatever the letter case of the address; not what the invitee wrote', async () => {
    const res = await history(alice.token, 'NORA.History@Example.TEST');
    expect(res.status).toBe(200);
    // The @ may also be written as it is.
    const plain = await t.http.get('/api/v2/contacts/nora.history@example.test/history').set(...bearer(alice.token));
    expect(plain.body).toEqual(res.body);
    expect(res.body.contact).toMatchObject({ email: 'NORA.history@example.test', kind: 'client', meetings: 2, noShows: 1 });
    expect(res.body.bookings.total).toBe(3);
    expect(res.body.bookings.data.map((booking: { id: string }) => booking.id)).toEqual([ids.canceled, ids.booked, ids.noShow]);
    expect(res.body.bookings.data[0]).toEqual({
      id: ids.canceled,
      eventType: { id: expect.any(String), name: 'Consult', slug: 'consult' },
      startAt: '2026-06-08T10:00:00.000Z',
      endAt: '2026-06-08T10:30:00.000Z',
      durationMin: 30,
      status: 'canceled',
      noShow: false,
      canceledAt: '2026-05-03T10:00:00.000Z',
      canceledBy: 'invitee',
      createdAt: '2026-05-02T10:00:00.000Z',
    });
    expect(res.body.bookings.data[2]).toMatchObject({ id: ids.noShow, noShow: true, status: 'active' });
    expect(res.body.leads).toEqual({
      data: [
        {
          id: ids.lead,
          eventType: { id: demo.id, name: 'Demo', slug: 'demo' },
          status: 'qualified',
          booked: true,
          bookingId: ids.booked,
          createdAt: '2026-04-30T08:00:00.000Z',
          completedAt: '2026-05-01T10:00:00.000Z',
        },
      ],
      total: 1,
    });
  });

  it('limits each list, and the totals still count everything', async () => {
    const res = await history(alice.token, 'nora.history@example.test', { limit: '2' });
    expect(res.body.bookings.data.map((booking: { id: string }) => booking.id)).toEqual([ids.canceled, ids.booked]);
    expect(res.body.bookings.total).toBe(3);
    expect(res.body.leads.total).toBe(1);
  });

  it('keeps users apart: another user’s contact, or no contact at all, is 404', async () => {
    const bobs = await history(bob.token, 'nora.history@example.test');
    expect(bobs.status).toBe(200);
    expect(bobs.body.contact.name).toBe('Nora (Bob)');
    expect(bobs.body.bookings).toEqual({ data: [], total: 0 });
    const carol = await createUserWithToken(t.em());
    const none = await history(carol.token, 'nora.history@example.test');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ title: 'Not Found', message: 'Contact not found' });
    expect((await history(alice.token, 'nobody@example.test')).status).toBe(404);
  });

  it('refuses an address that is not one, and a bad limit, with 400 naming them', async () => {
    expectBadRequest(await history(alice.token, 'not-an-address'), 'email');
    expectBadRequest(await history(alice.token, `${'a'.repeat(250)}@example.test`), 'email');
    for (const limit of ['0', '101', 'abc']) expectBadRequest(await history(alice.token, 'nora.history@example.test', { limit }), 'limit');
  });

  it('needs read:contacts', async () => {
    expect((await t.http.get('/api/v2/contacts/nora.history%40example.test/history')).status).toBe(401);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:bookings', 'read:leads'] });
    const res = await history(narrow.token, 'nora.history@example.test');
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('read:contacts');
  });

  it('is the same procedure on tRPC and MCP', async () => {
    const rest = (await history(alice.token, 'nora.history@example.test')).body;
    const client = trpcClient(t.siteUrl, { bearer: alice.token });
    expect(await client.contacts.history.query({ email: 'nora.history@example.test' })).toEqual(rest);
    expect(await failure(client.contacts.history.query({ email: 'nobody@example.test' }))).toMatchObject({ status: 404 });
    const mcp = await connectWithToken(`${t.siteUrl}/mcp`, alice.token);
    try {
      const result = await mcp.callTool({ name: 'get_contact_history', arguments: { email: 'nora.history@example.test' } });
      expect(structured(result)).toEqual(rest);
    } finally {
      await mcp.close();
    }
  });
});
