import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import {
  createClient,
  createPasswordUser,
  expectOAuthErrorCharset,
  obtainTokens,
  type PasswordUser,
  signIn,
  type TestClient,
  tokenRequest,
} from './support.ts';

describe('POST /oauth/revoke (RFC 7009)', () => {
  let t: TestApp;
  let user: PasswordUser;
  let cookie: string;
  let client: TestClient;
  let other: TestClient;
  let confidential: TestClient;

  beforeAll(async () => {
    t = await startTestApp({ publicRateLimitPerMinute: 100_000 });
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
    client = await createClient(t.em(), user.id);
    other = await createClient(t.em(), user.id, { name: 'Other App' });
    confidential = await createClient(t.em(), user.id, { type: 'confidential', name: 'Server App' });
  });
  afterAll(() => t.close());

  const me = (token: string) => t.http.get('/api/v2/me').set(...bearer(token));
  const revoke = (form: Record<string, string>, as: TestClient = client) =>
    t.http
      .post('/oauth/revoke')
      .type('form')
      .send({ client_id: as.clientId, ...(as.clientSecret ? { client_secret: as.clientSecret } : {}), ...form });

  it('answers 200 with no-store and the access token fails on the very next call', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    expect((await me(tokens.access_token)).status).toBe(200);
    const res = await revoke({ token: tokens.access_token });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await me(tokens.access_token)).status).toBe(401);
  });

  it('revoking an access token leaves its refresh token usable', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: tokens.access_token })).status).toBe(200);
    const refreshed = await tokenRequest(t.http, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
  });

  it('revoking a refresh token also kills the access tokens of its grant', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: tokens.refresh_token })).status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
    const refreshed = await tokenRequest(t.http, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('refuses a request without token with 400 invalid_request', async () => {
    const res = await revoke({});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.headers['cache-control']).toBe('no-store');
    expectOAuthErrorCharset(res.body);
  });

  it('refuses a JSON body with invalid_request and an unknown client with 401 invalid_client', async () => {
    const json = await t.http.post('/oauth/revoke').send({ token: 'x', client_id: client.clientId });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
    const unknown = await revoke({ token: 'x', client_id: 'oci_nobody' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
  });

  it('answers 200 for unknown, malformed and already revoked tokens', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: tokens.refresh_token })).status).toBe(200);
    for (const token of [tokens.refresh_token, tokens.access_token, `oat_${'a'.repeat(52)}`, `ort_${'b'.repeat(52)}`, 'whatever']) {
      expect((await revoke({ token })).status, token.slice(0, 8)).toBe(200);
    }
  });

  it('ignores a wrong or unknown token_type_hint and finds the token anyway', async () => {
    const a = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: a.access_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await me(a.access_token)).status).toBe(401);
    const b = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: b.refresh_token, token_type_hint: 'banana' })).status).toBe(200);
    expect((await me(b.access_token)).status).toBe(401);
  });

  it("leaves another client's token alone: silently for a public client, with invalid_grant for a confidential one", async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    expect((await revoke({ token: tokens.access_token }, other)).status).toBe(200);
    expect((await revoke({ token: tokens.refresh_token }, other)).status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(200);
    const refused = await revoke({ token: tokens.access_token }, confidential);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    expect((await me(tokens.access_token)).status).toBe(200);
  });

  it('does not touch personal access tokens (never issued to a client)', async () => {
    const pat = await createUserWithToken(t.em());
    expect((await revoke({ token: pat.token })).status).toBe(200);
    expect((await me(pat.token)).status).toBe(200);
  });

  it('authenticates confidential clients as the token endpoint does', async () => {
    const tokens = await obtainTokens(t.http, cookie, confidential);
    const wrong = await revoke({ token: tokens.access_token }, { ...confidential, clientSecret: `ocs_${'z'.repeat(52)}` });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const basic = await t.http
      .post('/oauth/revoke')
      .auth(confidential.clientId, confidential.clientSecret ?? '')
      .type('form')
      .send({ token: tokens.access_token });
    expect(basic.status).toBe(200);
    expect((await me(tokens.access_token)).status).toBe(401);
  });
});
