import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import {
  createClient,
  createPasswordUser,
  movableClock,
  obtainTokens,
  type PasswordUser,
  signIn,
  type TestClient,
} from './support.ts';

describe('GET/POST /oauth/userinfo (OpenID Connect Core §5.3)', () => {
  let t: TestApp;
  let user: PasswordUser;
  let cookie: string;
  let client: TestClient;
  const clock = movableClock();

  beforeAll(async () => {
    t = await startTestApp({ clock, publicRateLimitPerMinute: 100_000 });
    user = await createPasswordUser(t.em(), { name: 'Ada Info', timezone: 'America/Chicago' });
    cookie = await signIn(t.http, user);
    client = await createClient(t.em(), user.id);
  });
  afterAll(() => t.close());

  it('answers GET and POST with the Authorization header: sub, email, name and zoneinfo under read:profile', async () => {
    const tokens = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const expected = { sub: user.id, email: user.email, name: 'Ada Info', zoneinfo: 'America/Chicago' };
    const get = await t.http.get('/oauth/userinfo').set(...bearer(tokens.access_token));
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toMatch(/^application\/json/);
    expect(get.headers['cache-control']).toBe('no-store');
    expect(get.body).toEqual(expected);
    const post = await t.http.post('/oauth/userinfo').set(...bearer(tokens.access_token));
    expect(post.status).toBe(200);
    expect(post.body).toEqual(expected);
  });

  it('always has the same sub for the user; without read:profile nothing else', async () => {
    const a = await obtainTokens(t.http, cookie, client, { scope: 'read:bookings' });
    const b = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const narrow = await t.http.get('/oauth/userinfo').set(...bearer(a.access_token));
    expect(narrow.status).toBe(200);
    expect(narrow.body).toEqual({ sub: user.id });
    expect((await t.http.get('/oauth/userinfo').set(...bearer(b.access_token))).body.sub).toBe(user.id);
  });

  it('answers no credentials with 401 and a bare Bearer challenge', async () => {
    const res = await t.http.get('/oauth/userinfo');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="oauth", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource"',
    );
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers invalid, expired and revoked tokens with 401 error="invalid_token"', async () => {
    const start = clock.now();
    const expired = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const revoked = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    await t.http.post('/oauth/revoke').type('form').send({ token: revoked.access_token, client_id: client.clientId });
    const pat = await createUserWithToken(t.em());
    try {
      clock.advance(3601);
      for (const token of [expired.access_token, revoked.access_token, `oat_${'a'.repeat(52)}`, 'nope', expired.refresh_token, pat.token]) {
        const res = await t.http.get('/oauth/userinfo').set(...bearer(token));
        expect(res.status, token.slice(0, 8)).toBe(401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="oauth", resource_metadata="[^"]+", error="invalid_token"/);
        expect(res.body.error).toBe('invalid_token');
      }
    } finally {
      clock.set(start);
    }
  });

  it('refuses a token in the header and the body with 400 invalid_request, and ignores a body-only token', async () => {
    const tokens = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const both = await t.http
      .post('/oauth/userinfo')
      .set(...bearer(tokens.access_token))
      .type('form')
      .send({ access_token: tokens.access_token });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('invalid_request');
    const bodyOnly = await t.http.post('/oauth/userinfo').type('form').send({ access_token: tokens.access_token });
    expect(bodyOnly.status).toBe(401);
    const query = await t.http.get(`/oauth/userinfo?access_token=${tokens.access_token}`);
    expect(query.status).toBe(401);
  });

  it("refuses the token of a user who left the Team plan, like the API does", async () => {
    const leaver = await createPasswordUser(t.em());
    const leaverCookie = await signIn(t.http, leaver);
    const tokens = await obtainTokens(t.http, leaverCookie, client, { scope: 'read:profile' });
    expect((await t.http.get('/oauth/userinfo').set(...bearer(tokens.access_token))).status).toBe(200);
    await t.em().execute("update app_user set plan = 'pro' where id = ?", [leaver.id], 'run');
    const res = await t.http.get('/oauth/userinfo').set(...bearer(tokens.access_token));
    expect(res.status).toBe(401);
    expect(res.body.error_description).toMatch(/Team plan/);
  });
});
