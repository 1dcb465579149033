import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ConsentDrivingProvider } from './consent-driving-provider.ts';
import { createPasswordUser, type PasswordUser, signIn, startListeningApp } from './support.ts';

describe('OAuth end to end with the MCP SDK client', () => {
  let t: TestApp & { siteUrl: string };
  let user: PasswordUser;
  let cookie: string;
  const requests: string[] = [];
  const fetchFn = (input: string | URL, init?: RequestInit) => {
    requests.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return fetch(input, init);
  };

  beforeAll(async () => {
    t = await startListeningApp({ publicRateLimitPerMinute: 10_000 });
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
  });
  afterAll(() => t.close());

  async function callMe(accessToken: string): Promise<number> {
    const res = await fetch(`${t.siteUrl}/api/v2/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
    return res.status;
  }

  it('discovers from a 401 of /api/v2, registers, authorizes with PKCE and calls the API', async () => {
    const unauthorized = await fetch(`${t.siteUrl}/api/v2/me`);
    expect(unauthorized.status).toBe(401);
    const { resourceMetadataUrl } = extractWWWAuthenticateParams(unauthorized);
    expect(resourceMetadataUrl?.href).toBe(`${t.siteUrl}/.well-known/oauth-protected-resource/api/v2`);

    const provider = new ConsentDrivingProvider(t.http, cookie);
    const serverUrl = `${t.siteUrl}/api/v2`;
    requests.length = 0;
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn })).toBe('REDIRECT');
    expect(requests).toContain(`GET ${t.siteUrl}/.well-known/oauth-protected-resource/api/v2`);
    expect(requests).toContain(`GET ${t.siteUrl}/.well-known/oauth-authorization-server`);
    expect(requests).toContain(`POST ${t.siteUrl}/oauth/register`);
    expect(provider.client?.client_id).toMatch(/^oci_/);
    const authorizationUrl = provider.authorizationUrl;
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl?.searchParams.get('resource')).toBe(serverUrl);
    expect(provider.authorizationCode).toMatch(/^oac_/);

    expect(
      await auth(provider, { serverUrl, resourceMetadataUrl, authorizationCode: provider.authorizationCode, fetchFn }),
    ).toBe('AUTHORIZED');
    const first = provider.saved;
    expect(first?.access_token).toMatch(/^oat_/);
    expect(await callMe(first?.access_token ?? '')).toBe(200);

    // A later call with stored tokens refreshes (rotation): new pair, the old one is dead.
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn })).toBe('AUTHORIZED');
    const second = provider.saved;
    expect(second?.refresh_token).not.toBe(first?.refresh_token);
    expect(await callMe(second?.access_token ?? '')).toBe(200);
    expect(await callMe(first?.access_token ?? '')).toBe(401);

    // Presenting the rotated refresh token again: invalid_grant, the SDK drops its tokens and starts over,
    // and the family it had (the second pair) is revoked.
    provider.saved = first;
    provider.authorizationCode = undefined;
    expect(await auth(provider, { serverUrl, resourceMetadataUrl, fetchFn })).toBe('REDIRECT');
    expect(provider.invalidated).toContain('tokens');
    expect(await callMe(second?.access_token ?? '')).toBe(401);
  });

  it('authorizes for /mcp through the path-suffixed metadata; such a token is refused on /api/v2', async () => {
    const provider = new ConsentDrivingProvider(t.http, cookie);
    const serverUrl = `${t.siteUrl}/mcp`;
    requests.length = 0;
    expect(await auth(provider, { serverUrl, fetchFn })).toBe('REDIRECT');
    expect(requests[0]).toBe(`GET ${t.siteUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(serverUrl);
    expect(await auth(provider, { serverUrl, authorizationCode: provider.authorizationCode, fetchFn })).toBe(
      'AUTHORIZED',
    );
    expect(await callMe(provider.saved?.access_token ?? '')).toBe(401);
    const userinfo = await fetch(`${t.siteUrl}/oauth/userinfo`, {
      headers: { Authorization: `Bearer ${provider.saved?.access_token}` },
    });
    expect(userinfo.status).toBe(200);
  });

  it('accepts the origin with a trailing slash as resource (older SDK clients probing only the root)', async () => {
    const provider = new ConsentDrivingProvider(t.http, cookie, new URL(t.siteUrl));
    expect(await auth(provider, { serverUrl: t.siteUrl, fetchFn })).toBe('REDIRECT');
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(`${t.siteUrl}/`);
    expect(await auth(provider, { serverUrl: t.siteUrl, authorizationCode: provider.authorizationCode, fetchFn })).toBe(
      'AUTHORIZED',
    );
    // A token for the whole service works on the API.
    expect(await callMe(provider.saved?.access_token ?? '')).toBe(200);
  });
});
