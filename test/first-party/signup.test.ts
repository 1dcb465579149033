import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { createUser } from '../../src/modules/users/users.service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { uniqueEmail } from '../helpers/factories.ts';
import { hiddenFields, mergeCookies } from '../oauth/support.ts';

type Http = TestApp['http'];

async function openForm(http: Http): Promise<{ jar: string; fields: Record<string, string> }> {
  const form = await http.get('/signup');
  expect(form.status).toBe(200);
  return { jar: mergeCookies('', form.headers['set-cookie']), fields: hiddenFields(form.text, 'signup') };
}

async function signUp(http: Http, body: Record<string, string>) {
  const { jar, fields } = await openForm(http);
  return http.post('/signup').set('Cookie', jar).type('form').send({ ...fields, ...body });
}

const account = (email = uniqueEmail('signup')) => ({
  name: 'Nora New',
  email,
  password: 'correct horse battery',
  timezone: 'Europe/Lisbon',
});

describe('sign-up at /signup (SIGNUP_PLAN default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it('creates a Team account in the chosen time zone, signs it in and sends it to /app', async () => {
    const body = account();
    const res = await signUp(t.http, body);
    expect(res.status, res.text).toBe(303);
    expect(res.headers.location).toBe('/app');
    const jar = mergeCookies('', res.headers['set-cookie']);
    expect(jar).toMatch(/(^|; )session=ses_/);
    const user = await t.em().findOneOrFail(UserEntity, { email: body.email });
    expect(user).toMatchObject({ name: 'Nora New', timezone: 'Europe/Lisbon', plan: 'team' });
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    const session = await t.http.get('/trpc/session.current').set('Cookie', jar);
    expect(session.body.result.data.json.user.email).toBe(body.email);
  });

  it('offers the form with a CSRF token, the browser zone script allowed by hash, and no framing', async () => {
    const res = await t.http.get('/signup');
    expect(res.headers['content-security-policy']).toMatch(/script-src 'sha256-[^']+'/);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.text).toContain('<option selected>UTC</option>');
    expect(res.text).toContain('New accounts get the Team plan');
    expect((await t.http.get('/login')).text).toContain('href="/signup"');
  });

  it('refuses a form without its CSRF cookie (403) and creates nothing', async () => {
    const { fields } = await openForm(t.http);
    const body = account();
    const res = await t.http.post('/signup').type('form').send({ ...fields, ...body });
    expect(res.status).toBe(403);
    expect(res.text).toContain('expired');
    expect(await t.em().count(UserEntity, { email: body.email })).toBe(0);
  });

  it('says an e-mail address is taken, case-insensitively, without signing in or changing that account', async () => {
    const body = account();
    expect((await signUp(t.http, body)).status).toBe(303);
    const again = await signUp(t.http, { ...body, email: body.email.toUpperCase(), password: 'another password here' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('An account with this e-mail address already exists');
    expect(mergeCookies('', again.headers['set-cookie'])).not.toMatch(/session=/);
    expect(await t.em().count(UserEntity, { email: { $ilike: body.email } })).toBe(1);
  });

  it('answers bad input with 400 and the form again, keeping what was typed but the password', async () => {
    const short = await signUp(t.http, { ...account(), password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 10 characters');
    expect(short.text).toContain('value="Nora New"');
    expect(short.text).not.toContain('value="short"');
    expect((await signUp(t.http, { ...account(), timezone: 'Mars/Olympus' })).status).toBe(400);
    expect((await signUp(t.http, { ...account(), email: 'not-an-address' })).status).toBe(400);
    expect((await signUp(t.http, { ...account(), name: '   ' })).status).toBe(400);
    expect((await signUp(t.http, { ...account(), name: 'Nul\u0000Byte' })).status).toBe(400);
  });

  it.each(['aaaaaaaaaa', 'password12', '1234567890', ' '.repeat(12)])(
    'refuses the guessable password %j with 400, saying why, and creates nothing',
    async (password) => {
      const body = account();
      const res = await signUp(t.http, { ...body, password });
      expect(res.status).toBe(400);
      expect(res.text).toContain('Choose another password.');
      expect(res.text).toMatch(/repeated|commonly used|frequently used/i);
      expect(await t.em().count(UserEntity, { email: body.email })).toBe(0);
    },
  );

  it("refuses a password made of the account's own name, and says so in the account service's error shape", async () => {
    const body = { ...account(), name: 'Wiremu Tawhiao', password: 'wiremu tawhiao' };
    expect((await signUp(t.http, body)).status).toBe(400);
    const refused = createUser(t.em(), { email: uniqueEmail('weak'), plan: 'team', timezone: 'UTC', password: 'password12' });
    await expect(refused).rejects.toMatchObject({
      code: 'invalid_request',
      details: [{ code: 'custom', path: ['password'], message: expect.stringContaining('commonly used') }],
    });
  });

  it('folds a fullwidth e-mail address with NFKC before storing it', async () => {
    const email = uniqueEmail('fold');
    const res = await signUp(t.http, { ...account(), email: email.replace('@', '\uFF20') });
    expect(res.status, res.text).toBe(303);
    expect(await t.em().count(UserEntity, { email })).toBe(1);
  });

  it('serves a landing page at / that links sign-in, sign-up, the API reference and MCP', async () => {
    const res = await t.http.get('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    for (const link of ['href="/login?next=%2Fapp"', 'href="/signup"', 'href="/api/docs"', '/mcp']) {
      expect(res.text).toContain(link);
    }
  });
});

describe('sign-up with SIGNUP_PLAN', () => {
  it('off: /signup is 404 with a page saying so, and neither / nor /login links to it', async () => {
    const t = await startTestApp({ env: { SIGNUP_PLAN: 'off' } });
    try {
      const page = await t.http.get('/signup');
      expect(page.status).toBe(404);
      expect(page.text).toContain('Sign-up is turned off');
      const post = await t.http.post('/signup').type('form').send(account());
      expect(post.status).toBe(404);
      expect((await t.http.get('/')).text).not.toContain('/signup');
      expect((await t.http.get('/login')).text).not.toContain('/signup');
    } finally {
      await t.close();
    }
  });

  it('free: new accounts get the Free plan', async () => {
    const t = await startTestApp({ env: { SIGNUP_PLAN: 'free' } });
    try {
      const body = account();
      expect((await signUp(t.http, body)).status).toBe(303);
      expect((await t.em().findOneOrFail(UserEntity, { email: body.email })).plan).toBe('free');
    } finally {
      await t.close();
    }
  });
});
