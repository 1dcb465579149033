import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import {
  createClient,
  createPasswordUser,
  hiddenFields,
  movableClock,
  openConsent,
  type PasswordUser,
  pkcePair,
  REDIRECT_URI,
  redeem,
  signIn,
  submitConsent,
  type TestClient,
} from './support.ts';

describe('GET/POST /oauth/authorize and the consent screen', () => {
  let t: TestApp;
  let iss: string;
  let user: PasswordUser;
  let cookie: string;
  let client: TestClient;
  let confidential: TestClient;
  let twoUris: TestClient;
  let loopback: TestClient;
  let withQuery: TestClient;
  const clock = movableClock();
  const { challenge, verifier } = pkcePair();

  beforeAll(async () => {
    t = await startTestApp({ clock, publicRateLimitPerMinute: 10_000 });
    iss = t.app.services.env.SITE_URL;
    user = await createPasswordUser(t.em());
    cookie = await signIn(t.http, user);
    client = await createClient(t.em(), user.id, { name: 'Acme Calendar Sync' });
    confidential = await createClient(t.em(), user.id, { type: 'confidential', name: 'Server App' });
    twoUris = await createClient(t.em(), user.id, {
      redirectUris: ['https://two.example.test/a', 'https://two.example.test/b'],
    });
    loopback = await createClient(t.em(), user.id, { redirectUris: ['http://127.0.0.1/callback'] });
    withQuery = await createClient(t.em(), user.id, { redirectUris: ['https://q.example.test/cb?tenant=42'] });
  });
  afterAll(() => t.close());

  function query(overrides: Record<string, string | undefined> = {}, target: TestClient = client): string {
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: target.clientId,
      redirect_uri: target.redirectUri,
      scope: 'read:profile read:bookings',
      state: 'st-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...overrides,
    };
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, value);
    return search.toString();
  }

  function get(search: string, withCookie = true) {
    const req = t.http.get(`/oauth/authorize?${search}`);
    return withCookie ? req.set('Cookie', cookie) : req;
  }

  function expectErrorPage(res: Response): void {
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  }

  function expectErrorRedirect(res: Response, error: string, state: string | null = 'st-123', target = client): URL {
    expect(res.status, res.text).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe(target.redirectUri.split('?')[0]);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(iss);
    expect(location.searchParams.has('code')).toBe(false);
    return location;
  }

  describe('requests that must not be redirected (error page, no Location)', () => {
    it.each([
      ['a missing client_id', () => query({ client_id: undefined })],
      ['an unknown client_id', () => query({ client_id: 'oci_doesnotexist' })],
      ['an unregistered redirect_uri', () => query({ redirect_uri: 'https://evil.example.test/callback' })],
      ['client_id given twice', () => `${query()}&client_id=${client.clientId}`],
      ['redirect_uri given twice', () => `${query()}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`],
      ['no redirect_uri while two are registered', () => query({ redirect_uri: undefined }, twoUris)],
    ])('%s', async (_label, search) => {
      expectErrorPage(await get(search()));
      expectErrorPage(await get(search(), false));
    });

    it.each([
      ['a trailing slash', `${REDIRECT_URI}/`],
      ['a case change', REDIRECT_URI.replace('callback', 'Callback')],
      ['an upper-case host', REDIRECT_URI.replace('app.example', 'APP.example')],
      ['an extra query parameter', `${REDIRECT_URI}?x=1`],
      ['a path suffix', `${REDIRECT_URI}/more`],
      ['user information', 'https://app.example.test@evil.example.test/callback'],
      ['another port', 'https://app.example.test:8443/callback'],
      ['http instead of https', REDIRECT_URI.replace('https:', 'http:')],
    ])('a redirect_uri with %s (exact string comparison)', async (_label, uri) => {
      expectErrorPage(await get(query({ redirect_uri: uri })));
    });
  });

  describe('the signed-out user', () => {
    it('is sent to /login and comes back to the same request after signing in', async () => {
      const search = query();
      const res = await get(search, false);
      expect(res.status).toBe(303);
      const login = new URL(res.headers.location as string, iss);
      expect(login.pathname).toBe('/login');
      const next = login.searchParams.get('next') ?? '';
      expect([...new URLSearchParams(next.split('?')[1])].sort()).toEqual([...new URLSearchParams(search)].sort());

      const form = await t.http.get(`${login.pathname}${login.search}`);
      const csrfCookie = String(form.headers['set-cookie']).split(';')[0] ?? '';
      const signedIn = await t.http
        .post('/login')
        .set('Cookie', csrfCookie)
        .type('form')
        .send({ ...hiddenFields(form.text, 'login'), email: user.email, password: user.password });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.location).toBe(next);
      const session = String(signedIn.headers['set-cookie']).match(/session=[^;]+/)?.[0] ?? '';
      const consent = await t.http.get(next).set('Cookie', session);
      expect(consent.status).toBe(200);
      expect(consent.text).toContain('Acme Calendar Sync');
    });

    it('is authenticated before an erroneous request is answered by redirect (BCP 240 §4.11.2)', async () => {
      const res = await get(query({ scope: 'admin:everything' }), false);
      expect(res.status).toBe(303);
      expect(res.headers.location).toMatch(/^\/login\?next=/);
    });
  });

  describe('parameters', () => {
    it('ignores unknown parameters', async () => {
      const res = await get(`${query()}&prompt=consent&foo=bar`);
      expect(res.status).toBe(200);
    });

    it('refuses a parameter given twice with invalid_request', async () => {
      expectErrorRedirect(await get(`${query()}&scope=read%3Aprofile`), 'invalid_request');
      expectErrorRedirect(await get(`${query()}&response_type=code`), 'invalid_request');
    });

    it('treats a parameter with an empty value as absent', async () => {
      const { fields } = await openConsent(t.http, cookie, query({ state: '', resource: '' }));
      expect(fields).not.toHaveProperty('state');
      expect(fields).not.toHaveProperty('resource');
      const location = await submitConsent(t.http, cookie, fields, 'approve');
      expect(location.searchParams.has('state')).toBe(false);
      expect(location.searchParams.get('code')).toMatch(/^oac_/);
    });

    it('refuses a missing response_type with invalid_request and another one with unsupported_response_type', async () => {
      expectErrorRedirect(await get(query({ response_type: undefined })), 'invalid_request');
      expectErrorRedirect(await get(query({ response_type: 'token' })), 'unsupported_response_type');
      expectErrorRedirect(await get(query({ response_type: 'code id_token' })), 'unsupported_response_type');
    });

    it('refuses unknown or missing scopes with invalid_scope; read:leads and read:contacts are known', async () => {
      expectErrorRedirect(await get(query({ scope: 'read:profile admin' })), 'invalid_scope');
      expectErrorRedirect(await get(query({ scope: undefined })), 'invalid_scope');
      expect((await get(query({ scope: 'read:leads read:contacts' }))).status).toBe(200);
    });
  });

  describe('PKCE', () => {
    it('is required from public clients: no code_challenge is invalid_request', async () => {
      expectErrorRedirect(await get(query({ code_challenge: undefined, code_challenge_method: undefined })), 'invalid_request');
    });

    it.each([
      ['plain', 'plain'],
      ['an unknown method', 'S512'],
      ['an absent method (defaults to plain)', undefined],
    ])('refuses %s', async (_label, method) => {
      expectErrorRedirect(await get(query({ code_challenge_method: method })), 'invalid_request');
    });

    it.each([
      ['too short', 'a'.repeat(42)],
      ['too long', 'a'.repeat(129)],
      ['outside the unreserved characters', `${'a'.repeat(42)}+`],
    ])('refuses a code_challenge %s', async (_label, value) => {
      expectErrorRedirect(await get(query({ code_challenge: value })), 'invalid_request');
    });

    it('is optional for confidential clients, but plain stays refused', async () => {
      const without = await get(query({ code_challenge: undefined, code_challenge_method: undefined }, confidential));
      expect(without.status).toBe(200);
      expectErrorRedirect(await get(query({ code_challenge_method: 'plain' }, confidential)), 'invalid_request', 'st-123', confidential);
    });
  });

  describe('redirect URIs', () => {
    it('lets a loopback redirect URI carry any port (RFC 8252 §7.3) and sends the browser to that port', async () => {
      const uri = 'http://127.0.0.1:55123/callback';
      const { fields } = await openConsent(t.http, cookie, query({ redirect_uri: uri }, loopback));
      const location = await submitConsent(t.http, cookie, fields, 'approve');
      expect(`${location.origin}${location.pathname}`).toBe(uri);
      expectErrorPage(await get(query({ redirect_uri: 'http://127.0.0.1:55123/callback/x' }, loopback)));
    });

    it.each(['http://127.0.0.1:0/callback', 'http://127.0.0.1:65536/callback', 'http://127.0.0.1:99999/callback', 'http://127.0.0.1:00080/callback'])(
      'does not match a loopback redirect URI with an impossible port (%s): the usual error page, never a code',
      async (uri) => {
        expectErrorPage(await get(query({ redirect_uri: uri }, loopback)));
        const { fields } = await openConsent(t.http, cookie, query({ redirect_uri: 'http://127.0.0.1:8080/callback' }, loopback));
        const approval = await t.http
          .post('/oauth/authorize')
          .set('Cookie', cookie)
          .type('form')
          .send({ ...fields, redirect_uri: uri, decision: 'approve' });
        expectErrorPage(approval);
      },
    );

    it('may be omitted when exactly one is registered; the token request then needs none', async () => {
      const { fields } = await openConsent(t.http, cookie, query({ redirect_uri: undefined }));
      expect(fields).not.toHaveProperty('redirect_uri');
      const location = await submitConsent(t.http, cookie, fields, 'approve');
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      const res = await redeem(t.http, { ...client, redirectUri: '' }, {
        code: location.searchParams.get('code') ?? '',
        verifier,
      }, {});
      expect(res.status, res.text).toBe(200);
    });

    it("keeps the registered URI's own query and adds code, state and iss exactly once", async () => {
      const { fields } = await openConsent(t.http, cookie, query({}, withQuery));
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...fields, decision: 'approve' });
      const raw = res.headers.location as string;
      expect(raw.startsWith('https://q.example.test/cb?tenant=42&')).toBe(true);
      const params = new URL(raw).searchParams;
      expect(params.getAll('tenant')).toEqual(['42']);
      expect(params.getAll('code')).toHaveLength(1);
      expect(params.getAll('state')).toEqual(['st-123']);
      expect(params.getAll('iss')).toEqual([iss]);
    });
  });

  describe('approve and deny', () => {
    it('approve: 303 to the redirect URI with code, the exact state and iss', async () => {
      const state = 'a b&c=d/é?+%';
      const { fields } = await openConsent(t.http, cookie, query({ state }));
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...fields, decision: 'approve' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('code')).toMatch(/^oac_[a-z2-7]{59}$/);
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.get('iss')).toBe(iss);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('deny: 303 with error=access_denied, the state and iss, and no code', async () => {
      const { fields } = await openConsent(t.http, cookie, query());
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...fields, decision: 'deny' });
      expectErrorRedirect(res, 'access_denied');
    });

    it('validates the POSTed form again: a tampered scope is refused by redirect', async () => {
      const { fields } = await openConsent(t.http, cookie, query());
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...fields, scope: 'read:profile root', decision: 'approve' });
      expectErrorRedirect(res, 'invalid_scope');
    });

    it('issues codes of at least 128 bits that differ every time and are stored only as hashes', async () => {
      const codes = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const { fields } = await openConsent(t.http, cookie, query());
        codes.add((await submitConsent(t.http, cookie, fields, 'approve')).searchParams.get('code') ?? '');
      }
      expect(codes.size).toBe(3);
      const rows = await t.em().execute<{ code_hash: string }[]>('select code_hash from oauth_authorization_code');
      for (const code of codes) {
        expect(code.slice(4)).toMatch(/^[a-z2-7]{59}$/); // 52 base32 characters = 260 bits, then a 7-character checksum
        expect(rows.some((row) => row.code_hash === code)).toBe(false);
      }
    });

    it('lets a code live 60 seconds at most', async () => {
      const fresh = async () => {
        const { fields } = await openConsent(t.http, cookie, query());
        return (await submitConsent(t.http, cookie, fields, 'approve')).searchParams.get('code') ?? '';
      };
      const start = clock.now();
      try {
        const early = await fresh();
        clock.advance(59);
        expect((await redeem(t.http, client, { code: early, verifier })).status).toBe(200);
        clock.set(start);
        const late = await fresh();
        clock.advance(61);
        const res = await redeem(t.http, client, { code: late, verifier });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('invalid_grant');
      } finally {
        clock.set(start);
      }
    });
  });

  describe('CSRF, framing and other protections of the consent screen', () => {
    it('refuses an approval without the CSRF token, with 403 and no redirect', async () => {
      const { fields } = await openConsent(t.http, cookie, query());
      const { csrf: _csrf, ...withoutCsrf } = fields;
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...withoutCsrf, decision: 'approve' });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
    });

    it("refuses another session's CSRF token (the form was made for someone else)", async () => {
      const mallory = await createPasswordUser(t.em());
      const malloryCookie = await signIn(t.http, mallory);
      const { fields } = await openConsent(t.http, malloryCookie, query());
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', cookie)
        .type('form')
        .send({ ...fields, decision: 'approve' });
      expect(res.status).toBe(403);
      expect(res.headers.location).toBeUndefined();
    });

    it('sends anti-framing, no-referrer and no-store headers, and no CORS headers', async () => {
      const res = await get(query()).set('Origin', 'https://evil.example.test');
      expect(res.status).toBe(200);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cache-control']).toBe('no-store');
      for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/);
      const page = await get(query({ client_id: 'oci_unknown' }));
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    });

    it('loads nothing from anywhere: no scripts, no external styles, images or fonts; only the site’s own icon', async () => {
      const res = await get(query());
      const icon = '<link rel="icon" type="image/svg+xml" href="/app/favicon.svg">';
      expect(res.text).toContain(icon);
      expect(res.text.replace(icon, '')).not.toMatch(/<script|<link|<img|<iframe|url\(|@import/i);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    });
  });

  describe('what the consent screen shows', () => {
    it('the app name, its permissions in words, the redirect host and who is signed in; no badge for our apps', async () => {
      const { html, fields } = await openConsent(t.http, cookie, query({ scope: 'read:bookings write:bookings' }));
      expect(html).toContain('Acme Calendar Sync');
      expect(html).toContain('List and view your bookings');
      expect(html).toContain('Create, cancel and reschedule your bookings');
      expect(html).not.toContain('View your name, e-mail address and time zone');
      expect(html).toContain('<strong>app.example.test</strong>');
      expect(html).toContain(user.email);
      expect(html).not.toContain('Unverified');
      expect(html).toMatch(/<button type="submit" name="decision" value="approve"/);
      expect(html).toMatch(/<button type="submit" name="decision" value="deny"/);
      expect(Object.keys(fields).sort()).toEqual(
        ['client_id', 'code_challenge', 'code_challenge_method', 'csrf', 'redirect_uri', 'response_type', 'scope', 'state'].sort(),
      );
    });

    it('offers only "deny" to a user off the Team plan, and refuses a forced approval with access_denied', async () => {
      const pro = await createPasswordUser(t.em(), { plan: 'pro' });
      const proCookie = await signIn(t.http, pro);
      const { html, fields } = await openConsent(t.http, proCookie, query());
      expect(html).toContain('Team plan');
      expect(html).not.toContain('value="approve"');
      const res = await t.http
        .post('/oauth/authorize')
        .set('Cookie', proCookie)
        .type('form')
        .send({ ...fields, decision: 'approve' });
      expectErrorRedirect(res, 'access_denied');
    });
  });

  describe('resource indicators (RFC 8707)', () => {
    it('accepts our resources, with or without a trailing slash on the origin', async () => {
      for (const resource of [iss, `${iss}/`, `${iss}/api/v2`, `${iss}/mcp`]) {
        expect((await get(query({ resource }))).status, resource).toBe(200);
      }
    });

    it.each([
      ['a relative URI', '/api/v2'],
      ['a fragment', 'http://localhost:3000/api/v2#x'],
      ['somebody else', 'https://other.example.test/api'],
    ])('refuses %s with invalid_target', async (_label, resource) => {
      expectErrorRedirect(await get(query({ resource })), 'invalid_target');
    });

    it('refuses two resources with invalid_target', async () => {
      expectErrorRedirect(
        await get(`${query({ resource: `${iss}/api/v2` })}&resource=${encodeURIComponent(`${iss}/mcp`)}`),
        'invalid_target',
      );
    });
  });
});
