/**
 * The same slot-hold procedures on every door: tRPC (a token and the dashboard's session), MCP tools, and OAuth
 * apps, whose holds belong to their grant alone (another app of the same user, or the user's own tokens, get 404).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer } from '../helpers/factories.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { createClient, createPasswordUser, obtainTokens, type PasswordUser, signIn, startListeningApp } from '../oauth/support.ts';

const NOW = '2026-03-01T12:00:00Z';
const at = (day: string, time: string) => `2026-03-0${day}T${time}:00.000Z`;

describe('slot holds on tRPC, MCP and for OAuth apps', () => {
  let t: TestApp & { siteUrl: string };
  let user: PasswordUser;
  let cookie: string;
  let pat: string;
  let eventTypeId: string;
  let mcp: Client;

  beforeAll(async () => {
    t = await startListeningApp({ clock: fixedClock(NOW), publicRateLimitPerMinute: 10_000 });
    user = await createPasswordUser(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    cookie = await signIn(t.http, user);
    pat = (await createPersonalAccessToken(t.em(), { userId: user.id, name: 'test', scopes: ALL_SCOPES })).token;
    eventTypeId = (await createEventType(t.em(), user.id, { durationsMin: [30] })).id;
    mcp = await connectWithToken(`${t.siteUrl}/mcp`, pat);
  });
  afterAll(async () => {
    await mcp?.close();
    await t.close();
  });

  const rest = (token: string) => ({
    hold: (startAt: string) => t.http.post('/api/v2/slot-holds').set(...bearer(token)).send({ eventTypeId, startAt, durationMin: 30 }),
    get: (id: string) => t.http.get(`/api/v2/slot-holds/${id}`).set(...bearer(token)),
    release: (id: string) => t.http.delete(`/api/v2/slot-holds/${id}`).set(...bearer(token)),
    book: (start: string, holdId?: string) =>
      t.http.post('/api/v2/bookings').set(...bearer(token)).send({ eventTypeId, start, durationMin: 30, invitee: invitee(), ...(holdId ? { holdId } : {}) }),
  });
  const trpc = (path: string, input: unknown, headers: Record<string, string>) =>
    t.http.post(`/trpc/${path}`).set(headers).send(superjson.serialize(input) as object);
  const json = (res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as Record<string, unknown>;

  it('holds, reads, books and lets go through /trpc with a token, as REST does', async () => {
    const auth = { Authorization: `Bearer ${pat}` };
    const created = await trpc('slotHolds.create', { eventTypeId, startAt: at('2', '10:00'), durationMin: 30 }, auth);
    expect(created.status).toBe(200);
    const hold = json(created);
    expect(hold).toMatchObject({ eventTypeId, startAt: at('2', '10:00'), hostIds: [user.id] });
    expect((await rest(pat).get(String(hold.id))).body).toEqual(hold);
    const taken = await trpc('slotHolds.create', { eventTypeId, startAt: at('2', '10:00'), durationMin: 30 }, auth);
    expect(taken.status).toBe(409);
    const booked = await trpc('bookings.create', { eventTypeId, start: at('2', '10:00'), durationMin: 30, invitee: invitee(), holdId: hold.id }, auth);
    expect(booked.status).toBe(200);

    const second = json(await trpc('slotHolds.create', { eventTypeId, startAt: at('2', '11:00'), durationMin: 30 }, auth));
    expect((await trpc('slotHolds.release', { id: second.id }, auth)).status).toBe(200);
    expect((await trpc('slotHolds.release', { id: second.id }, auth)).status).toBe(404);
  });

  it('holds with the dashboard session too: the session is the user, so the user’s tokens may book with it', async () => {
    const csrf = await t.http.get('/trpc/session.current').set('Cookie', cookie);
    const headers = { Cookie: cookie, 'x-csrf-token': String(json(csrf).csrfToken) };
    const hold = json(await trpc('slotHolds.create', { eventTypeId, startAt: at('3', '10:00'), durationMin: 30 }, headers));
    expect(hold.id).toEqual(expect.any(String));
    expect((await rest(pat).book(at('3', '10:00'), String(hold.id))).status).toBe(201);
  });

  it('offers the hold tools to assistants, with the REST answers and errors', async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('create_slot_hold')?.description).toContain('Requires scope write:bookings.');
    expect(byName.get('get_slot_hold')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('release_slot_hold')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(byName.get('create_booking')?.inputSchema.properties).toHaveProperty('holdId');

    const hold = structured(await mcp.callTool({ name: 'create_slot_hold', arguments: { eventTypeId, startAt: at('4', '10:00'), durationMin: 30 } }));
    expect(structured(await mcp.callTool({ name: 'get_slot_hold', arguments: { id: hold.id } }))).toEqual((await rest(pat).get(String(hold.id))).body);
    const taken = errorBody(await mcp.callTool({ name: 'create_slot_hold', arguments: { eventTypeId, startAt: at('4', '10:00'), durationMin: 30 } }));
    expect(taken).toEqual((await rest(pat).hold(at('4', '10:00'))).body);
    const offGrid = errorBody(await mcp.callTool({ name: 'create_slot_hold', arguments: { eventTypeId, startAt: at('4', '10:10'), durationMin: 30 } }));
    expect(offGrid.details).toEqual([expect.objectContaining({ path: ['startAt'] })]);
    const booking = structured(
      await mcp.callTool({ name: 'create_booking', arguments: { eventTypeId, start: at('4', '10:00'), durationMin: 30, invitee: invitee(), holdId: hold.id } }),
    );
    expect(booking).toMatchObject({ startAt: at('4', '10:00'), status: 'active' });

    const other = structured(await mcp.callTool({ name: 'create_slot_hold', arguments: { eventTypeId, startAt: at('4', '11:00'), durationMin: 30 } }));
    const released = await mcp.callTool({ name: 'release_slot_hold', arguments: { id: other.id } });
    expect(released.isError).toBeFalsy();
    expect(errorBody(await mcp.callTool({ name: 'release_slot_hold', arguments: { id: other.id } }))).toMatchObject({ title: 'Not Found' });
  });

  it('keeps an OAuth app’s hold to its grant: the user’s token and another grant get 404, the same grant books', async () => {
    const app = await createClient(t.em(), user.id);
    const scope = 'read:bookings write:bookings';
    const first = (await obtainTokens(t.http, cookie, app, { scope })).access_token;
    const second = (await obtainTokens(t.http, cookie, app, { scope })).access_token;
    const held = await rest(first).hold(at('5', '10:00'));
    expect(held.status).toBe(201);
    const id = held.body.id as string;
    for (const other of [second, pat]) {
      expect((await rest(other).get(id)).status).toBe(404);
      expect((await rest(other).release(id)).status).toBe(404);
      expect((await rest(other).book(at('5', '10:00'), id)).status).toBe(404);
      expect((await rest(other).book(at('5', '10:00'))).status).toBe(409);
    }
    expect((await rest(first).get(id)).status).toBe(200);
    expect((await rest(first).book(at('5', '10:00'), id)).status).toBe(201);
  });
});
