import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnv } from '../../src/config/env.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/** A stand-in for the built web app: the page headers do not depend on what the bundle holds. */
function fakeWebRoot(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'web-root-'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>app</title>');
  return root;
}

describe('who may frame which page', () => {
  let t: TestApp;
  let configured: TestApp;

  beforeAll(async () => {
    const webRoot = fakeWebRoot();
    t = await startTestApp({ webRoot });
    configured = await startTestApp({ webRoot, env: { BOOKING_FRAME_ANCESTORS: 'https://www.example.com https://*.example.org' } });
  });
  afterAll(async () => {
    await t.close();
    await configured.close();
  });

  it.each(['/book/ada-1a2b3c/intro', `/book/manage/bkm_${'a'.repeat(52)}`])('%s may be framed by any site by default', async (url) => {
    const res = await t.http.get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('the booking pages may be framed by exactly the sites BOOKING_FRAME_ANCESTORS names', async () => {
    const res = await configured.http.get('/book/ada-1a2b3c/intro');
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors https:\/\/www\.example\.com https:\/\/\*\.example\.org$/);
  });

  it.each(['/app', '/app/developer', '/login', '/signup', '/oauth/authorize?client_id=x'])('%s is never framed', async (url) => {
    const res = await configured.http.get(url);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('serves /embed.js, which frames only this site’s booking pages and checks where resize messages come from', async () => {
    const res = await t.http.get('/embed.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.text).toContain("'scheduling:resize'");
    expect(res.text).toContain('event.origin !== url.origin');
    expect(res.text).toContain("url.searchParams.set('embed', '1')");
  });

  it.each(["'self'; script-src *", 'https://a.example,https://b.example', 'javascript:alert(1)'])(
    'refuses BOOKING_FRAME_ANCESTORS=%s at start',
    (value) => {
      expect(() => loadEnv({ BOOKING_FRAME_ANCESTORS: value })).toThrow(/BOOKING_FRAME_ANCESTORS/);
    },
  );
});
