import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { authorizeAs, createPasswordUser, type PasswordUser, signIn, startListeningApp } from './support.ts';

/**
 * An OAuthClientProvider as an MCP client application would write one, except that "redirecting the user"
 * drives the real sign-in and consent pages over HTTP and captures the code from the redirect.
 */
class ConsentDrivingProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://localhost:33418/oauth/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'MCP SDK e2e client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  authorizationCode: string | undefined;
  invalidated: string[] = [];
  readonly http: ReturnType<typeof supertest>;
  readonly cookie: string;
  readonly overrideResource: URL | undefined;

  constructor(http: ReturnType<typeof supertest>, cookie: string, overrideResource?: URL) {
    this.http = http;
    this.cookie = cookie;
    this.overrideResource = overrideResource;
    if (overrideResource) {
      // Like MCP SDK versions before 1.29: the resource indicator is sent as URL.href, with a trailing slash.
      this.validateResourceURL = async () => overrideResource;
    }
  }

  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;
  state() {
    return 'mcp-state-123';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidated.push(scope);
    if (scope === 'tokens' || scope === 'all') this.saved = undefined;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    const callback = await authorizeAs(this.http, this.cookie, url.search.slice(1));
    expect(callback.origin + callback.pathname).toBe(this.redirectUrl);
    expect(callback.searchParams.get('state')).toBe('mcp-state-123');
    this.authorizationCode = callback.searchParams.get('code') ?? undefined;
  }
}

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
