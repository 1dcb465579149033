import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/lib/secrets.ts';
import { revokeGrant } from '../../src/oauth/grants.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer } from '../helpers/factories.ts';
import {
  createClient,
  createPasswordUser,
  expectOAuthErrorCharset,
  movableClock,
  obtainTokens,
  type PasswordUser,
  signIn,
  type TestClient,
  tokenRequest,
} from './support.ts';

describe('POST /oauth/token, grant_type=refresh_token (strict rotation)', () => {
  let t: TestApp;
  let user: PasswordUser;
  let cookie: string;
  let client: TestClient;
  let other: TestClient;
  const clock = movableClock();

  beforeAll(async () => {
    t = await startTestApp({ clock, publicRateLimitPerMinute: 100_000 });
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
    client = await createClient(t.em(), user.id);
    other = await createClient(t.em(), user.id, { name: 'Other App' });
  });
  afterAll(() => t.close());

  const me = (token: string) => t.http.get('/api/v2/me').set(...bearer(token));
  const refresh = (refreshToken: string, extra: Record<string, string> = {}, as: TestClient = client) =>
    tokenRequest(t.http, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: as.clientId, ...extra });

  function expectInvalid(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, error = 'invalid_grant') {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(res.headers['cache-control']).toBe('no-store');
    expectOAuthErrorCharset(res.body);
  }

  it('returns a new access token and a new refresh token; the old pair stops working', async () => {
    const first = await obtainTokens(t.http, cookie, client, { scope: 'read:profile read:bookings' });
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^oat_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^ort_/),
      scope: 'read:profile read:bookings',
    });
    expect(res.body.access_token).not.toBe(first.access_token);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect((await me(res.body.access_token)).status).toBe(200);
    expect((await me(first.access_token)).status).toBe(401);
  });

  it('revokes the whole family when a rotated refresh token is used again', async () => {
    const first = await obtainTokens(t.http, cookie, client);
    const second = (await refresh(first.refresh_token)).body;
    const third = (await refresh(second.refresh_token)).body;
    expect((await me(third.access_token)).status).toBe(200);

    expectInvalid(await refresh(first.refresh_token));
    expectInvalid(await refresh(third.refresh_token));
    expect((await me(third.access_token)).status).toBe(401);
    const [grant] = await t.em().execute<{ revoked_reason: string }[]>(
      'select g.revoked_reason from oauth_grant g join oauth_refresh_token r on r.grant_id = g.id where r.token_hash = ?',
      [hashToken(first.refresh_token)],
    );
    expect(grant?.revoked_reason).toBe('refresh_token_reuse');
  });

  it('lets at most one of two concurrent refreshes with the same token succeed, and then revokes the grant', async () => {
    const first = await obtainTokens(t.http, cookie, client);
    const results = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
    const ok = results.filter((res) => res.status === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    for (const res of results.filter((r) => r.status !== 200)) expectInvalid(res);
    for (const res of ok) {
      expect((await me(res.body.access_token)).status).toBe(401);
      expectInvalid(await refresh(res.body.refresh_token));
    }
    const [grant] = await t.em().execute<{ revoked_at: string | null }[]>(
      'select g.revoked_at from oauth_grant g join oauth_refresh_token r on r.grant_id = g.id where r.token_hash = ?',
      [hashToken(first.refresh_token)],
    );
    expect(grant?.revoked_at).not.toBeNull();
  });

  it('narrows the access token to a requested subset but keeps the refresh token at the full grant', async () => {
    const first = await obtainTokens(t.http, cookie, client, { scope: 'read:profile read:bookings' });
    const narrowed = await refresh(first.refresh_token, { scope: 'read:bookings' });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scope).toBe('read:bookings');
    expect((await me(narrowed.body.access_token)).status).toBe(403);
    const widenedAgain = await refresh(narrowed.body.refresh_token, { scope: 'read:profile read:bookings' });
    expect(widenedAgain.status).toBe(200);
    expect(widenedAgain.body.scope).toBe('read:profile read:bookings');
    expect((await me(widenedAgain.body.access_token)).status).toBe(200);
  });

  it('refuses to extend the scope with invalid_scope (and leaves the refresh token usable)', async () => {
    const first = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    expectInvalid(await refresh(first.refresh_token, { scope: 'read:profile write:bookings' }), 'invalid_scope');
    expectInvalid(await refresh(first.refresh_token, { scope: 'read:profile nonsense' }), 'invalid_scope');
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('refuses a refresh token presented by another client', async () => {
    const first = await obtainTokens(t.http, cookie, client);
    expectInvalid(await refresh(first.refresh_token, {}, other));
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });

  it('refuses an access token used as a refresh token, and unknown or malformed ones', async () => {
    const first = await obtainTokens(t.http, cookie, client);
    for (const token of [first.access_token, `ort_${'a'.repeat(52)}`, 'garbage']) expectInvalid(await refresh(token));
    expectInvalid(await refresh(''), 'invalid_request');
  });

  it('expires refresh tokens after 30 days; each rotation starts a new 30 days (inactivity expiry)', async () => {
    const start = clock.now();
    try {
      const first = await obtainTokens(t.http, cookie, client);
      clock.advance(29 * 24 * 3600);
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      clock.advance(29 * 24 * 3600);
      const third = await refresh(second.body.refresh_token);
      expect(third.status).toBe(200);
      clock.advance(30 * 24 * 3600 + 1);
      expectInvalid(await refresh(third.body.refresh_token));
    } finally {
      clock.set(start);
    }
  });

  it('expires access tokens after an hour', async () => {
    const start = clock.now();
    try {
      const tokens = await obtainTokens(t.http, cookie, client);
      clock.advance(3599);
      expect((await me(tokens.access_token)).status).toBe(200);
      clock.advance(2);
      expect((await me(tokens.access_token)).status).toBe(401);
    } finally {
      clock.set(start);
    }
  });

  it('keeps the resource binding: refresh may only ask for what the grant covers', async () => {
    const iss = t.app.services.env.SITE_URL;
    const first = await obtainTokens(t.http, cookie, client, { resource: `${iss}/api/v2` });
    expectInvalid(await refresh(first.refresh_token, { resource: `${iss}/mcp` }), 'invalid_target');
    expectInvalid(await refresh(first.refresh_token, { resource: iss }), 'invalid_target');
    const same = await refresh(first.refresh_token, { resource: `${iss}/api/v2/` });
    expect(same.status).toBe(200);
    expect((await me(same.body.access_token)).status).toBe(200);
  });

  it('stops every token of a grant when the user withdraws it', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    const [grant] = await t.em().execute<{ id: string }[]>(
      'select grant_id as id from oauth_access_token where token_hash = ?',
      [hashToken(tokens.access_token)],
    );
    expect(await revokeGrant(t.em(), user.id, grant?.id ?? '', clock.now())).toBe(true);
    expect((await me(tokens.access_token)).status).toBe(401);
    expectInvalid(await refresh(tokens.refresh_token));
  });
});
