import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { startListeningApp } from '../oauth/support.ts';

let t: TestApp & { siteUrl: string };
let alice: TestUser;
let demo: TestEventType;
let consult: TestEventType;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock('2026-06-01T12:00:00Z') });
  alice = await createUserWithToken(t.em());
  demo = await createEventType(t.em(), alice.id, { name: 'Product demo', slug: 'demo' });
  consult = await createEventType(t.em(), alice.id, { name: 'Consult', slug: 'consult' });
});
afterAll(() => t.close());

const update = (user: TestUser, id: string, body: object) =>
  t.http.patch(`/api/v2/leads/${id}`).set(...bearer(user.token)).send(body);

async function listedLead(id: string) {
  const res = await t.http.get('/api/v2/leads').query({ limit: 100 }).set(...bearer(alice.token));
  return res.body.data.find((lead: { id: string }) => lead.id === id);
}

async function contact(email: string) {
  const res = await t.http.get('/api/v2/contacts').query({ q: email }).set(...bearer(alice.token));
  expect(res.status).toBe(200);
  return res.body.data[0] as { kind: string; status: string };
}

describe('PATCH /api/v2/leads/{id}', () => {
  it('sets the pipeline status: 200 with the Lead; lists and the contact follow', async () => {
    const lead = await createLead(t.em(), { eventType: demo, email: 'prospect@example.test', name: 'Pat Prospect' });
    const before = await listedLead(lead.id);
    expect(await contact('prospect@example.test')).toMatchObject({ kind: 'lead', status: 'new' });

    const res = await update(alice, lead.id, { status: 'contacted' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, status: 'contacted' });
    expect(await listedLead(lead.id)).toEqual(res.body);
    expect(await contact('prospect@example.test')).toMatchObject({ kind: 'lead', status: 'contacted' });

    const filtered = await t.http.get('/api/v2/leads').query({ status: 'contacted' }).set(...bearer(alice.token));
    expect(filtered.body.data.map((l: { id: string }) => l.id)).toContain(lead.id);

    // Any status may follow any other, back to new included.
    for (const status of ['lost', 'qualified', 'new'] as const) {
      expect((await update(alice, lead.id, { status })).body.status).toBe(status);
      expect((await contact('prospect@example.test')).status).toBe(status);
    }
  });

  it('the contact shows the status of the person’s most recent lead', async () => {
    const email = 'two.leads@example.test';
    const older = await createLead(t.em(), { eventType: demo, email, createdAt: new Date('2026-05-01T00:00:00Z') });
    const newer = await createLead(t.em(), { eventType: consult, email, createdAt: new Date('2026-05-10T00:00:00Z') });
    await update(alice, older.id, { status: 'qualified' });
    expect((await contact(email)).status).toBe('new');
    await update(alice, newer.id, { status: 'lost' });
    expect((await contact(email)).status).toBe('lost');
  });

  it('a person who booked stays a client on the contact; the lead keeps its own status', async () => {
    const email = 'booked.lead@example.test';
    const booking = await createBooking(t.em(), { eventType: demo, startAt: '2026-06-03T10:00:00Z', invitee: { email } });
    const lead = await createLead(t.em(), { eventType: demo, email, bookingId: booking.id });
    const res = await update(alice, lead.id, { status: 'qualified' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'qualified', booked: true, bookingId: booking.id });
    expect(await contact(email)).toMatchObject({ kind: 'client', status: 'client' });
  });

  it.each([
    ['an unknown status', { status: 'won' }, ['status']],
    ['no status', {}, ['status']],
    ['a status that is not a string', { status: 1 }, ['status']],
    ['an unknown field', { status: 'lost', note: 'x' }, []],
  ])('refuses %s with 400 and details, changing nothing', async (_label, body, path) => {
    const lead = await createLead(t.em(), { eventType: demo });
    const res = await update(alice, lead.id, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      title: 'Bad Request',
      message: expect.any(String),
      details: expect.arrayContaining([expect.objectContaining({ path })]),
    });
    expect((await listedLead(lead.id)).status).toBe('new');
  });

  it('answers 404 for another user’s lead or an unknown one', async () => {
    const bob = await createUserWithToken(t.em());
    const lead = await createLead(t.em(), { eventType: demo });
    const foreign = await update(bob, lead.id, { status: 'lost' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ title: 'Not Found', message: 'Lead not found' });
    expect((await update(alice, 'no-such-lead', { status: 'lost' })).status).toBe(404);
    expect((await listedLead(lead.id)).status).toBe('new');
  });

  it('needs the write:leads scope: 403 with read:leads or write:bookings only, 401 without a token', async () => {
    const lead = await createLead(t.em(), { eventType: demo });
    for (const scopes of [['read:leads'], ['write:bookings', 'read:contacts']] as const) {
      const narrow = await createUserWithToken(t.em(), { scopes: [...scopes] });
      const res = await update(narrow, lead.id, { status: 'lost' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('write:leads') });
      expect(res.headers['www-authenticate']).toContain('scope="write:leads"');
    }
    expect((await t.http.patch(`/api/v2/leads/${lead.id}`).send({ status: 'lost' })).status).toBe(401);
  });

  it('write:leads is an OAuth scope: advertised by discovery, explained on consent', async () => {
    const res = await t.http.get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.body.scopes_supported).toContain('write:leads');
    const doc = await t.http.get('/api/docs/openapi.json');
    expect(doc.body.components.securitySchemes.oauth2.flows.authorizationCode.scopes['write:leads']).toBe(
      'Update the pipeline status of your leads',
    );
    expect(doc.body.paths['/leads/{id}'].patch.security).toEqual([{ bearerAuth: ['write:leads'] }, { oauth2: ['write:leads'] }]);
  });

  it('through tRPC: the same procedure and rules', async () => {
    const lead = await createLead(t.em(), { eventType: consult, email: 'trpc.lead@example.test' });
    const client = trpcClient(t.siteUrl, { bearer: alice.token });
    expect(await client.leads.update.mutate({ id: lead.id, status: 'qualified' })).toMatchObject({ id: lead.id, status: 'qualified' });
    expect((await contact('trpc.lead@example.test')).status).toBe('qualified');
    expect(await failure(client.leads.update.mutate({ id: lead.id, status: 'won' as never }))).toMatchObject({ status: 400 });
    const bob = await createUserWithToken(t.em());
    expect(await failure(trpcClient(t.siteUrl, { bearer: bob.token }).leads.update.mutate({ id: lead.id, status: 'lost' }))).toMatchObject({
      status: 404,
    });
  });
});
