/**
 * An event type's `description` and `locations`: written on create and PATCH, returned by every read (REST list
 * and single read, tRPC, MCP), shown to the public booking page without the host's number and link, and bad
 * values refused with a 400 naming the field on each door.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';

const NOW = '2026-06-01T12:00:00.000Z';

let t: TestApp & { siteUrl: string };
let owner: TestUser;
let other: TestUser;
let mcp: McpClient;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW) });
  owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
  other = await createUserWithToken(t.em(), { timezone: 'UTC' });
  mcp = await connectWithToken(`${t.siteUrl}/mcp`, owner.token);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

const create = (body: object) => t.http.post('/api/v2/event-types').set(...bearer(owner.token)).send(body);
const patch = (id: string, body: object) => t.http.patch(`/api/v2/event-types/${id}`).set(...bearer(owner.token)).send(body);
const read = (id: string, user = owner) => t.http.get(`/api/v2/event-types/${id}`).set(...bearer(user.token));

const PLACES = [
  { kind: 'in_person', address: 'Torstraße 1\n10119 Berlin' },
  { kind: 'in_person', address: 'Rua Augusta 10, Lisboa' },
  { kind: 'link', url: 'https://meet.example.com/olivia?pwd=abc' },
  { kind: 'phone', number: '+49 (30) 123-4567' },
  { kind: 'invitee_phone' },
  { kind: 'ask_invitee' },
];
const DESCRIPTION = 'A first talk.\nBring your questions <b>and</b> your plans.';

describe('every read returns what was written', () => {
  it('creation returns description and locations, as do the list, the single read, tRPC and MCP', async () => {
    const created = await create({ name: 'Advice', durationsMin: [30], description: DESCRIPTION, locations: PLACES });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ description: DESCRIPTION, locations: PLACES });

    expect((await read(created.body.id)).body).toEqual(created.body);
    const list = await t.http.get('/api/v2/event-types').set(...bearer(owner.token));
    expect(list.body.data).toContainEqual(created.body);
    const viaTrpc = await trpcClient(t.siteUrl, { bearer: owner.token }).eventTypes.get.query({ id: created.body.id });
    expect(viaTrpc).toEqual(created.body);
    const viaMcp = structured(await mcp.callTool({ name: 'get_event_type', arguments: { id: created.body.id } }));
    expect(viaMcp).toEqual(created.body);
    const [row] = await t.em().execute<{ description: string; locations: unknown }[]>('select description, locations from event_type where id = ?', [created.body.id]);
    expect(row).toEqual({ description: DESCRIPTION, locations: PLACES });
  });

  it('defaults: no description, no locations; text is trimmed and an empty description is none', async () => {
    const plain = await create({ name: 'Plain', durationsMin: [30] });
    expect(plain.body).toMatchObject({ description: null, locations: [] });
    const trimmed = await create({ name: 'Trimmed', durationsMin: [30], description: '  Hi  ', locations: [{ kind: 'in_person', address: '  Hall 2 ' }] });
    expect(trimmed.body).toMatchObject({ description: 'Hi', locations: [{ kind: 'in_person', address: 'Hall 2' }] });
    expect((await patch(trimmed.body.id, { description: '   ' })).body.description).toBeNull();
  });

  it('through tRPC and MCP writes too', async () => {
    const viaTrpc = await trpcClient(t.siteUrl, { bearer: owner.token }).eventTypes.create.mutate({
      name: 'Via tRPC',
      durationsMin: [30],
      locations: [{ kind: 'link', url: 'https://meet.example.com/trpc' }],
    });
    expect(viaTrpc.locations).toEqual([{ kind: 'link', url: 'https://meet.example.com/trpc' }]);
    const viaMcp = structured(
      await mcp.callTool({ name: 'update_event_type', arguments: { id: viaTrpc.id, description: 'From MCP', locations: [{ kind: 'ask_invitee' }] } }),
    );
    expect(viaMcp).toMatchObject({ description: 'From MCP', locations: [{ kind: 'ask_invitee' }] });
  });
});

describe('PATCH', () => {
  it('replaces the list whole and leaves what it does not name; [] and null remove', async () => {
    const { body } = await create({ name: 'Patched', durationsMin: [30], description: DESCRIPTION, locations: PLACES });
    const changed = await patch(body.id, { locations: [{ kind: 'phone', number: '+351 912 345 678' }] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ description: DESCRIPTION, locations: [{ kind: 'phone', number: '+351 912 345 678' }] });
    const renamed = await patch(body.id, { name: 'Renamed' });
    expect(renamed.body.locations).toEqual([{ kind: 'phone', number: '+351 912 345 678' }]);
    const cleared = await patch(body.id, { locations: [], description: null });
    expect(cleared.body).toMatchObject({ description: null, locations: [] });
    expect((await read(body.id)).body).toEqual(cleared.body);
  });

  it('another user’s event type is 404 and unchanged', async () => {
    const { body } = await create({ name: 'Mine', durationsMin: [30] });
    const res = await t.http.patch(`/api/v2/event-types/${body.id}`).set(...bearer(other.token)).send({ description: 'Theirs' });
    expect(res.status).toBe(404);
    expect((await read(body.id)).body.description).toBeNull();
  });
});

describe('bad values are a 400 naming the field', () => {
  const cases: [string, object, (string | number)[]][] = [
    ['a description over 2000 characters', { description: 'x'.repeat(2001) }, ['description']],
    ['a description that is not text', { description: 42 }, ['description']],
    ['locations that are not a list', { locations: { kind: 'ask_invitee' } }, ['locations']],
    ['eleven locations', { locations: Array.from({ length: 11 }, (_, i) => ({ kind: 'in_person', address: `Room ${i}` })) }, ['locations']],
    ['an unknown kind', { locations: [{ kind: 'video' }] }, ['locations', 0, 'kind']],
    ['an address missing', { locations: [{ kind: 'in_person' }] }, ['locations', 0, 'address']],
    ['an empty address', { locations: [{ kind: 'in_person', address: '  ' }] }, ['locations', 0, 'address']],
    ['an address over 500 characters', { locations: [{ kind: 'in_person', address: 'a'.repeat(501) }] }, ['locations', 0, 'address']],
    ['a link that is http', { locations: [{ kind: 'link', url: 'http://meet.example.com/x' }] }, ['locations', 0, 'url']],
    ['a link that is javascript', { locations: [{ kind: 'link', url: 'javascript:alert(1)' }] }, ['locations', 0, 'url']],
    ['a link without a domain', { locations: [{ kind: 'link', url: 'https://localhost/x' }] }, ['locations', 0, 'url']],
    ['a phone number with letters', { locations: [{ kind: 'phone', number: 'call me' }] }, ['locations', 0, 'number']],
    ['a phone number of 3 digits', { locations: [{ kind: 'phone', number: '112' }] }, ['locations', 0, 'number']],
    ['a field another kind has', { locations: [{ kind: 'phone', number: '+49 30 1234567', url: 'https://x.example.com' }] }, ['locations', 0]],
    ['two links', { locations: [{ kind: 'link', url: 'https://a.example.com' }, { kind: 'link', url: 'https://b.example.com' }] }, ['locations', 1, 'kind']],
    ['one address twice', { locations: [{ kind: 'in_person', address: 'Hall 2' }, { kind: 'in_person', address: 'hall 2' }] }, ['locations', 1, 'kind']],
    ['ask the invitee twice', { locations: [{ kind: 'ask_invitee' }, { kind: 'ask_invitee' }] }, ['locations', 1, 'kind']],
  ];

  it.each(cases)('%s: on create and on PATCH, and nothing is stored', async (_name, value, path) => {
    expectBadRequest(await create({ name: 'Bad', durationsMin: [30], ...value }), path);
    const { body } = await create({ name: 'Good', durationsMin: [30] });
    expectBadRequest(await patch(body.id, value), path);
    expect((await read(body.id)).body).toEqual(body);
  });

  it('through tRPC and MCP too', async () => {
    const bad = { name: 'Bad', durationsMin: [30], locations: [{ kind: 'link' as const, url: 'http://meet.example.com' }] };
    const viaTrpc = await failure(trpcClient(t.siteUrl, { bearer: owner.token }).eventTypes.create.mutate(bad));
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.message).toMatch(/locations\.0\.url/);
    const viaMcp = errorBody(await mcp.callTool({ name: 'create_event_type', arguments: { ...bad, description: 'y'.repeat(2001) } }));
    expect(viaMcp.title).toBe('Bad Request');
    expect(viaMcp.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: ['locations', 0, 'url'] }), expect.objectContaining({ path: ['description'] })]),
    );
  });
});

describe('the public booking page', () => {
  it('shows the description and the places, with addresses but without the host’s number and link', async () => {
    const { body } = await create({ name: 'Public', slug: 'public-places', durationsMin: [30], description: DESCRIPTION, locations: PLACES });
    const [user] = await t.em().execute<{ slug: string }[]>('select slug from app_user where id = ?', [owner.id]);
    const res = await t.http
      .get('/trpc/publicBooking.eventType')
      .query({ input: JSON.stringify(superjson.serialize({ userSlug: user!.slug, eventTypeSlug: body.slug })) });
    expect(res.status).toBe(200);
    const shown = res.body.result.data.json;
    expect(shown.description).toBe(DESCRIPTION);
    expect(shown.locations).toEqual([
      { kind: 'in_person', address: 'Torstraße 1\n10119 Berlin' },
      { kind: 'in_person', address: 'Rua Augusta 10, Lisboa' },
      { kind: 'link', address: null },
      { kind: 'phone', address: null },
      { kind: 'invitee_phone', address: null },
      { kind: 'ask_invitee', address: null },
    ]);
    expect(JSON.stringify(shown)).not.toMatch(/meet\.example\.com|123-4567/);
  });
});
