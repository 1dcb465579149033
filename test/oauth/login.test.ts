import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/lib/secrets.ts';
import { resolveSession } from '../../src/identity/sessions.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { createPasswordUser, hiddenFields, mergeCookies, movableClock, type PasswordUser, signIn } from '../oauth/support.ts';

function cookieAttributes(setCookie: string | string[] | undefined, name: string): string {
  const lines = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return lines.find((line) => line.startsWith(`${name}=`)) ?? '';
}

describe('first-party sign-in at /login', () => {
  let t: TestApp;
  let user: PasswordUser;
  const clock = movableClock();
  let addresses = 0;
  const address = () => `192.0.2.${++addresses}`;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: BEHIND_PROXY });
    user = await createPasswordUser(t.em());
  });
  afterAll(() => t.close());

  async function loginForm(ip: string, next?: string, cookies = '') {
    const res = await t.http.get(next ? `/login?next=${encodeURIComponent(next)}` : '/login').set('X-Forwarded-For', ip);
    return { res, jar: mergeCookies(cookies, res.headers['set-cookie']), fields: hiddenFields(res.text, 'login') };
  }

  async function attempt(email: string, password: string, ip = address(), next?: string, cookies = '') {
    const form = await loginForm(ip, next, cookies);
    return t.http
      .post('/login')
      .set('X-Forwarded-For', ip)
      .set('Cookie', form.jar)
      .type('form')
      .send({ ...form.fields, email, password });
  }

  it('shows an accessible form with a CSRF token, on a page that cannot be framed or cached', async () => {
    const { res, fields } = await loginForm(address());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toMatch(/<label for="email">/);
    expect(res.text).toMatch(/<label for="password">/);
    expect(res.text).toContain('autocomplete="current-password"');
    // Nothing but the site's own icon is linked.
    const icon = '<link rel="icon" type="image/svg+xml" href="/app/favicon.svg">';
    expect(res.text).toContain(icon);
    expect(res.text.replace(icon, '')).not.toMatch(/<script|<link/);
    expect(fields).toEqual({ csrf: expect.stringMatching(/^lcsrf_/), next: '/login' });
    const csrfCookie = cookieAttributes(res.headers['set-cookie'], 'login_csrf');
    expect(csrfCookie).toMatch(/HttpOnly/);
    expect(csrfCookie).toMatch(/SameSite=Lax/);
  });

  it('signs in: 303 to next, an HttpOnly SameSite=Lax session cookie, stored only as a hash', async () => {
    const res = await attempt(user.email, user.password, address(), '/oauth/authorize?client_id=x');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/oauth/authorize?client_id=x');
    const cookie = cookieAttributes(res.headers['set-cookie'], 'session');
    expect(cookie).toMatch(/^session=ses_[a-z2-7]{59};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const value = /^session=([^;]+)/.exec(cookie)?.[1] ?? '';
    const rows = await t.em().execute<{ id: string; id_hash: string }[]>('select id, id_hash from user_session where user_id = ?', [user.id]);
    expect(rows.some((row) => row.id_hash === hashToken(value))).toBe(true);
    expect(rows.some((row) => row.id === value || row.id_hash === value)).toBe(false);
    expect((await resolveSession(t.em(), value, clock.now()))?.userId).toBe(user.id);
  });

  it('matches the e-mail address in any letter case', async () => {
    expect((await attempt(user.email.toUpperCase(), user.password)).status).toBe(303);
  });

  it('refuses a wrong password or an unknown e-mail with the same message and no session', async () => {
    const wrong = await attempt(user.email, 'not-the-password');
    const unknown = await attempt('nobody@example.test', 'whatever');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.text).toContain('The e-mail address or password is incorrect.');
      expect(cookieAttributes(res.headers['set-cookie'], 'session')).toBe('');
    }
  });

  it('refuses a POST without the form’s CSRF cookie or token with 403', async () => {
    const ip = address();
    const form = await loginForm(ip);
    const noCookie = await t.http
      .post('/login')
      .set('X-Forwarded-For', ip)
      .type('form')
      .send({ ...form.fields, email: user.email, password: user.password });
    expect(noCookie.status).toBe(403);
    const wrongToken = await t.http
      .post('/login')
      .set('X-Forwarded-For', ip)
      .set('Cookie', form.jar)
      .type('form')
      .send({ ...form.fields, csrf: 'lcsrf_forged', email: user.email, password: user.password });
    expect(wrongToken.status).toBe(403);
    expect(cookieAttributes(wrongToken.headers['set-cookie'], 'session')).toBe('');
  });

  it.each([
    'https://evil.example.test/',
    '//evil.example.test/path',
    '/\\evil.example.test',
    'javascript:alert(1)',
    '/.//evil.example.net',
    '/x/..//evil.example.net',
    '/%2e//evil.example.net',
    '/%2E%2E/%2e//evil.example.net',
  ])('does not redirect off the site: next=%s goes to /login', async (next) => {
    const res = await attempt(user.email, user.password, address(), next);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/login');
    const form = await loginForm(address(), next);
    expect(form.fields.next).toBe('/login');
  });

  it.each(['/.//evil.example.net', '/x/..//evil.example.net', '/%2e//evil.example.net'])(
    'signed in, /login?next=%s does not send the user off the site',
    async (next) => {
      const cookie = await signIn(t.http, user);
      const res = await t.http.get(`/login?next=${encodeURIComponent(next)}`).set('Cookie', cookie);
      expect(res.status).toBe(200);
      expect(res.headers.location).toBeUndefined();
      expect(res.text).toContain(user.email);
    },
  );

  it('starts a new session on every sign-in (no fixation)', async () => {
    const a = await attempt(user.email, user.password);
    const b = await attempt(user.email, user.password);
    expect(cookieAttributes(a.headers['set-cookie'], 'session')).not.toBe(cookieAttributes(b.headers['set-cookie'], 'session'));
  });

  it("an attacker's wrong passwords do not keep the owner out of a browser or an address that signed in before", async () => {
    const victim = await createPasswordUser(t.em());
    const home = address();
    const earlier = await attempt(victim.email, victim.password, home);
    expect(earlier.status).toBe(303);
    const device = mergeCookies('', earlier.headers['set-cookie']).split('; ').find((pair) => pair.startsWith('login_device=')) ?? '';
    expect(device).toMatch(/^login_device=dev_[a-z2-7]{59}$/);
    expect(cookieAttributes(earlier.headers['set-cookie'], 'login_device')).toMatch(/HttpOnly/);
    const start = clock.now();
    try {
      // One address hammers the account, and a dozen others guess once each.
      const attacker = address();
      for (let i = 0; i < 30; i++) expect((await attempt(victim.email, `wrong-${i}`, attacker)).status).not.toBe(303);
      for (let i = 0; i < 12; i++) expect((await attempt(victim.email, `spread-${i}`)).status).not.toBe(303);
      expect((await attempt(victim.email, victim.password, attacker)).status).toBe(429);
      // The owner: from the address that signed in before, and from a new address with the device cookie.
      expect((await attempt(victim.email, victim.password, home)).status).toBe(303);
      expect((await attempt(victim.email, victim.password, address(), undefined, device)).status).toBe(303);
      // And from an address and a browser never seen with this account.
      expect((await attempt(victim.email, victim.password)).status).toBe(303);
      // Others are not affected.
      expect((await attempt(user.email, user.password)).status).toBe(303);
    } finally {
      clock.set(start);
    }
  });

  it('lets the owner in from a new address after five wrong passwords from each of two others', async () => {
    const victim = await createPasswordUser(t.em());
    const [first, second] = [address(), address()];
    for (const attacker of [first, second]) {
      for (let i = 0; i < 5; i++) expect((await attempt(victim.email, `wrong-${i}`, attacker)).status).toBe(401);
    }
    expect((await attempt(victim.email, victim.password, first)).status).toBe(429);
    expect((await attempt(victim.email, victim.password, address())).status).toBe(303);
  });

  it('slows guessing spread over addresses: once an account draws 10 failures, each address gets one try per 15 minutes', async () => {
    const victim = await createPasswordUser(t.em());
    const start = clock.now();
    try {
      for (let i = 0; i < 10; i++) expect((await attempt(victim.email, `spread-${i}`)).status).toBe(401);
      const guesser = address();
      expect((await attempt(victim.email, 'one-guess', guesser)).status).toBe(401);
      const refused = await attempt(victim.email, victim.password, guesser);
      expect(refused.status).toBe(429);
      expect(refused.text).toContain('Too many failed sign-in attempts. Try again in 15 minutes.');
      expect(Number(refused.headers['retry-after'])).toBe(15 * 60);
      clock.advance(15 * 60 - 1);
      expect((await attempt(victim.email, victim.password, guesser)).status).toBe(429);
      clock.advance(1);
      expect((await attempt(victim.email, 'next-guess', guesser)).status).toBe(401);
      // Each fresh address still has its one try, with which the owner gets in.
      expect((await attempt(victim.email, victim.password)).status).toBe(303);
    } finally {
      clock.set(start);
    }
  });

  it('stops guessing from one address with growing waits (1, 2, 4… minutes), not a lockout of the account', async () => {
    const victim = await createPasswordUser(t.em());
    const attacker = address();
    const start = clock.now();
    try {
      for (let i = 0; i < 5; i++) expect((await attempt(victim.email, `wrong-${i}`, attacker)).status).toBe(401);
      for (const waitSec of [60, 120, 240, 480]) {
        const refused = await attempt(victim.email, victim.password, attacker);
        expect(refused.status).toBe(429);
        expect(refused.text).toContain('Too many failed sign-in attempts');
        expect(cookieAttributes(refused.headers['set-cookie'], 'session')).toBe('');
        expect(Number(refused.headers['retry-after'])).toBe(waitSec);
        clock.advance(waitSec - 1);
        expect((await attempt(victim.email, victim.password, attacker)).status).toBe(429);
        clock.advance(1);
        expect((await attempt(victim.email, `again-${waitSec}`, attacker)).status).toBe(401);
      }
      expect(Number((await attempt(victim.email, victim.password, attacker)).headers['retry-after'])).toBe(15 * 60);
      // Meanwhile the owner, from anywhere else, signs in.
      expect((await attempt(victim.email, victim.password)).status).toBe(303);
      clock.advance(15 * 60);
      expect((await attempt(victim.email, victim.password, attacker)).status).toBe(303);
    } finally {
      clock.set(start);
    }
  });

  it('limits failures per client address: 20 in 15 minutes', async () => {
    const ip = address();
    for (let i = 0; i < 20; i++) expect((await attempt(`guess${i}@example.test`, 'x', ip)).status).toBe(401);
    expect((await attempt(user.email, user.password, ip)).status).toBe(429);
    expect((await attempt(user.email, user.password)).status).toBe(303);
  });

  it('shows who is signed in, follows next when signed in, and signs out with the CSRF token', async () => {
    const cookie = await signIn(t.http, user);
    const page = await t.http.get('/login').set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain(user.email);
    const forward = await t.http.get('/login?next=%2Fapp%2Fsettings').set('Cookie', cookie);
    expect(forward.status).toBe(303);
    expect(forward.headers.location).toBe('/app/settings');

    const csrf = hiddenFields(page.text).csrf ?? '';
    const forged = await t.http.post('/logout').set('Cookie', cookie).type('form').send({ csrf: 'nope' });
    expect(forged.status).toBe(403);
    expect((await t.http.get('/login').set('Cookie', cookie).then((r) => r.text)).includes(user.email)).toBe(true);

    const out = await t.http.post('/logout').set('Cookie', cookie).type('form').send({ csrf });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(cookieAttributes(out.headers['set-cookie'], 'session')).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
    const after = await t.http.get('/login').set('Cookie', cookie);
    expect(after.text).toContain('id="login"');
    const value = cookie.match(/session=([^;]+)/)?.[1];
    expect(await resolveSession(t.em(), value, clock.now())).toBeNull();
  });

  it('ends sessions after 7 days', async () => {
    const cookie = await signIn(t.http, user);
    const value = cookie.match(/session=([^;]+)/)?.[1];
    expect(await resolveSession(t.em(), value, new Date(clock.now().getTime() + 6 * 24 * 3600 * 1000))).not.toBeNull();
    expect(await resolveSession(t.em(), value, new Date(clock.now().getTime() + 7 * 24 * 3600 * 1000 + 1000))).toBeNull();
  });
});

describe('sign-in cookies on an https SITE_URL', () => {
  let t: TestApp;
  let user: PasswordUser;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_URL: 'https://sched.example.test' } });
    user = await createPasswordUser(t.em());
  });
  afterAll(() => t.close());

  it('marks the cookies Secure and uses the __Host- prefix', async () => {
    const form = await t.http.get('/login');
    const csrfCookie = cookieAttributes(form.headers['set-cookie'], '__Host-login_csrf');
    expect(csrfCookie).toMatch(/Secure/);
    const res = await t.http
      .post('/login')
      .set('Cookie', mergeCookies('', form.headers['set-cookie']))
      .type('form')
      .send({ ...hiddenFields(form.text, 'login'), email: user.email, password: user.password });
    expect(res.status).toBe(303);
    const session = cookieAttributes(res.headers['set-cookie'], '__Host-session');
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Path=\//);
    expect(session).not.toMatch(/Domain=/);
  });
});
