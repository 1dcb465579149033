import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer } from '../helpers/factories.ts';
import {
  createClient,
  createPasswordUser,
  obtainTokens,
  type PasswordUser,
  signIn,
  type TestClient,
  tokenRequest,
} from './support.ts';

/** OAuth access tokens on /api/v2: the same rules as personal access tokens. */
describe('OAuth access tokens on the API', () => {
  let t: TestApp;
  let user: PasswordUser;
  let cookie: string;
  let client: TestClient;

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: 5, publicRateLimitPerMinute: 100_000 });
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
    client = await createClient(t.em(), user.id);
  });
  afterAll(() => t.close());

  /** A fresh token: each gets its own rate-limit budget (5 a minute here). */
  const token = async (scope = 'read:profile') => (await obtainTokens(t.http, cookie, client, { scope })).access_token;

  it('authenticates with the Bearer scheme in any letter case', async () => {
    const access = await token();
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await t.http.get('/api/v2/me').set('Authorization', `${scheme} ${access}`);
      expect(res.status, scheme).toBe(200);
      expect(res.body.id).toBe(user.id);
    }
  });

  it('ignores an access_token query parameter (401)', async () => {
    const access = await token();
    const res = await t.http.get(`/api/v2/me?access_token=${access}`);
    expect(res.status).toBe(401);
  });

  it('never accepts a token in a request body (a form body is not even read by the API)', async () => {
    const access = await token('write:bookings');
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(access))
      .type('form')
      .send({ access_token: access });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const bodyOnly = await t.http.post('/api/v2/bookings').type('form').send({ access_token: access });
    expect(bodyOnly.status).toBeGreaterThanOrEqual(400);
    expect(bodyOnly.status).not.toBe(201);
  });

  it('answers no credentials with 401, a Bearer challenge with resource_metadata and no error code', async () => {
    const res = await t.http.get('/api/v2/me');
    expect(res.status).toBe(401);
    const challenge = String(res.headers['www-authenticate']);
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/api/v2"');
    expect(challenge).not.toContain('error=');
  });

  it('answers expired, revoked, malformed, unknown and refresh tokens with 401 invalid_token', async () => {
    const pair = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const revoked = await token();
    await t.http.post('/oauth/revoke').type('form').send({ token: revoked, client_id: client.clientId });
    for (const value of [revoked, `oat_${'a'.repeat(52)}`, `oat_${'A'.repeat(52)}`, 'oat_short', pair.refresh_token]) {
      const res = await t.http.get('/api/v2/me').set(...bearer(value));
      expect(res.status, value.slice(0, 10)).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('refuses a token issued for another resource (/mcp) with 401', async () => {
    const iss = t.app.services.env.SITE_URL;
    const mcp = await obtainTokens(t.http, cookie, client, { scope: 'read:profile', resource: `${iss}/mcp` });
    const res = await t.http.get('/api/v2/me').set(...bearer(mcp.access_token));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('answers a missing scope with 403 insufficient_scope naming the scope, each attribute once', async () => {
    const access = await token('read:bookings');
    const res = await t.http.get('/api/v2/me').set(...bearer(access));
    expect(res.status).toBe(403);
    const challenge = String(res.headers['www-authenticate']);
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="read:profile"');
    expect(challenge).toContain('resource_metadata=');
    for (const attribute of ['error', 'scope', 'realm']) {
      expect(challenge.match(new RegExp(`(^|[ ,])${attribute}=`, 'g')) ?? [], attribute).toHaveLength(1);
    }
    expect(challenge).toMatch(/^[\x20-\x7e]+$/);
  });

  it('authenticates before validating input: a bad token with a malformed request is 401, not 400', async () => {
    const res = await t.http.get('/api/v2/availability?from=nonsense').set(...bearer(`oat_${'a'.repeat(52)}`));
    expect(res.status).toBe(401);
  });

  it('does not authenticate once the user leaves the Team plan', async () => {
    const leaver = await createPasswordUser(t.em());
    const leaverCookie = await signIn(t.http, leaver);
    const access = (await obtainTokens(t.http, leaverCookie, client, { scope: 'read:profile' })).access_token;
    expect((await t.http.get('/api/v2/me').set(...bearer(access))).status).toBe(200);
    await t.em().execute("update app_user set plan = 'free' where id = ?", [leaver.id], 'run');
    // Written through this instance's own database connection, as the service's own writes are: read-your-writes.
    t.app.services.principalCache?.noteLocalWrite();
    const res = await t.http.get('/api/v2/me').set(...bearer(access));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/Team plan/);
  });

  it('rate-limits per token family: headers on every response, 429 with Retry-After, budget kept across refresh', async () => {
    const pair = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    for (let i = 1; i <= 3; i++) {
      const res = await t.http.get('/api/v2/me').set(...bearer(pair.access_token));
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    const refreshed = await tokenRequest(t.http, {
      grant_type: 'refresh_token',
      refresh_token: pair.refresh_token,
      client_id: client.clientId,
    });
    const next = refreshed.body.access_token as string;
    expect((await t.http.get('/api/v2/me').set(...bearer(next))).headers['x-ratelimit-remaining']).toBe('1');
    expect((await t.http.get('/api/v2/me').set(...bearer(next))).status).toBe(200);
    const limited = await t.http.get('/api/v2/me').set(...bearer(next));
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(limited.headers['cache-control']).toBe('no-store');
    // Another authorization has its own budget.
    expect((await t.http.get('/api/v2/me').set(...bearer(await token()))).status).toBe(200);
    // The counters are keyed by the grant's id, never by the raw token.
    const keys = await t.em().execute<{ key: string }[]>('select key from rate_limit');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((row) => row.key.includes('oat_'))).toBe(false);
  });
});
