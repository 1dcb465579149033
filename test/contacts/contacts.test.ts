import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';

interface ContactBody {
  email: string;
  name: string | null;
  kind: string;
  status: string;
  meetings: number;
  noShows: number;
  lastActivityAt: string | null;
  firstSeenAt: string | null;
}

describe('GET /api/v2/contacts', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let demo: TestEventType;
  let aliceEmails: string[];

  const emails = (res: { body: { data: ContactBody[] } }) => res.body.data.map((c) => c.email);
  const list = (token: string, query: Record<string, string> = {}) =>
    t.http.get('/api/v2/contacts').query(query).set(...bearer(token));

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUserWithToken(t.em());
    bob = await createUserWithToken(t.em());
    demo = await createEventType(t.em(), alice.id, { name: 'Demo', slug: 'demo' });
    const bobsType = await createEventType(t.em(), bob.id);

    // Mia: a lead first, then three bookings under the same address in other letter cases.
    await createLead(t.em(), {
      eventType: demo,
      email: 'MIA.MERGE@example.test',
      name: 'M. Merge',
      status: 'contacted',
      createdAt: new Date('2026-04-20T08:00:00Z'),
    });
    await createBooking(t.em(), {
      eventType: demo,
      startAt: '2026-06-01T10:00:00Z',
      invitee: { name: 'Mia M', email: 'Mia.Merge@Example.test' },
      createdAt: new Date('2026-05-01T10:00:00Z'),
    });
    await createBooking(t.em(), {
      eventType: demo,
      startAt: '2026-06-02T10:00:00Z',
      status: 'canceled',
      invitee: { name: 'Mia M', email: 'mia.merge@example.test' },
      createdAt: new Date('2026-05-02T10:00:00Z'),
      canceledAt: new Date('2026-05-10T08:00:00Z'),
    });
    await createBooking(t.em(), {
      eventType: demo,
      startAt: '2026-05-05T10:00:00Z',
      noShow: true,
      invitee: { name: 'Mia Merge', email: 'Mia.merge@example.test' },
      createdAt: new Date('2026-05-03T10:00:00Z'),
    });
    // Leo: leads only; the latest lead's status is the contact's status.
    await createLead(t.em(), { eventType: demo, email: 'leo@example.test', name: 'Leo', createdAt: new Date('2026-05-04T00:00:00Z') });
    await createLead(t.em(), {
      eventType: demo,
      email: 'LEO@example.test',
      name: null,
      status: 'qualified',
      createdAt: new Date('2026-05-06T00:00:00Z'),
    });
    // Names with LIKE's special characters; two of them tie on activity, so the e-mail orders them.
    await createLead(t.em(), { eventType: demo, email: 'pct@example.test', name: '100% Real', createdAt: new Date('2026-03-01T00:00:00Z') });
    await createLead(t.em(), { eventType: demo, email: 'under@example.test', name: 'under_score', createdAt: new Date('2026-03-02T00:00:00Z') });
    await createLead(t.em(), { eventType: demo, email: 'xunder@example.test', name: 'underXscore', createdAt: new Date('2026-03-02T00:00:00Z') });
    await createLead(t.em(), { eventType: demo, email: 'bs@example.test', name: 'back\\slash', createdAt: new Date('2026-02-01T00:00:00Z') });
    await createLead(t.em(), { eventType: demo, email: 'plain@example.test', name: 'Backslash Free', createdAt: new Date('2026-01-01T00:00:00Z') });
    aliceEmails = [
      'Mia.merge@example.test',
      'LEO@example.test',
      'under@example.test',
      'xunder@example.test',
      'pct@example.test',
      'bs@example.test',
      'plain@example.test',
    ];

    // Bob knows Mia too, as a lead only: a contact of his own.
    await createLead(t.em(), { eventType: bobsType, email: 'mia.merge@example.test', name: 'Mia (Bob)', createdAt: new Date('2026-05-01T00:00:00Z') });
  });
  afterAll(() => t.close());

  it('merges invitees and leads by e-mail, whatever the letter case, into one contact', async () => {
    const res = await list(alice.token);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(7);
    expect(res.body.nextOffset).toBeNull();
    expect(emails(res)).toEqual(aliceEmails);
    expect(res.body.data[0]).toEqual({
      email: 'Mia.merge@example.test',
      name: 'Mia Merge',
      kind: 'client',
      status: 'client',
      meetings: 2,
      noShows: 1,
      lastActivityAt: '2026-05-10T08:00:00.000Z',
      firstSeenAt: '2026-04-20T08:00:00.000Z',
    });
    expect(res.body.data[1]).toEqual({
      email: 'LEO@example.test',
      name: 'Leo',
      kind: 'lead',
      status: 'qualified',
      meetings: 0,
      noShows: 0,
      lastActivityAt: '2026-05-06T00:00:00.000Z',
      firstSeenAt: '2026-05-04T00:00:00.000Z',
    });
  });

  it('keeps users apart: the same address is a separate contact of each user', async () => {
    const res = await list(bob.token);
    expect(res.body).toEqual({
      data: [
        {
          email: 'mia.merge@example.test',
          name: 'Mia (Bob)',
          kind: 'lead',
          status: 'new',
          meetings: 0,
          noShows: 0,
          lastActivityAt: '2026-05-01T00:00:00.000Z',
          firstSeenAt: '2026-05-01T00:00:00.000Z',
        },
      ],
      total: 1,
      nextOffset: null,
    });
  });

  it('filters by kind, with an exact total', async () => {
    const clients = await list(alice.token, { kind: 'client' });
    expect(emails(clients)).toEqual(['Mia.merge@example.test']);
    expect(clients.body.total).toBe(1);
    const leads = await list(alice.token, { kind: 'lead', limit: '2' });
    expect(emails(leads)).toEqual(aliceEmails.slice(1, 3));
    expect(leads.body).toMatchObject({ total: 6, nextOffset: 2 });
  });

  it('matches q case-insensitively on the name or the e-mail', async () => {
    expect(emails(await list(alice.token, { q: 'MIA mer' }))).toEqual(['Mia.merge@example.test']);
    expect(emails(await list(alice.token, { q: 'LEO@' }))).toEqual(['LEO@example.test']);
    expect(emails(await list(alice.token, { q: '  real ' }))).toEqual(['pct@example.test']);
    const none = await list(alice.token, { q: 'nobody' });
    expect(none.body).toEqual({ data: [], total: 0, nextOffset: null });
  });

  it('matches %, _ and \\ in q literally', async () => {
    expect(emails(await list(alice.token, { q: '%' }))).toEqual(['pct@example.test']);
    expect(emails(await list(alice.token, { q: '0% r' }))).toEqual(['pct@example.test']);
    expect(emails(await list(alice.token, { q: '_' }))).toEqual(['under@example.test']);
    expect(emails(await list(alice.token, { q: 'r_s' }))).toEqual(['under@example.test']);
    expect(emails(await list(alice.token, { q: '\\' }))).toEqual(['bs@example.test']);
    expect(emails(await list(alice.token, { q: 'k\\s' }))).toEqual(['bs@example.test']);
    const combined = await list(alice.token, { q: '%_', kind: 'lead' });
    expect(combined.body).toEqual({ data: [], total: 0, nextOffset: null });
  });

  it('pages by offset with an exact total and nextOffset', async () => {
    const seen: string[] = [];
    let offset: number | null = 0;
    const offsets: number[] = [];
    while (offset !== null) {
      offsets.push(offset);
      const res = await list(alice.token, { limit: '3', offset: String(offset) });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(7);
      seen.push(...emails(res));
      offset = res.body.nextOffset;
    }
    expect(offsets).toEqual([0, 3, 6]);
    expect(seen).toEqual(aliceEmails);

    const exact = await list(alice.token, { limit: '7' });
    expect(exact.body).toMatchObject({ total: 7, nextOffset: null });
    const beyond = await list(alice.token, { offset: '50' });
    expect(beyond.body).toEqual({ data: [], total: 7, nextOffset: null });
    const uneven = await list(alice.token, { offset: '5', limit: '1' });
    expect(uneven.body).toMatchObject({ total: 7, nextOffset: 6 });
    expect(emails(uneven)).toEqual([aliceEmails[5]]);
  });

  it('puts contacts without any activity last', async () => {
    const carol = await createUserWithToken(t.em());
    const form = await createEventType(t.em(), carol.id);
    await createLead(t.em(), { eventType: form, email: 'b@example.test', createdAt: new Date('2026-01-01T00:00:00Z') });
    // The projection always has an activity time; a row without one can only come from elsewhere (e.g. an import).
    await t
      .em()
      .execute(
        `insert into contact (owner_id, email_key, email, name, kind, status, meetings, no_shows, search_text)
         values (?, 'a@example.test', 'a@example.test', null, 'lead', 'new', 0, 0, ' a@example.test')`,
        [carol.id],
        'run',
      );
    const res = await list(carol.token);
    expect(emails(res)).toEqual(['b@example.test', 'a@example.test']);
    expect(res.body.data[1]).toMatchObject({ lastActivityAt: null, firstSeenAt: null, name: null });
  });

  it('refuses bad query parameters with 400 and details', async () => {
    for (const kind of ['clients', 'client,lead', 'LEAD']) expectBadRequest(await list(alice.token, { kind }), 'kind');
    for (const offset of ['-1', 'abc', '1.5']) expectBadRequest(await list(alice.token, { offset }), 'offset');
    for (const limit of ['0', '201', 'abc']) expectBadRequest(await list(alice.token, { limit }), 'limit');
    expectBadRequest(await list(alice.token, { q: 'q'.repeat(201) }), 'q');
    expect((await list(alice.token, { limit: '200' })).status).toBe(200);
  });

  it('refuses a missing token with 401 and a token without read:contacts with 403', async () => {
    expect((await t.http.get('/api/v2/contacts')).status).toBe(401);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:leads'] });
    const res = await list(narrow.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('read:contacts') });
  });
});
