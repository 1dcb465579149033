import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { expectOAuthErrorCharset } from './support.ts';

/**
 * RFC 6749 §10.10 (guessing must be prevented) and RFC 7009 §5 (the revocation endpoint needs the same
 * abuse protection as the token endpoint): both share a per-address budget, here lowered to 3 a minute.
 */
describe('per-address limits of the token and revocation endpoints', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ publicRateLimitPerMinute: 3, env: BEHIND_PROXY });
  });
  afterAll(() => t.close());

  const guess = (path: '/oauth/token' | '/oauth/revoke', ip: string) =>
    t.http
      .post(path)
      .set('X-Forwarded-For', ip)
      .type('form')
      .send(
        path === '/oauth/token'
          ? { grant_type: 'refresh_token', refresh_token: `ort_${'a'.repeat(52)}`, client_id: 'oci_guess' }
          : { token: `oat_${'a'.repeat(52)}`, client_id: 'oci_guess' },
      );

  it('answers the request over the budget with 429 slow_down and Retry-After, token and revocation together', async () => {
    const ip = '203.0.113.7';
    expect((await guess('/oauth/token', ip)).status).toBe(401);
    expect((await guess('/oauth/revoke', ip)).status).toBe(401);
    expect((await guess('/oauth/token', ip)).status).toBe(401);
    for (const path of ['/oauth/token', '/oauth/revoke'] as const) {
      const res = await guess(path, ip);
      expect(res.status, path).toBe(429);
      expect(res.body.error).toBe('slow_down');
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(res.headers['cache-control']).toBe('no-store');
      expectOAuthErrorCharset(res.body);
    }
    expect((await guess('/oauth/token', '203.0.113.8')).status).toBe(401);
  });
});

describe('per-address limits without a trusted proxy', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ publicRateLimitPerMinute: 3 });
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-For, so a client cannot buy a new budget by inventing addresses', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.http
        .post('/oauth/token')
        .set('X-Forwarded-For', `198.51.100.${i + 1}`)
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: `ort_${'b'.repeat(52)}`, client_id: 'oci_guess' });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});
