import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/** A user's booking pages after a slug change: the old addresses redirect to the new ones, for good. */
describe('booking pages under an old user slug', () => {
  let t: TestApp;
  let webRoot: string;

  beforeAll(async () => {
    webRoot = mkdtempSync(path.join(tmpdir(), 'web-root-'));
    writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>booking page</title>');
    t = await startTestApp({ webRoot });
  });
  afterAll(async () => {
    await t.close();
    rmSync(webRoot, { recursive: true, force: true });
  });

  const slugOf = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}`;
  async function moveTo(user: TestUser, slug: string): Promise<void> {
    const res = await t.http.patch('/api/v2/me').set(...bearer(user.token)).send({ slug });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }

  it('redirects (301) every page of the old slug to the new one, keeping the event type and the query string', async () => {
    const host = await createUserWithToken(t.em());
    const eventType = await createEventType(t.em(), host.id, { slug: 'intro-call' });
    const [old, current] = [slugOf('old'), slugOf('new')];
    await moveTo(host, old);
    await moveTo(host, current);

    const moved = await t.http.get(`/book/${old}/${eventType.slug}?key=abc&embed=1`);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`/book/${current}/${eventType.slug}?key=abc&embed=1`);
    expect(moved.headers['cache-control']).toBe('no-cache');
    // Any event type slug: the page itself says when one does not exist.
    expect((await t.http.get(`/book/${old}/no-such-type`)).headers.location).toBe(`/book/${current}/no-such-type`);

    const page = await t.http.get(`/book/${current}/${eventType.slug}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('booking page');
    // The API's event type links follow the slug.
    const listed = await t.http.get('/api/v2/event-types').set(...bearer(host.token));
    expect(listed.body.data[0].url).toMatch(new RegExp(`/book/${current}/intro-call$`));
  });

  it('leads every slug the user ever had straight to the current one; a slug taken back is served again', async () => {
    const host = await createUserWithToken(t.em());
    const [first, second, third] = [slugOf('first'), slugOf('second'), slugOf('third')];
    for (const slug of [first, second, third]) await moveTo(host, slug);
    for (const old of [first, second]) expect((await t.http.get(`/book/${old}/x`)).headers.location).toBe(`/book/${third}/x`);

    await moveTo(host, first);
    expect((await t.http.get(`/book/${first}/x`)).status).toBe(200);
    expect((await t.http.get(`/book/${third}/x`)).headers.location).toBe(`/book/${first}/x`);
  });

  it('serves the page for a current or unknown slug, and never redirects to another user', async () => {
    const [one, two] = [await createUserWithToken(t.em()), await createUserWithToken(t.em())];
    const slug = slugOf('mine');
    await moveTo(one, slug);
    expect((await t.http.get(`/book/${slug}/x`)).status).toBe(200);
    expect((await t.http.get(`/book/${slugOf('nobody')}/x`)).status).toBe(200);
    const me = await t.http.get('/api/v2/me').set(...bearer(two.token));
    expect((await t.http.get(`/book/${me.body.slug}/x`)).status).toBe(200);
  });

  it('frees the slugs of a deleted account', async () => {
    const gone = await createUserWithToken(t.em());
    const [old, current] = [slugOf('gone-old'), slugOf('gone-new')];
    await moveTo(gone, old);
    await moveTo(gone, current);
    await t.em().execute('delete from app_user where id = ?', [gone.id], 'run');
    expect((await t.http.get(`/book/${old}/x`)).status).toBe(200);
    const heir = await createUserWithToken(t.em());
    await moveTo(heir, old);
  });
});
