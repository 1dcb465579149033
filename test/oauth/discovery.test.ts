import { checkResourceAllowed } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const SITE_URL = 'https://sched.example.test';

function expectNoEmptyValues(document: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(document)) {
    expect(value, name).not.toBeNull();
    expect(value, name).not.toBe('');
    if (Array.isArray(value)) expect(value.length, name).toBeGreaterThan(0);
  }
}

describe('RFC 8414 authorization server metadata', () => {
  let t: TestApp;

  // SITE_URL with a trailing slash: the issuer must still be the bare origin.
  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL: `${SITE_URL}/` } });
  });
  afterAll(() => t.close());

  it('is JSON whose issuer is exactly the origin the well-known URL was derived from', async () => {
    const res = await t.http.get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.issuer).toBe(SITE_URL);
  });

  it('has the required members, explicit grant types, S256 only, and the auth methods including none', async () => {
    const { body } = await t.http.get('/.well-known/oauth-authorization-server');
    expect(body).toMatchObject({
      authorization_endpoint: `${SITE_URL}/oauth/authorize`,
      token_endpoint: `${SITE_URL}/oauth/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(body.token_endpoint_auth_methods_supported).toContain('none');
    expect(body.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
    );
    expect(body.scopes_supported).toEqual(ALL_SCOPES);
    expect(body.scopes_supported).toEqual(expect.arrayContaining(['read:leads', 'read:contacts']));
  });

  it('names every endpoint as an absolute URL on the issuer origin, and each one answers', async () => {
    const { body } = await t.http.get('/.well-known/oauth-authorization-server');
    const endpoints = {
      authorization_endpoint: ['get', 400],
      token_endpoint: ['post', 400],
      revocation_endpoint: ['post', 400],
      userinfo_endpoint: ['get', 401],
      registration_endpoint: ['post', 400],
    } as const;
    for (const [member, [method, status]] of Object.entries(endpoints)) {
      const url = new URL(body[member]);
      expect(url.origin, member).toBe(SITE_URL);
      const res = await t.http[method](url.pathname);
      expect(res.status, member).toBe(status);
    }
  });

  it('lets browser-based clients read discovery and call the token endpoints cross-origin (no credentials)', async () => {
    const metadata = await t.http.get('/.well-known/oauth-authorization-server').set('Origin', 'https://inspector.example');
    expect(metadata.headers['access-control-allow-origin']).toBe('*');
    expect(metadata.headers['access-control-allow-credentials']).toBeUndefined();
    const preflight = await t.http
      .options('/oauth/token')
      .set('Origin', 'https://inspector.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    const token = await t.http.post('/oauth/token').set('Origin', 'https://inspector.example').type('form').send({});
    expect(token.headers['access-control-allow-origin']).toBe('*');
  });

  it('has no empty member (RFC 8414 §3.2)', async () => {
    const { body } = await t.http.get('/.well-known/oauth-authorization-server');
    expectNoEmptyValues(body);
  });

  it('serves no openid-configuration that could lack code_challenge_methods_supported', async () => {
    const res = await t.http.get('/.well-known/openid-configuration');
    expect(res.status).toBe(404);
  });
});

describe('RFC 9728 protected resource metadata', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL } });
  });
  afterAll(() => t.close());

  const documents = [
    ['/.well-known/oauth-protected-resource', SITE_URL],
    ['/.well-known/oauth-protected-resource/api/v2', `${SITE_URL}/api/v2`],
    ['/.well-known/oauth-protected-resource/mcp', `${SITE_URL}/mcp`],
  ] as const;

  it.each(documents)('%s names exactly the resource its URL was built from', async (path, resource) => {
    const res = await t.http.get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.resource).toBe(resource);
    expect(res.body.authorization_servers).toEqual([SITE_URL]);
    expect(res.body.scopes_supported).toEqual(ALL_SCOPES);
    expect(res.body.bearer_methods_supported).toEqual(['header']);
    expectNoEmptyValues(res.body);
  });

  it.each(documents)('%s passes the MCP SDK check: same origin, a prefix of the server URL', async (path, resource) => {
    const { body } = await t.http.get(path);
    const serverUrl = resource === SITE_URL ? `${SITE_URL}/mcp` : resource;
    expect(checkResourceAllowed({ requestedResource: serverUrl, configuredResource: body.resource })).toBe(true);
  });

  it('is what a 401 from the API points to, in a Bearer challenge without an error code', async () => {
    const res = await t.http.get('/api/v2/me');
    expect(res.status).toBe(401);
    const challenge = String(res.headers['www-authenticate']);
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).not.toContain('error=');
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '';
    expect(metadataUrl).toBe(`${SITE_URL}/.well-known/oauth-protected-resource/api/v2`);
    const metadata = await t.http.get(new URL(metadataUrl).pathname);
    expect(metadata.body.resource).toBe(`${SITE_URL}/api/v2`);
  });

  it('also points an invalid OAuth token at it, now with error="invalid_token"', async () => {
    const res = await t.http.get('/api/v2/me').set('Authorization', `Bearer oat_${'a'.repeat(52)}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain(
      `resource_metadata="${SITE_URL}/.well-known/oauth-protected-resource/api/v2"`,
    );
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});
