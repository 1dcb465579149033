import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../src/lib/secrets.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/** The service's budget of failed authentications per client address and minute. */
const BUDGET = 30;

describe('failed authentications are limited per client address', () => {
  let t: TestApp;
  let alice: TestUser;
  let addresses = 0;
  const address = () => `198.51.100.${++addresses}`;
  const randomToken = () => (Math.random() < 0.5 ? generateToken('pat_') : `oat_${randomBytes(20).toString('hex')}`);

  beforeAll(async () => {
    t = await startTestApp({ env: BEHIND_PROXY });
    alice = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  const rest = (ip: string, token: string) => t.http.get('/api/v2/me').set('X-Forwarded-For', ip).set(...bearer(token));
  const trpc = (ip: string, token: string) => t.http.get('/trpc/users.me').set('X-Forwarded-For', ip).set(...bearer(token));
  const userinfo = (ip: string, token: string) =>
    t.http.get('/oauth/userinfo').set('X-Forwarded-For', ip).set(...bearer(token));

  it(`answers 401 to ${BUDGET} random tokens, then 429 with Retry-After in the spec's shape`, async () => {
    const ip = address();
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, randomToken())).status).toBe(401);
    const refused = await rest(ip, randomToken());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ title: 'Too Many Requests', message: expect.stringContaining('failed authentications') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // The address stays blocked, whatever it sends; another address is not affected.
    expect((await rest(ip, randomToken())).status).toBe(429);
    expect((await rest(address(), alice.token)).status).toBe(200);
    expect((await rest(address(), randomToken())).status).toBe(401);
  });

  it('counts failures on /api/v2, /trpc and /oauth/userinfo together', async () => {
    const ip = address();
    for (let i = 0; i < BUDGET / 3; i++) {
      expect((await rest(ip, randomToken())).status).toBe(401);
      expect((await trpc(ip, randomToken())).status).toBe(401);
      expect((await userinfo(ip, randomToken())).status).toBe(401);
    }
    const trpcRefused = await trpc(ip, randomToken());
    expect(trpcRefused.status).toBe(429);
    expect(trpcRefused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    const userinfoRefused = await userinfo(ip, randomToken());
    expect(userinfoRefused.status).toBe(429);
    expect(userinfoRefused.body).toEqual({ error: 'slow_down', error_description: expect.any(String) });
    expect(userinfoRefused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect((await rest(ip, randomToken())).status).toBe(429);
  });

  it('does not count successful calls nor requests without credentials', async () => {
    const ip = address();
    for (let i = 0; i < BUDGET + 10; i++) expect((await rest(ip, alice.token)).status).toBe(200);
    for (let i = 0; i < BUDGET + 10; i++) expect((await t.http.get('/api/v2/me').set('X-Forwarded-For', ip)).status).toBe(401);
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, randomToken())).status).toBe(401);
    expect((await rest(ip, alice.token)).status).toBe(200);
    expect((await rest(ip, randomToken())).status).toBe(429);
    // Once over budget the address is refused before any token lookup, good token or not.
    expect((await rest(ip, alice.token)).status).toBe(429);
  });
});
