import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

const HSTS = 'max-age=63072000; includeSubDomains';

/** One request per surface, each with a credential where it needs one: answers and refusals alike. */
function requests(t: TestApp, user: TestUser) {
  return [
    ['GET /api/v2/me', () => t.http.get('/api/v2/me').set(...bearer(user.token))],
    ['GET /api/v2/me without a token (401)', () => t.http.get('/api/v2/me')],
    ['GET /api/v2/nope (404)', () => t.http.get('/api/v2/nope')],
    ['GET /trpc/users.me', () => t.http.get('/trpc/users.me').set(...bearer(user.token))],
    [
      'POST /mcp',
      () =>
        t.http
          .post('/mcp')
          .set(...bearer(user.token))
          .set('Accept', 'application/json, text/event-stream')
          .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    ],
    ['POST /oauth/token (400)', () => t.http.post('/oauth/token').type('form').send('grant_type=nope')],
    ['GET /.well-known/oauth-authorization-server', () => t.http.get('/.well-known/oauth-authorization-server')],
    ['GET /healthz', () => t.http.get('/healthz')],
    ['GET /login', () => t.http.get('/login')],
  ] as const;
}

describe('security headers over https', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL: 'https://sched.example.test' } });
    user = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  it('every surface answers with Strict-Transport-Security and X-Content-Type-Options: nosniff', async () => {
    for (const [label, send] of requests(t, user)) {
      const res = await send();
      expect(res.status, label).toBeLessThan(500);
      expect(res.headers['strict-transport-security'], label).toBe(HSTS);
      expect(res.headers['x-content-type-options'], label).toBe('nosniff');
    }
  });
});

describe('security headers over plain http (development)', () => {
  let t: TestApp;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL: 'http://localhost:3000' } });
    user = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  it('send nosniff but no Strict-Transport-Security, which a browser ignores on http anyway', async () => {
    for (const [label, send] of requests(t, user)) {
      const res = await send();
      expect(res.headers['strict-transport-security'], label).toBeUndefined();
      expect(res.headers['x-content-type-options'], label).toBe('nosniff');
    }
  });
});
