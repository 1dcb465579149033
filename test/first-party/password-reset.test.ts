import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import { changeEmail, changePassword } from '../../src/modules/account/account.service.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, uniqueEmail } from '../helpers/factories.ts';
import { eventually, type MailServer, mailsTo, startMailServer } from '../booking-messages/support.ts';
import { createPasswordUser, hiddenFields, mergeCookies, type PasswordUser, signIn } from '../oauth/support.ts';

type Http = TestApp['http'];

/** The real clock, moved by `shift`: links expire by the app's clock. */
const clock: Clock & { shift: number } = { shift: 0, now: () => new Date(Date.now() + clock.shift) };

/** Asks for a reset link through the form, as a browser does (its CSRF cookie and hidden field). */
async function askForLink(http: Http, email: string, ip = '198.51.100.7') {
  const form = await http.get('/login/forgot');
  expect(form.status).toBe(200);
  return http
    .post('/login/forgot')
    .set('X-Forwarded-For', ip)
    .set('Cookie', mergeCookies('', form.headers['set-cookie']))
    .type('form')
    .send({ ...hiddenFields(form.text, 'forgot'), email });
}

/** Opens the link and submits the new password through its form. */
async function choosePassword(http: Http, link: string, password: string) {
  const page = await http.get(new URL(link).pathname);
  if (page.status !== 200) return page;
  return http
    .post('/login/reset')
    .set('Cookie', mergeCookies('', page.headers['set-cookie']))
    .type('form')
    .send({ ...hiddenFields(page.text, 'reset'), password });
}

/** The reset link in a received mail (its text part). */
function linkIn(text: string | undefined): string {
  const link = /Choose a new password: (\S+)/.exec(text ?? '')?.[1];
  expect(link, 'a reset link in the mail').toBeDefined();
  return link!;
}

const canSignIn = async (http: Http, user: { email: string; password: string }) => {
  const form = await http.get('/login');
  const res = await http
    .post('/login')
    .set('Cookie', mergeCookies('', form.headers['set-cookie']))
    .type('form')
    .send({ ...hiddenFields(form.text, 'login'), email: user.email, password: user.password });
  return res.status === 303;
};

/** The visible words of a page, without its one-time values (CSRF tokens), to compare two answers. */
const words = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/<strong>[^<]*<\/strong>/g, '');

describe('password reset by an e-mailed link, through a real SMTP server', () => {
  let t: TestApp;
  let mail: MailServer;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ clock, env: { SMTP_URL: mail.url, TRUST_PROXY: 'true', MAIL_FROM: 'Scheduling <accounts@scheduling.example.test>' } });
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  it('sign-in links to it; the same answer whether or not an account has the address; only an account gets a mail', async () => {
    expect((await t.http.get('/login')).text).toContain('<a href="/login/forgot">Forgot password?</a>');
    const user = await createPasswordUser(t.em(), { name: 'Nora Reset' });
    const known = await askForLink(t.http, user.email.toUpperCase());
    const unknown = await askForLink(t.http, uniqueEmail('nobody'));
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(words(known.text)).toBe(words(unknown.text));
    expect(known.text).toContain('a link to choose a new password is on its way there');
    expect(known.headers['cache-control']).toBe('no-store');

    const [received] = await eventually(() => (mailsTo(mail, user.email).length > 0 ? mailsTo(mail, user.email) : undefined));
    expect(received!.parsed.subject).toBe('Choose a new password');
    expect(received!.parsed.from?.text).toBe('"Scheduling" <accounts@scheduling.example.test>');
    expect(received!.parsed.text).toContain('Hello Nora Reset');
    expect(received!.parsed.html).toMatch(/<!doctype html>/i);
    const link = linkIn(received!.parsed.text);
    expect(link).toMatch(/^http:\/\/localhost:3000\/login\/reset\/pwr_[a-z2-7]{59}$/);
    // Stored hashed only; the mail's sealed copy of the link went once the mail was sent, with the server's reply.
    const token = link.split('/').at(-1)!;
    const dump = JSON.stringify([await t.em().execute('select * from password_reset_token'), await t.em().execute('select * from account_message')]);
    expect(dump).not.toContain(token);
    const [row] = await t.em().execute<{ token_hash: string }[]>('select token_hash from password_reset_token where user_id = ?', [user.id]);
    expect(row!.token_hash).toBe(hashToken(token));
    const [message] = await t.em().execute<{ status: string; sealed_link: string | null; server_reply: string }[]>(
      'select status, sealed_link, server_reply from account_message where user_id = ?',
      [user.id],
    );
    expect(message).toMatchObject({ status: 'sent', sealed_link: null });
    expect(message!.server_reply).toBe(`250 2.0.0 Ok: queued as ${received!.queueId}`);
    // Nothing was written for the unknown address.
    expect(mail.received.filter((one) => one.to.some((to) => to.startsWith('nobody.')))).toEqual([]);
  });

  it('the link sets a password by the account settings’ rule, ends every session but keeps tokens, and works once', async () => {
    const user = await createPasswordUser(t.em(), { name: 'Olga Owner' });
    const sessionCookie = await signIn(t.http, user);
    const { token: pat } = await createPersonalAccessToken(t.em(), { userId: user.id, name: 'ci', scopes: ['read:profile'] });
    await askForLink(t.http, user.email);
    await askForLink(t.http, user.email);
    const [first, second] = await eventually(() => (mailsTo(mail, user.email).length === 2 ? mailsTo(mail, user.email) : undefined));
    const link = linkIn(second!.parsed.text);

    // A GET only reads (mail scanners open links): the form names the account.
    const page = await t.http.get(new URL(link).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`For <strong>${user.email}</strong>`);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const weak = await choosePassword(t.http, link, 'password12');
    expect(weak.status).toBe(400);
    expect(weak.text).toContain('Choose another password.');
    const short = await choosePassword(t.http, link, 'short');
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 10 characters');
    const same = await choosePassword(t.http, link, user.password);
    expect(same.status).toBe(400);
    expect(same.text).toContain('This is your current password');

    const newPassword = 'lantern orchard velvet 42';
    const done = await choosePassword(t.http, link, newPassword);
    expect(done.status, done.text).toBe(303);
    expect(done.headers.location).toBe('/login?reset=done&next=%2Fapp');
    const signInPage = await t.http.get(done.headers.location!);
    expect(signInPage.text).toContain('Your password is changed, and your account is signed out everywhere.');

    // Every session ended; the API token stays; the new password signs in, the old one does not.
    expect(await t.em().execute('select 1 from user_session where user_id = ?', [user.id])).toEqual([]);
    expect((await t.http.get('/login').set('Cookie', sessionCookie)).text).not.toContain('You are signed in');
    expect((await t.http.get('/api/v2/me').set(...bearer(pat))).status).toBe(200);
    expect(await canSignIn(t.http, { email: user.email, password: newPassword })).toBe(true);
    expect(await canSignIn(t.http, user)).toBe(false);

    // Used once; the older link is void with it.
    expect((await choosePassword(t.http, link, 'another fine passphrase 7')).status).toBe(410);
    const older = await t.http.get(new URL(linkIn(first!.parsed.text)).pathname);
    expect(older.status).toBe(410);
    expect(older.text).toContain('This link no longer works');
    expect(await t.em().execute('select 1 from password_reset_token where user_id = ?', [user.id])).toEqual([]);
  });

  it('a password or e-mail change in the account settings voids the links already sent', async () => {
    for (const change of ['password', 'email'] as const) {
      const user = await createPasswordUser(t.em());
      await askForLink(t.http, user.email);
      const [received] = await eventually(() => (mailsTo(mail, user.email).length > 0 ? mailsTo(mail, user.email) : undefined));
      const link = linkIn(received!.parsed.text);
      expect((await t.http.get(new URL(link).pathname)).status).toBe(200);
      const caller = { userId: user.id, sessionId: 'none', ip: '198.51.100.40', now: new Date() };
      if (change === 'password') await changePassword(t.em(), caller, { currentPassword: user.password, newPassword: 'copper kettle morning 58' });
      else await changeEmail(t.em(), caller, { currentPassword: user.password, email: uniqueEmail('moved') });
      expect((await t.http.get(new URL(link).pathname)).status, change).toBe(410);
    }
  });

  it('a link expires after 60 minutes; junk and unknown tokens are the same dead end', async () => {
    const user = await createPasswordUser(t.em());
    await askForLink(t.http, user.email);
    const [received] = await eventually(() => (mailsTo(mail, user.email).length > 0 ? mailsTo(mail, user.email) : undefined));
    const link = linkIn(received!.parsed.text);
    clock.shift = 61 * 60_000;
    try {
      expect((await t.http.get(new URL(link).pathname)).status).toBe(410);
    } finally {
      clock.shift = 0;
    }
    expect((await t.http.get('/login/reset/pwr_nope')).status).toBe(410);
    expect((await t.http.get(`/login/reset/${'x'.repeat(5000)}`)).status).toBe(410);
    const forged = await t.http.post('/login/reset').type('form').send({ token: 'pwr_nope', password: 'x', csrf: 'y' });
    expect(forged.status).toBe(410);
  });

  it('at most 3 mails an account an hour (more asks get the same answer and send nothing); 20 asks an address an hour', async () => {
    const user = await createPasswordUser(t.em());
    for (let i = 0; i < 4; i++) expect((await askForLink(t.http, user.email, '198.51.100.30')).status).toBe(200);
    await eventually(() => (mailsTo(mail, user.email).length === 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(mailsTo(mail, user.email)).toHaveLength(3);

    const ip = '198.51.100.31';
    for (let i = 0; i < 20; i++) expect((await askForLink(t.http, uniqueEmail('flood'), ip)).status).toBe(200);
    const limited = await askForLink(t.http, uniqueEmail('flood'), ip);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.text).toContain('Too many requests from your network');
  });

  it('refuses a form without its CSRF cookie (403), and an address that is not one (400)', async () => {
    const form = await t.http.get('/login/forgot');
    const withoutCookie = await t.http.post('/login/forgot').type('form').send({ ...hiddenFields(form.text, 'forgot'), email: 'a@example.test' });
    expect(withoutCookie.status).toBe(403);
    const notAnAddress = await askForLink(t.http, 'not an address');
    expect(notAnAddress.status).toBe(400);
    expect(notAnAddress.text).toContain('Enter the e-mail address you sign in with.');
  });
});

describe('password reset without an SMTP server (the embedded default)', () => {
  let t: TestApp;
  const log: string[] = [];

  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        log.push(String(chunk));
        done();
      },
    });
    t = await startTestApp({ logStream, env: { LOG_LEVEL: 'info', SITE_URL: 'https://scheduling.example.test' } });
  });
  afterAll(() => t?.close());

  it('keeps the mail, logs where to read it (never the address or the link), and the forms say so', async () => {
    const user: PasswordUser = await createPasswordUser(t.em());
    const asked = await askForLink(t.http, user.email);
    expect(asked.text).toContain('This service sends no e-mail');
    expect(asked.text).toContain('npm run -s cli -- mail list');
    const [kept] = await eventually(async () => {
      const rows = await t.em().execute<{ id: string; status: string; last_error: string; sealed_link: string | null }[]>(
        'select id, status, last_error, sealed_link from account_message where user_id = ?',
        [user.id],
      );
      return rows[0]?.status === 'skipped' ? rows : undefined;
    });
    expect(kept!.last_error).toBe('kept, not sent: no SMTP server is configured (SMTP_URL)');
    expect(kept!.sealed_link).toMatch(/^v1\./);
    const line = await eventually(() => log.find((entry) => entry.includes('a password reset mail was kept')));
    expect(JSON.parse(line).msg).toBe(`a password reset mail was kept (not sent, no SMTP_URL); read it with: npm run -s cli -- mail show --id ${kept!.id}`);
    const everything = log.join('');
    expect(everything).not.toContain(user.email);
    expect(everything).not.toMatch(/pwr_[a-z2-7]{8}/);
  });
});
