import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/lib/secrets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer } from '../helpers/factories.ts';
import {
  createClient,
  createPasswordUser,
  expectOAuthErrorCharset,
  obtainCode,
  obtainTokens,
  type PasswordUser,
  pkcePair,
  redeem,
  signIn,
  type TestClient,
  tokenRequest,
} from './support.ts';

describe('POST /oauth/token, grant_type=authorization_code', () => {
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
  const userinfo = (token: string) => t.http.get('/oauth/userinfo').set(...bearer(token));

  function expectTokenError(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }, error: string, status = 400) {
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectOAuthErrorCharset(res.body);
  }

  it('answers a form-encoded request with 200 JSON: Bearer token, 3600 s, a refresh token and the scope; never cached', async () => {
    const code = await obtainCode(t.http, cookie, client, { scope: 'read:profile read:bookings' });
    const res = await redeem(t.http, client, code);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^oat_[a-z2-7]{59}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^ort_[a-z2-7]{59}$/),
      scope: 'read:profile read:bookings',
    });
  });

  it('stores tokens only as hashes', async () => {
    const tokens = await obtainTokens(t.http, cookie, client);
    const access = await t.em().execute<{ token_hash: string }[]>('select token_hash from oauth_access_token');
    const refresh = await t.em().execute<{ token_hash: string }[]>('select token_hash from oauth_refresh_token');
    const stored = [...access, ...refresh].map((row) => row.token_hash);
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token);
    expect(stored.every((hash) => /^[0-9a-f]{64}$/.test(hash))).toBe(true);
  });

  it('refuses a JSON body with invalid_request (RFC 6749 §3.2: form-encoded)', async () => {
    const code = await obtainCode(t.http, cookie, client);
    const res = await t.http.post('/oauth/token').send({
      grant_type: 'authorization_code',
      code: code.code,
      code_verifier: code.verifier,
      redirect_uri: client.redirectUri,
      client_id: client.clientId,
    });
    expectTokenError(res, 'invalid_request');
  });

  it('refuses a second redemption and revokes what the first one issued', async () => {
    const code = await obtainCode(t.http, cookie, client);
    const first = await redeem(t.http, client, code);
    expect(first.status).toBe(200);
    expect((await me(first.body.access_token)).status).toBe(200);

    expectTokenError(await redeem(t.http, client, code), 'invalid_grant');
    expect((await me(first.body.access_token)).status).toBe(401);
    expect((await userinfo(first.body.access_token)).status).toBe(401);
    const refresh = await tokenRequest(t.http, {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: client.clientId,
    });
    expectTokenError(refresh, 'invalid_grant');
  });

  it('does not revoke anything when a replay carries a wrong verifier or another client (OAuth 2.1 §7.5.2)', async () => {
    const code = await obtainCode(t.http, cookie, client);
    const first = await redeem(t.http, client, code);
    expect(first.status).toBe(200);
    expectTokenError(await redeem(t.http, client, { code: code.code, verifier: 'x'.repeat(43) }), 'invalid_grant');
    expectTokenError(await redeem(t.http, other, code), 'invalid_grant');
    expect((await me(first.body.access_token)).status).toBe(200);
  });

  it('redeems a code exactly once under 20 concurrent requests', async () => {
    const code = await obtainCode(t.http, cookie, client);
    const results = await Promise.all(Array.from({ length: 20 }, () => redeem(t.http, client, code)));
    const statuses = results.map((res) => res.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(19);
    for (const res of results.filter((r) => r.status === 400)) expect(res.body.error).toBe('invalid_grant');
    const [row] = await t.em().execute<{ n: string }[]>(
      `select count(*) as n from oauth_access_token t
         join oauth_authorization_code c on c.grant_id = t.grant_id where c.code_hash = ?`,
      [hashToken(code.code)],
    );
    expect(Number(row?.n)).toBe(1);
  });

  it('refuses a code issued to another client with invalid_grant', async () => {
    const code = await obtainCode(t.http, cookie, client);
    expectTokenError(await redeem(t.http, other, code), 'invalid_grant');
    expect((await redeem(t.http, client, code)).status).toBe(200);
  });

  it('refuses a missing or wrong code_verifier with invalid_grant', async () => {
    const code = await obtainCode(t.http, cookie, client);
    expectTokenError(await redeem(t.http, client, { code: code.code }), 'invalid_grant');
    expectTokenError(await redeem(t.http, client, { code: code.code, verifier: pkcePair().verifier }), 'invalid_grant');
    expect((await redeem(t.http, client, code)).status).toBe(200);
  });

  it.each([
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(129)],
    ['with a character outside the unreserved set', `${'a'.repeat(42)}/`],
  ])('refuses a code_verifier %s with invalid_request', async (_label, verifier) => {
    const code = await obtainCode(t.http, cookie, client);
    expectTokenError(await redeem(t.http, client, { code: code.code, verifier }), 'invalid_request');
  });

  it('refuses a code_verifier for a code issued without code_challenge (PKCE downgrade)', async () => {
    const code = await obtainCode(t.http, cookie, confidential, { pkce: false });
    expectTokenError(await redeem(t.http, confidential, { code: code.code, verifier: 'a'.repeat(43) }), 'invalid_request');
    expect((await redeem(t.http, confidential, { code: code.code })).status).toBe(200);
  });

  it('requires the same redirect_uri as the authorization request, and accepts it when sent', async () => {
    const code = await obtainCode(t.http, cookie, client);
    expectTokenError(await redeem(t.http, { ...client, redirectUri: '' }, code), 'invalid_request');
    expectTokenError(await redeem(t.http, { ...client, redirectUri: `${client.redirectUri}/` }, code), 'invalid_grant');
    expect((await redeem(t.http, client, code)).status).toBe(200);
  });

  describe('resource indicators', () => {
    it('binds the access token to the resource; a token for /mcp is refused on /api/v2', async () => {
      const iss = t.app.services.env.SITE_URL;
      const api = await obtainTokens(t.http, cookie, client, { resource: `${iss}/api/v2` });
      expect((await me(api.access_token)).status).toBe(200);
      const mcp = await obtainTokens(t.http, cookie, client, { resource: `${iss}/mcp` });
      const refused = await me(mcp.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('refuses a resource the grant does not cover with invalid_target; narrows an origin grant', async () => {
      const iss = t.app.services.env.SITE_URL;
      const narrow = await obtainCode(t.http, cookie, client, { resource: `${iss}/api/v2` });
      expectTokenError(await redeem(t.http, client, narrow, { resource: `${iss}/mcp` }), 'invalid_target');
      expectTokenError(await redeem(t.http, client, narrow, { resource: 'https://other.example.test/' }), 'invalid_target');
      expectTokenError(await redeem(t.http, client, narrow, { resource: `${iss}/api/v2#frag` }), 'invalid_target');

      const wide = await obtainCode(t.http, cookie, client, { resource: `${iss}/` });
      const res = await redeem(t.http, client, wide, { resource: `${iss}/mcp` });
      expect(res.status).toBe(200);
      expect((await me(res.body.access_token)).status).toBe(401);
    });
  });

  describe('client authentication and request errors (RFC 6749 §5.2)', () => {
    it('answers an unknown client with 401 invalid_client, and a Basic challenge when Basic was used', async () => {
      const code = await obtainCode(t.http, cookie, client);
      const unknown = await redeem(t.http, { ...client, clientId: 'oci_nobody' }, code);
      expectTokenError(unknown, 'invalid_client', 401);
      const basic = await tokenRequest(
        t.http,
        { grant_type: 'authorization_code', code: code.code, code_verifier: code.verifier, redirect_uri: client.redirectUri },
        ['oci_nobody', 'ocs_whatever'],
      );
      expectTokenError(basic, 'invalid_client', 401);
      expect(basic.headers['www-authenticate']).toMatch(/^Basic /);
    });

    it('authenticates confidential clients with client_secret_basic or client_secret_post', async () => {
      const secret = confidential.clientSecret ?? '';
      const viaPost = await obtainCode(t.http, cookie, confidential);
      expect((await redeem(t.http, confidential, viaPost)).status).toBe(200);
      const viaBasic = await obtainCode(t.http, cookie, confidential);
      const res = await tokenRequest(
        t.http,
        {
          grant_type: 'authorization_code',
          code: viaBasic.code,
          code_verifier: viaBasic.verifier,
          redirect_uri: confidential.redirectUri,
        },
        [confidential.clientId, secret],
      );
      expect(res.status, res.text).toBe(200);
    });

    it('refuses a confidential client with a wrong or missing secret, or both methods at once', async () => {
      const code = await obtainCode(t.http, cookie, confidential);
      const { clientSecret: _secret, ...withoutSecret } = confidential;
      expectTokenError(await redeem(t.http, withoutSecret, code), 'invalid_client', 401);
      expectTokenError(await redeem(t.http, { ...confidential, clientSecret: `ocs_${'a'.repeat(52)}` }, code), 'invalid_client', 401);
      const wrongBasic = await tokenRequest(
        t.http,
        { grant_type: 'authorization_code', code: code.code, code_verifier: code.verifier, redirect_uri: confidential.redirectUri },
        [confidential.clientId, 'not-the-secret'],
      );
      expectTokenError(wrongBasic, 'invalid_client', 401);
      expect(wrongBasic.headers['www-authenticate']).toMatch(/^Basic /);
      const both = await tokenRequest(
        t.http,
        {
          grant_type: 'authorization_code',
          code: code.code,
          code_verifier: code.verifier,
          redirect_uri: confidential.redirectUri,
          client_secret: confidential.clientSecret,
        },
        [confidential.clientId, confidential.clientSecret ?? ''],
      );
      expectTokenError(both, 'invalid_request');
      expect((await redeem(t.http, confidential, code)).status).toBe(200);
    });

    it('refuses a secret from a public client with invalid_client', async () => {
      const code = await obtainCode(t.http, cookie, client);
      expectTokenError(await redeem(t.http, { ...client, clientSecret: `ocs_${'a'.repeat(52)}` }, code), 'invalid_client', 401);
    });

    it('answers a missing grant_type with invalid_request and an unknown one with unsupported_grant_type', async () => {
      expectTokenError(await tokenRequest(t.http, { client_id: client.clientId }), 'invalid_request');
      for (const grantType of ['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code']) {
        expectTokenError(await tokenRequest(t.http, { grant_type: grantType, client_id: client.clientId }), 'unsupported_grant_type');
      }
    });

    it('refuses a repeated parameter with invalid_request', async () => {
      const code = await obtainCode(t.http, cookie, client);
      const res = await t.http
        .post('/oauth/token')
        .type('form')
        .send(
          `grant_type=authorization_code&code=${code.code}&code=${code.code}&code_verifier=${code.verifier}` +
            `&redirect_uri=${encodeURIComponent(client.redirectUri)}&client_id=${client.clientId}`,
        );
      expectTokenError(res, 'invalid_request');
    });

    it('refuses an unknown or malformed code with invalid_grant', async () => {
      for (const code of [`oac_${'a'.repeat(52)}`, 'nonsense', `ort_${'a'.repeat(52)}`]) {
        expectTokenError(await redeem(t.http, client, { code, verifier: 'a'.repeat(43) }), 'invalid_grant');
      }
      expectTokenError(await redeem(t.http, client, { code: '', verifier: 'a'.repeat(43) }), 'invalid_request');
    });

    it('property: error and error_description stay within RFC 6749 §5.2 characters whatever the input', async () => {
      const value = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary-ascii', maxLength: 40 }),
        fc.constant('"\\'),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            grant_type: fc.oneof(fc.constantFrom('authorization_code', 'refresh_token'), value),
            code: value,
            refresh_token: value,
            client_id: fc.oneof(fc.constant(client.clientId), value),
            scope: value,
            resource: value,
            redirect_uri: value,
            code_verifier: value,
          }),
          async (form) => {
            const res = await tokenRequest(t.http, form);
            expect(res.status).toBeGreaterThanOrEqual(400);
            expectOAuthErrorCharset(res.body);
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});
