import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trpcClient } from '../first-party/support.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import type { TestApp } from '../helpers/app.ts';

/** PATCH /me on REST, tRPC and MCP: one procedure, the same rules on every door. */
describe('PATCH /api/v2/me', () => {
  let t: TestApp & { siteUrl: string };
  let mcp: Client | undefined;

  beforeAll(async () => {
    t = await startListeningApp();
  });
  afterAll(async () => {
    await mcp?.close();
    await t.close();
  });

  const patch = (user: TestUser, body: unknown) => t.http.patch('/api/v2/me').set(...bearer(user.token)).send(body as object);
  const me = async (user: TestUser) => (await t.http.get('/api/v2/me').set(...bearer(user.token))).body;
  const freshSlug = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;

  it('changes name, time zone and slug, and GET /me shows them; another user is unaffected', async () => {
    const alice = await createUserWithToken(t.em(), { name: 'Alice', timezone: 'Europe/Berlin' });
    const bob = await createUserWithToken(t.em(), { name: 'Bob', timezone: 'Asia/Tokyo' });
    const bobBefore = await me(bob);
    const slug = freshSlug('alice');
    const res = await patch(alice, { name: '  Alice Ａrcher ', timezone: 'America/Chicago', slug });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ id: alice.id, email: alice.email, name: 'Alice Archer', timezone: 'America/Chicago', slug });
    expect(await me(alice)).toEqual(res.body);
    expect(await me(bob)).toEqual(bobBefore);
  });

  it('keeps absent fields, clears the name with null, and answers {} with the profile unchanged', async () => {
    const user = await createUserWithToken(t.em(), { name: 'Carol', timezone: 'Europe/Lisbon' });
    const before = await me(user);
    expect((await patch(user, {})).body).toEqual(before);
    const cleared = await patch(user, { name: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ ...before, name: null });
  });

  it('refuses an unknown time zone with 400 naming timezone, and changes nothing', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
    for (const timezone of ['Mars/Olympus', '+01:00', 'Europe/Berlin\u0000', '', 42]) {
      expectBadRequest(await patch(user, { timezone, name: 'Changed' }), ['timezone']);
    }
    expect((await me(user)).timezone).toBe('Europe/Berlin');
    expect((await me(user)).name).toBe('Test User');
  });

  it('refuses malformed and reserved slugs, a blank name and unknown fields with 400 naming the field', async () => {
    const user = await createUserWithToken(t.em());
    for (const slug of ['ab', 'Upper', 'with space', '-edge', 'x'.repeat(41), 'app', 'api', 'mcp', 'oauth', 'manage', '.well-known']) {
      expectBadRequest(await patch(user, { slug }), ['slug']);
    }
    expectBadRequest(await patch(user, { name: '   ' }), ['name']);
    expect((await patch(user, { email: 'new@example.test' })).status).toBe(400);
    expect((await patch(user, { plan: 'team' })).status).toBe(400);
  });

  it("answers 409 for a slug another user has or had; a user's own old slug can be taken back", async () => {
    const first = await createUserWithToken(t.em());
    const second = await createUserWithToken(t.em());
    const [a, b] = [freshSlug('first'), freshSlug('second')];
    expect((await patch(first, { slug: a })).status).toBe(200);
    // Taken now.
    const taken = await patch(second, { slug: a });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ title: 'Conflict', message: expect.stringContaining(a) });
    expect((await patch(first, { slug: b })).status).toBe(200);
    // Had before: still taken, so the old address keeps leading to its owner.
    expect((await patch(second, { slug: a })).status).toBe(409);
    expect((await me(second)).slug).not.toBe(a);
    // The owner may take it back.
    const back = await patch(first, { slug: a });
    expect(back.status).toBe(200);
    expect(back.body.slug).toBe(a);
    expect((await patch(second, { slug: b })).status).toBe(409);
  });

  it('gives one slug to exactly one of two users asking at once', async () => {
    const users = await Promise.all([createUserWithToken(t.em()), createUserWithToken(t.em())]);
    const slug = freshSlug('race');
    const answers = await Promise.all(users.map((user) => patch(user, { slug })));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
  });

  it('needs write:profile: a token with read:profile only gets 403 naming it', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:profile'] });
    const res = await patch(reader, { name: 'Nope' });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('write:profile');
    expect(res.headers['www-authenticate']).toContain('scope="write:profile"');
  });

  it('is users.update on tRPC with a token, with the same rules', async () => {
    const user = await createUserWithToken(t.em());
    const client = trpcClient(t.siteUrl, { bearer: user.token });
    const slug = freshSlug('trpc');
    expect(await client.users.update.mutate({ timezone: 'Pacific/Auckland', slug })).toMatchObject({ timezone: 'Pacific/Auckland', slug });
    await expect(client.users.update.mutate({ timezone: 'Nowhere/Special' })).rejects.toMatchObject({ data: { httpStatus: 400 } });
  });

  it('is the update_me tool on MCP, with the same rules', async () => {
    const user = await createUserWithToken(t.em());
    const other = await createUserWithToken(t.em());
    const taken = freshSlug('mcp-taken');
    expect((await patch(other, { slug: taken })).status).toBe(200);
    mcp = await connectWithToken(`${t.siteUrl}/mcp`, user.token);
    const tool = (await mcp.listTools()).tools.find((entry) => entry.name === 'update_me');
    expect(tool?.description).toContain('write:profile');
    const slug = freshSlug('mcp');
    expect(structured(await mcp.callTool({ name: 'update_me', arguments: { name: 'Via MCP', slug } }))).toMatchObject({ name: 'Via MCP', slug });
    const badZone = errorBody(await mcp.callTool({ name: 'update_me', arguments: { timezone: 'Atlantis/Capital' } }));
    expect(badZone).toMatchObject({ title: 'Bad Request', details: [expect.objectContaining({ path: ['timezone'] })] });
    expect(errorBody(await mcp.callTool({ name: 'update_me', arguments: { slug: taken } }))).toMatchObject({ title: 'Conflict' });
    expect(await me(user)).toMatchObject({ name: 'Via MCP', slug });
  });
});
