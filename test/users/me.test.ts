import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokePersonalAccessTokenByValue } from '../../src/identity/personal-access-tokens.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

describe('GET /api/v2/me', () => {
  let t: TestApp;
  let alice: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin', name: 'Alice' });
  });
  afterAll(() => t.close());

  it('returns the caller with rate-limit headers', async () => {
    const res = await t.http.get('/api/v2/me').set(...bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: alice.id,
      email: alice.email,
      name: 'Alice',
      slug: expect.any(String),
      timezone: 'Europe/Berlin',
    });
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(599);
    expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it('refuses a missing token with 401 and a Bearer challenge', async () => {
    const res = await t.http.get('/api/v2/me');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
    expect(res.headers['www-authenticate']).toContain('resource_metadata=');
    expect(res.body).toEqual({ title: 'Unauthorized', message: expect.any(String) });
  });

  it('refuses a revoked token with 401 invalid_token', async () => {
    const bob = await createUserWithToken(t.em());
    await revokePersonalAccessTokenByValue(t.em(), bob.token, new Date());
    const res = await t.http.get('/api/v2/me').set(...bearer(bob.token));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses a Pro-plan token with 401 naming the Team plan', async () => {
    const pro = await createUserWithToken(t.em(), { plan: 'pro' });
    const res = await t.http.get('/api/v2/me').set(...bearer(pro.token));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/Team plan/);
  });

  it('refuses a token without read:profile with 403 naming the scope', async () => {
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const res = await t.http.get('/api/v2/me').set(...bearer(narrow.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('read:profile') });
    expect(res.headers['x-ratelimit-limit']).toBe('600');
  });
});
