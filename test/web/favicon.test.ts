import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const ICON = readFileSync(path.resolve('web/public/favicon.svg'));
const ICON_LINK = '<link rel="icon" type="image/svg+xml" href="/app/favicon.svg">';

/** One icon for the web app and the service's own pages, served even before the web app is built. */
describe('the favicon', () => {
  let t: TestApp;
  const unbuilt = mkdtempSync(path.join(tmpdir(), 'web-root-'));

  beforeAll(async () => {
    t = await startTestApp({ webRoot: unbuilt });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(unbuilt, { recursive: true, force: true });
  });

  it('is the web app’s SVG, linked from its index.html', () => {
    expect(readFileSync(path.resolve('web/index.html'), 'utf8')).toContain('<link rel="icon" type="image/svg+xml" href="/app/favicon.svg" />');
    expect(ICON.toString('utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('is served as SVG, cached, when the web app is not built', async () => {
    const res = await t.http.get('/app/favicon.svg').buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(Buffer.from(res.body as Buffer).equals(ICON)).toBe(true);
  });

  it('is linked from the service’s own pages, whose CSP lets it load', async () => {
    for (const page of ['/', '/login', '/signup', '/api/docs']) {
      const res = await t.http.get(page);
      expect(res.status, page).toBe(200);
      expect(res.text, page).toContain(ICON_LINK);
      expect(res.headers['content-security-policy'], page).toMatch(/img-src 'self'/);
    }
  });
});
