import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';

/** Event types' e-mail reminders: read and written on REST, tRPC and MCP like every other setting. */
describe('event type reminders', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) =>
    t.http.post('/api/v2/event-types').set(...bearer(owner.token)).send({ name: 'Call', durationsMin: [30], ...body });

  it('default to one a day before, to the invitee; are written, read back and changed', async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body.reminders).toEqual([{ offsetMin: 1440, to: 'invitee' }]);

    const custom = await create({ reminders: [{ offsetMin: 60, to: 'both' }, { offsetMin: 10, to: 'host' }] });
    expect(custom.body.reminders).toEqual([{ offsetMin: 60, to: 'both' }, { offsetMin: 10, to: 'host' }]);
    const read = await t.http.get(`/api/v2/event-types/${custom.body.id}`).set(...bearer(owner.token));
    expect(read.body.reminders).toEqual(custom.body.reminders);

    const none = await t.http.patch(`/api/v2/event-types/${custom.body.id}`).set(...bearer(owner.token)).send({ reminders: [] });
    expect(none.status).toBe(200);
    expect(none.body.reminders).toEqual([]);
    const untouched = await t.http.patch(`/api/v2/event-types/${custom.body.id}`).set(...bearer(owner.token)).send({ name: 'Renamed' });
    expect(untouched.body.reminders).toEqual([]);
  });

  it('refuse more than 3, repeated offsets, offsets out of range, unknown audiences and fields (400, never stored)', async () => {
    expectBadRequest(await create({ reminders: [1, 2, 3, 4].map((hour) => ({ offsetMin: hour * 60, to: 'invitee' })) }), ['reminders']);
    expectBadRequest(await create({ reminders: [{ offsetMin: 60, to: 'invitee' }, { offsetMin: 60, to: 'host' }] }), ['reminders']);
    expectBadRequest(await create({ reminders: [{ offsetMin: -1, to: 'invitee' }] }), ['reminders', 0, 'offsetMin']);
    expectBadRequest(await create({ reminders: [{ offsetMin: 43_201, to: 'invitee' }] }), ['reminders', 0, 'offsetMin']);
    expectBadRequest(await create({ reminders: [{ offsetMin: 1.5, to: 'invitee' }] }), ['reminders', 0, 'offsetMin']);
    expectBadRequest(await create({ reminders: [{ offsetMin: 60, to: 'everyone' }] }), ['reminders', 0, 'to']);
    expectBadRequest(await create({ reminders: [{ offsetMin: 60, to: 'host', sms: true }] }), ['reminders', 0]);
    expectBadRequest(await create({ reminders: 'daily' }), ['reminders']);
    const rows = await t.em().execute('select 1 from event_type where owner_id = ? and jsonb_array_length(reminders) > 2', [owner.id]);
    expect(rows).toEqual([]);
  });

  it('MCP: update_event_type writes them, get_event_type reads them', async () => {
    const created = await create({});
    const call = (name: string, args: Record<string, unknown>) =>
      t.http
        .post('/mcp')
        .set(...bearer(owner.token))
        .set('Accept', 'application/json, text/event-stream')
        .set('Content-Type', 'application/json')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const updated = await call('update_event_type', { id: created.body.id, reminders: [{ offsetMin: 120, to: 'host' }] });
    expect(updated.body.result.structuredContent.reminders).toEqual([{ offsetMin: 120, to: 'host' }]);
    const read = await call('get_event_type', { id: created.body.id });
    expect(read.body.result.structuredContent.reminders).toEqual([{ offsetMin: 120, to: 'host' }]);
  });

  it('tRPC: eventTypes.get carries them', async () => {
    const created = await create({ reminders: [{ offsetMin: 30, to: 'invitee' }] });
    const res = await t.http
      .get('/trpc/eventTypes.get')
      .set(...bearer(owner.token))
      .query({ input: JSON.stringify({ json: { id: created.body.id } }) });
    expect(res.body.result.data.json.reminders).toEqual([{ offsetMin: 30, to: 'invitee' }]);
  });
});
