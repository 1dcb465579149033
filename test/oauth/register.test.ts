import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthClientEntity } from '../../src/oauth/oauth-client.entity.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPasswordUser, expectOAuthErrorCharset, openConsent, pkcePair, signIn } from './support.ts';

/** Every test registers from an address of its own, so the per-address limit never couples tests. */
let addresses = 0;
function address(): string {
  addresses += 1;
  return `198.51.100.${addresses}`;
}

describe('POST /oauth/register (RFC 7591)', () => {
  let t: TestApp;
  const register = (body: unknown, ip = address()) =>
    t.http.post('/oauth/register').set('X-Forwarded-For', ip).send(body as object);

  beforeAll(async () => {
    t = await startTestApp({ env: BEHIND_PROXY });
  });
  afterAll(() => t.close());

  it('answers 201 with the client_id and every registered value, defaults included, and no secret', async () => {
    const res = await register({ client_name: 'Claude Desktop', redirect_uris: ['http://127.0.0.1:33418/callback'] });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^oci_[a-z2-7]{26}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude Desktop',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.body).not.toHaveProperty('client_secret');
    const row = await t.em().findOneOrFail(OAuthClientEntity, { clientId: res.body.client_id });
    expect(row).toMatchObject({ type: 'public', dynamicallyRegistered: true, ownerUserId: null });
    expect(row.secretHash ?? null).toBeNull();
  });

  it('echoes token_endpoint_auth_method none when it was sent, and refuses any other method', async () => {
    const explicit = await register({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none' });
    expect(explicit.status).toBe(201);
    expect(explicit.body.token_endpoint_auth_method).toBe('none');
    for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt']) {
      const res = await register({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: method });
      expect(res.status, method).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
    }
  });

  it.each([
    'https://app.example.test/callback',
    'http://localhost:8080/callback',
    'http://127.0.0.1/callback',
    'http://[::1]:9000/callback',
  ])('accepts the redirect URI %s', async (uri) => {
    const res = await register({ client_name: 'ok', redirect_uris: [uri] });
    expect(res.status).toBe(201);
  });

  it.each([
    ['plain http off loopback', 'http://app.example.test/callback'],
    ['a lookalike of localhost', 'http://localhost.evil.test/callback'],
    ['a relative URI', '/callback'],
    ['a fragment', 'https://app.example.test/callback#frag'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,hello'],
    ['a private-use scheme', 'com.example.app:/callback'],
    ['user information', 'https://app.example.test@evil.test/callback'],
    ['no host', 'https:///callback'],
    ['no host, one slash', 'https:/callback'],
    ['a bidi override', 'https://app.example.test/\u202Ecb'],
    ['a bidi isolate in the host', 'https://app\u2066.example.test/cb'],
    ['a non-ASCII host', 'https://äpp.example.test/cb'],
    ['a percent-encoded host', 'https://%61pp.example.test/cb'],
    ['a backslash', 'https://app.example.test\\@evil.test/cb'],
    ['port 0', 'https://app.example.test:0/cb'],
    ['a loopback port 0', 'http://127.0.0.1:0/callback'],
    ['a loopback port over 65535', 'http://127.0.0.1:65536/callback'],
  ])('refuses %s with 400 invalid_redirect_uri', async (_label, uri) => {
    const res = await register({ client_name: 'bad', redirect_uris: ['https://fine.example/cb', uri] });
    expect(res.status).toBe(400);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toBe('invalid_redirect_uri');
    expect(res.body.error_description).toEqual(expect.any(String));
    expectOAuthErrorCharset(res.body);
  });

  it('refuses missing or malformed redirect_uris and metadata', async () => {
    expect((await register({ client_name: 'none' })).body.error).toBe('invalid_redirect_uri');
    expect((await register({ redirect_uris: [] })).body.error).toBe('invalid_redirect_uri');
    expect((await register({ redirect_uris: 'https://a.example/cb' })).body.error).toBe('invalid_redirect_uri');
    expect((await register({ redirect_uris: ['https://a.example/cb'], client_name: 42 })).body.error).toBe(
      'invalid_client_metadata',
    );
    expect((await register({ redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] })).body.error).toBe(
      'invalid_client_metadata',
    );
    expect((await register({ redirect_uris: ['https://a.example/cb'], response_types: ['token'] })).body.error).toBe(
      'invalid_client_metadata',
    );
    const form = await t.http
      .post('/oauth/register')
      .set('X-Forwarded-For', address())
      .type('form')
      .send({ redirect_uris: 'https://a.example/cb' });
    expect(form.status).toBe(400);
    expect(form.body.error).toBe('invalid_client_metadata');
    const broken = await t.http
      .post('/oauth/register')
      .set('X-Forwarded-For', address())
      .set('Content-Type', 'application/json')
      .send('{"redirect_uris": [');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('invalid_client_metadata');
  });

  it.each([
    ['a right-to-left override', 'Safe App\u202Eexe.ppa'],
    ['a bidi isolate', 'Calendar \u2067Sync'],
    ['a left-to-right mark', 'Calendar\u200E Sync'],
    ['a zero-width space', 'Goo\u200Bgle'],
    ['a control character', 'Calendar\u0007Sync'],
    ['a new line', 'Calendar\nSync'],
    ['Cyrillic letters among Latin ones', 'G\u043E\u043Egle Calendar'],
    ['Greek letters among Latin ones', 'Micr\u03BFsoft Outlook'],
  ])('refuses a client_name with %s with 400 invalid_client_metadata', async (_label, name) => {
    const res = await register({ client_name: name, redirect_uris: ['https://a.example.test/cb'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expectOAuthErrorCharset(res.body);
  });

  it('accepts names in one script, or Han with kana or Hangul, and folds compatibility forms (fullwidth, bold) to plain letters', async () => {
    for (const [name, stored] of [
      ['Календарь', 'Календарь'],
      ['カレンダー同期 Sync', 'カレンダー同期 Sync'],
      ['Ｇｏｏｇｌｅ', 'Google'],
      ['\u{1D406}oogle', 'Google'],
      ['Café Planner 2', 'Café Planner 2'],
    ]) {
      const res = await register({ client_name: name, redirect_uris: ['https://a.example.test/cb'] });
      expect(res.status, name).toBe(201);
      expect(res.body.client_name).toBe(stored);
    }
  });

  it('ignores unsupported metadata instead of echoing it, and never lets the client pick its id or secret', async () => {
    const res = await register({
      client_name: 'Chooser',
      redirect_uris: ['https://a.example/cb'],
      client_id: 'oci_i_chose_this',
      client_secret: 'hunter2',
      logo_uri: 'https://a.example/logo.png',
      software_id: 'abc',
      scope: 'read:profile',
    });
    expect(res.status).toBe(201);
    expect(res.body.client_id).not.toBe('oci_i_chose_this');
    for (const member of ['client_secret', 'logo_uri', 'software_id', 'scope']) {
      expect(res.body, member).not.toHaveProperty(member);
    }
  });

  it('shows the self-asserted app as unverified, with the redirect host, on the consent screen', async () => {
    const res = await register({ client_name: 'Totally Official App', redirect_uris: ['https://phish.example.test/cb'] });
    const user = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, user);
    const { html } = await openConsent(t.http, cookie, {
      response_type: 'code',
      client_id: res.body.client_id,
      redirect_uri: 'https://phish.example.test/cb',
      scope: 'read:profile',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    expect(html).toContain('Totally Official App');
    expect(html).toContain('<span class="badge">Unverified</span>');
    expect(html).toContain('<strong>phish.example.test</strong>');
  });

  it('escapes the self-chosen name on the consent screen', async () => {
    const res = await register({ client_name: '<script>alert("x")</script>', redirect_uris: ['https://x.example.test/cb'] });
    expect(res.status).toBe(201);
    const user = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, user);
    const { html } = await openConsent(t.http, cookie, {
      response_type: 'code',
      client_id: res.body.client_id,
      scope: 'read:profile',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('limits registrations per client address: 20 an hour, then 429 slow_down with Retry-After', async () => {
    const ip = address();
    for (let i = 0; i < 20; i++) {
      const res = await register({ client_name: `n${i}`, redirect_uris: ['https://a.example/cb'] }, ip);
      expect(res.status, `registration ${i + 1}`).toBe(201);
    }
    const refused = await register({ client_name: 'one too many', redirect_uris: ['https://a.example/cb'] }, ip);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('slow_down');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    // Another address is unaffected.
    expect((await register({ client_name: 'other', redirect_uris: ['https://a.example/cb'] })).status).toBe(201);
  });
});
