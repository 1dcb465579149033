import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { ACCESS_TOKEN_TTL_SEC } from '../../src/oauth/tokens.ts';
import type { TestApp } from '../helpers/app.ts';
import { ConsentDrivingProvider } from '../oauth/consent-driving-provider.ts';
import { createPasswordUser, movableClock, type PasswordUser, signIn, startListeningApp } from '../oauth/support.ts';
import { structured } from './support.ts';

describe('MCP through the whole OAuth flow (official SDK client with an auth provider)', () => {
  const clock = movableClock();
  let t: TestApp & { siteUrl: string };
  let user: PasswordUser;
  let cookie: string;
  const mcpUrl = () => new URL(`${t.siteUrl}/mcp`);

  beforeAll(async () => {
    t = await startListeningApp({ clock, publicRateLimitPerMinute: 10_000 });
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
  });
  afterAll(() => t.close());

  const connect = async (provider: ConsentDrivingProvider) => {
    const client = new Client({ name: 'oauth mcp test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await client.connect(transport);
    return { client, transport };
  };

  it('goes from the 401 to a token for /mcp, lists and calls tools, and refreshes an expired token', async () => {
    const provider = new ConsentDrivingProvider(t.http, cookie);
    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    // 401 → resource metadata → authorization server metadata → registration → sign-in and consent.
    await expect(new Client({ name: 'oauth mcp test', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.client?.client_id).toMatch(/^oci_/);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${t.siteUrl}/mcp`);
    await transport.finishAuth(provider.authorizationCode ?? '');
    const first = provider.saved;
    expect(first?.access_token).toMatch(/^oat_/);

    const { client } = await connect(provider);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_me');
    expect(structured(await client.callTool({ name: 'get_me', arguments: {} }))).toMatchObject({ id: user.id, email: user.email });

    // An hour later the access token has expired: the client refreshes (rotation) and carries on.
    clock.advance(ACCESS_TOKEN_TTL_SEC + 1);
    expect(structured(await client.callTool({ name: 'list_bookings', arguments: {} }))).toHaveProperty('data');
    expect(provider.saved?.access_token).not.toBe(first?.access_token);
    expect(provider.saved?.refresh_token).not.toBe(first?.refresh_token);
    await client.close();

    // A token for /mcp is refused on /api/v2.
    const rest = await fetch(`${t.siteUrl}/api/v2/me`, { headers: { Authorization: `Bearer ${provider.saved?.access_token}` } });
    expect(rest.status).toBe(401);
  });

  it('refuses on /mcp a token bound to /api/v2 and one bound to no resource', async () => {
    for (const resource of [new URL(`${t.siteUrl}/api/v2`), undefined]) {
      const provider = new ConsentDrivingProvider(t.http, cookie);
      provider.validateResourceURL = async () => resource;
      const serverUrl = `${t.siteUrl}/api/v2`;
      expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
      expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(resource?.href ?? null);
      expect(await auth(provider, { serverUrl, authorizationCode: provider.authorizationCode })).toBe('AUTHORIZED');
      const token = provider.saved?.access_token ?? '';
      const onRest = await fetch(`${t.siteUrl}/api/v2/me`, { headers: { Authorization: `Bearer ${token}` } });
      expect(onRest.status).toBe(200);
      const onMcp = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(onMcp.status).toBe(401);
      expect(onMcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(onMcp.headers.get('www-authenticate')).toContain(`resource_metadata="${t.siteUrl}/.well-known/oauth-protected-resource/mcp"`);
    }
  });

  it('lists every scope of the API in the /mcp resource metadata', async () => {
    const metadata = await (await fetch(`${t.siteUrl}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata.resource).toBe(`${t.siteUrl}/mcp`);
    expect([...metadata.scopes_supported].sort()).toEqual([...ALL_SCOPES].sort());
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['read:profile', 'read:calendars', 'write:calendars']));
  });
});
