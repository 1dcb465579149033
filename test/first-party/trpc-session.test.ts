import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { createUserWithToken } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, signIn, startListeningApp } from '../oauth/support.ts';
import { failure, type SignedIn, signInClient, trpcClient } from './support.ts';

describe('first-party tRPC with the session cookie', () => {
  let t: TestApp & { siteUrl: string };
  let alice: PasswordUser;
  let signedIn: SignedIn;

  beforeAll(async () => {
    t = await startListeningApp();
    alice = await createPasswordUser(t.em(), { plan: 'team', name: 'Alice First', timezone: 'Europe/Berlin' });
    signedIn = await signInClient(t, alice);
  });
  afterAll(() => t.close());

  it('session.current is null without a session and names the user with a CSRF token once signed in', async () => {
    expect(await trpcClient(t.siteUrl).session.current.query()).toBeNull();
    expect(await trpcClient(t.siteUrl, { cookie: 'session=ses_not-a-real-one' }).session.current.query()).toBeNull();

    const session = await signedIn.client.session.current.query();
    expect(session).toEqual({
      user: { id: alice.id, email: alice.email, name: 'Alice First', slug: expect.any(String), timezone: 'Europe/Berlin', plan: 'team' },
      csrfToken: signedIn.csrf,
    });
    expect(signedIn.csrf).toMatch(/^csrf_/);
    // The answer holds the CSRF token: no cache may keep it.
    const raw = await fetch(`${t.siteUrl}/trpc/session.current`, { headers: { cookie: signedIn.cookie } });
    expect(raw.headers.get('cache-control')).toBe('no-store');
  });

  it('a signed-in user reaches the same procedures as the REST API, with every scope', async () => {
    const me = await signedIn.client.users.me.query();
    expect(me).toMatchObject({ id: alice.id, email: alice.email, timezone: 'Europe/Berlin' });
    const eventTypes = await signedIn.client.eventTypes.list.query();
    expect(eventTypes.data).toEqual([]);
    const bookings = await signedIn.client.bookings.list.query({});
    expect(bookings).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a cookie-authenticated call without the CSRF header (queries too) with 403', async () => {
    const noHeader = await failure(trpcClient(t.siteUrl, { cookie: signedIn.cookie }).users.me.query());
    expect(noHeader.status).toBe(403);
    expect(noHeader.message).toContain('x-csrf-token');

    const wrongHeader = await failure(
      trpcClient(t.siteUrl, { cookie: signedIn.cookie, csrf: `${signedIn.csrf.slice(0, -1)}x` }).users.me.query(),
    );
    expect(wrongHeader.status).toBe(403);

    const mutation = await failure(
      trpcClient(t.siteUrl, { cookie: signedIn.cookie }).developerSettings.tokens.create.mutate({
        name: 'csrf',
        scopes: ['read:profile'],
      }),
    );
    expect(mutation.status).toBe(403);
    expect(await signedIn.client.developerSettings.tokens.list.query()).toEqual([]);
  });

  it("another session's CSRF token does not fit this session", async () => {
    const other = await createPasswordUser(t.em());
    const otherSession = await signInClient(t, other);
    const mixed = await failure(trpcClient(t.siteUrl, { cookie: signedIn.cookie, csrf: otherSession.csrf }).users.me.query());
    expect(mixed.status).toBe(403);
  });

  it('answers 401 for an unknown or signed-out session', async () => {
    const unknown = await failure(
      trpcClient(t.siteUrl, { cookie: `session=ses_${'a'.repeat(52)}`, csrf: signedIn.csrf }).users.me.query(),
    );
    expect(unknown.status).toBe(401);

    const bob = await createPasswordUser(t.em());
    const bobSession = await signInClient(t, bob);
    const logout = await t.http
      .post('/logout')
      .set('Cookie', bobSession.cookie)
      .type('form')
      .send({ csrf: bobSession.csrf });
    expect(logout.status).toBe(303);
    const afterLogout = await failure(bobSession.client.users.me.query());
    expect(afterLogout.status).toBe(401);
  });

  it('keeps bearer tokens working on /trpc, and a token wins over a cookie', async () => {
    const holder = await createUserWithToken(t.em(), { name: 'Token Holder' });
    const viaToken = await trpcClient(t.siteUrl, { bearer: holder.token }).users.me.query();
    expect(viaToken.id).toBe(holder.id);
    // The token decides who is calling; no CSRF header is needed since no cookie is used.
    const both = await trpcClient(t.siteUrl, { bearer: holder.token, cookie: signedIn.cookie }).users.me.query();
    expect(both.id).toBe(holder.id);
  });

  it('does not accept the session cookie on the REST API', async () => {
    const res = await t.http.get('/api/v2/me').set('Cookie', signedIn.cookie).set('x-csrf-token', signedIn.csrf);
    expect(res.status).toBe(401);
  });

  it('lets Free and Pro users use the first-party app (the Team rule is for API tokens)', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const user = await createPasswordUser(t.em(), { plan });
      const session = await signInClient(t, user);
      expect((await session.client.session.current.query())?.user.plan).toBe(plan);
      expect((await session.client.users.me.query()).id).toBe(user.id);
    }
  });

  it('rate-limits per session: each session has its own budget', async () => {
    const call = (cookie: string, csrf: string) =>
      fetch(`${t.siteUrl}/trpc/users.me`, { headers: { cookie, 'x-csrf-token': csrf } });
    const first = await call(signedIn.cookie, signedIn.csrf);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('600');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const before = Number(first.headers.get('x-ratelimit-remaining'));
    const second = await call(signedIn.cookie, signedIn.csrf);
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(before - 1);

    // A second sign-in of the same user is a new session with a full budget.
    const cookie = await signIn(t.http, alice);
    const csrf = (await trpcClient(t.siteUrl, { cookie }).session.current.query())?.csrfToken ?? '';
    const fresh = await call(cookie, csrf);
    expect(fresh.status).toBe(200);
    expect(Number(fresh.headers.get('x-ratelimit-remaining'))).toBe(599);
  });
});
