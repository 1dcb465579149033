import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import { loadEnv } from '../../src/config/env.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { databaseUrl } from '../helpers/database-url.ts';
import { bearer, uniqueEmail } from '../helpers/factories.ts';
import { hiddenFields, mergeCookies } from '../oauth/support.ts';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run cli --silent -- …` as an operator runs it, against the given database. */
function cli(url: string, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', 'cli', '--silent', '--', ...args],
      { cwd: process.cwd(), env: { ...process.env, DATABASE_URL: url } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function admin<T>(work: (client: pg.Client) => Promise<T>, url = inject('serverUrl')): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('npm run cli', () => {
  let database: TestDatabase;
  let orm: Orm;
  let app: App;
  let http: ReturnType<typeof supertest>;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 3 });
    app = await buildApp({
      env: loadEnv({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: database.url }),
      orm,
      databaseUrl: database.url,
      logger: false,
    });
    await app.fastify.ready();
    http = supertest(app.fastify.server);
  });
  afterAll(async () => {
    await app?.close();
    await orm?.close();
    await database?.drop();
  });

  it('user create prints the new user as JSON and nothing else', async () => {
    const email = uniqueEmail('cli');
    const res = await cli(
      database.url,
      'user',
      'create',
      '--email',
      email,
      '--plan',
      'team',
      '--name',
      'Carla CLI',
      '--timezone',
      'Europe/Berlin',
      '--password',
      'correct horse battery',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.endsWith('\n')).toBe(true);
    expect(res.stdout.trim().split('\n')).toHaveLength(1);
    const user = JSON.parse(res.stdout);
    expect(user).toEqual({
      id: expect.any(String),
      email,
      name: 'Carla CLI',
      slug: expect.stringMatching(/^carla-cli-/),
      timezone: 'Europe/Berlin',
      plan: 'team',
    });
    const row = await admin(
      async (client) => (await client.query('select plan, password_hash from app_user where id = $1', [user.id])).rows[0],
      database.url,
    );
    expect(row.plan).toBe('team');
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain('correct horse');
  });

  it('user create defaults the name to null and the time zone to UTC', async () => {
    const res = await cli(database.url, 'user', 'create', '--email', uniqueEmail('cli'), '--plan', 'free');
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ name: null, timezone: 'UTC', plan: 'free' });
  });

  it('user create refuses an e-mail already taken, in any letter case, with exit code 1', async () => {
    const email = uniqueEmail('cli');
    expect((await cli(database.url, 'user', 'create', '--email', email, '--plan', 'pro')).code).toBe(0);
    const res = await cli(database.url, 'user', 'create', '--email', email.toUpperCase(), '--plan', 'pro');
    expect(res).toMatchObject({ code: 1, stdout: '' });
    expect(res.stderr).toContain('already exists');
  });

  // Usage errors stop before the database is opened; they run side by side.
  it.concurrent.for<[string[], string]>([
    [['user', 'create', '--plan', 'team'], '--email is required'],
    [['user', 'create', '--email', 'x@example.test'], '--plan is required'],
    [['user', 'create', '--email', 'x@example.test', '--plan', 'gold'], '--plan must be one of'],
    [['user', 'create', '--email', 'not-an-email', '--plan', 'team'], 'not an e-mail address'],
    [['user', 'create', '--email', 'x@example.test', '--plan', 'team', '--timezone', 'Mars/Base'], '--timezone'],
    [['user', 'create', '--email', 'x@example.test', '--plan', 'team', '--colour', 'red'], "Unknown option '--colour'"],
    [['user', 'create', '--email', 'x@example.test', '--plan', 'team', '--token', 'pat_x'], '--token does not apply'],
    [['pat', 'create', '--email', 'x@example.test'], '--scopes is required'],
    [['pat', 'create', '--email', 'x@example.test', '--scopes', 'read:profile,fly:planes'], 'unknown scope(s): fly:planes'],
    [['pat', 'revoke'], '--token is required'],
    [['pat', 'revoke', '--token', 'ghp_abc'], 'personal access token'],
    [['user', 'delete'], 'unknown command: user delete'],
    [['mail', 'show'], '--id is required'],
    [['mail', 'list', '--id', 'm1'], '--id does not apply'],
    [['mail', 'list', '--email', 'nope'], 'not an e-mail address'],
    [[], 'no command given'],
  ])('refuses %j with exit code 2 and the usage', async ([args, message], { expect }) => {
    const res = await cli(database.url, ...args);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain(message);
    expect(res.stderr).toContain('usage:');
  });

  it('pat create prints the raw token alone, and the token works on the API with exactly its scopes', async () => {
    const email = uniqueEmail('cli');
    const user = JSON.parse((await cli(database.url, 'user', 'create', '--email', email, '--plan', 'team')).stdout);

    const all = await cli(database.url, 'pat', 'create', '--email', email.toUpperCase(), '--scopes', 'all', '--name', 'laptop');
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^pat_[A-Za-z0-9_-]+\n$/);
    const token = all.stdout.trim();
    const me = await http.get('/api/v2/me').set(...bearer(token));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id, email });
    const stored = await admin(
      async (client) =>
        (await client.query('select name, scopes from personal_access_token where user_id = $1', [user.id])).rows,
      database.url,
    );
    expect(stored).toEqual([{ name: 'laptop', scopes: expect.arrayContaining(['read:profile', 'write:bookings', 'read:contacts']) }]);

    const narrow = await cli(database.url, 'pat', 'create', '--email', email, '--scopes', 'read:bookings,read:leads');
    expect(narrow.code, narrow.stderr).toBe(0);
    const forbidden = await http.get('/api/v2/me').set(...bearer(narrow.stdout.trim()));
    expect(forbidden.status).toBe(403);
  }, 60_000);

  it('pat create for an unknown e-mail fails with exit code 1', async () => {
    const res = await cli(database.url, 'pat', 'create', '--email', uniqueEmail('nobody'), '--scopes', 'all');
    expect(res).toMatchObject({ code: 1, stdout: '' });
    expect(res.stderr).toContain('no user with e-mail');
  });

  it('pat revoke makes the token fail at once; revoking it again fails with exit code 1', async () => {
    const email = uniqueEmail('cli');
    await cli(database.url, 'user', 'create', '--email', email, '--plan', 'team');
    const token = (await cli(database.url, 'pat', 'create', '--email', email, '--scopes', 'read:profile')).stdout.trim();
    expect((await http.get('/api/v2/me').set(...bearer(token))).status).toBe(200);

    const revoked = await cli(database.url, 'pat', 'revoke', '--token', token);
    expect(revoked).toMatchObject({ code: 0, stdout: '' });
    const res = await http.get('/api/v2/me').set(...bearer(token));
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');

    const again = await cli(database.url, 'pat', 'revoke', '--token', token);
    expect(again).toMatchObject({ code: 1, stdout: '' });
  }, 60_000);

  it('mail list and mail show read the password reset mail a service without SMTP keeps; its link works until used', async () => {
    const email = uniqueEmail('cli');
    await cli(database.url, 'user', 'create', '--email', email, '--plan', 'team');
    const form = await http.get('/login/forgot');
    const asked = await http
      .post('/login/forgot')
      .set('Cookie', mergeCookies('', form.headers['set-cookie']))
      .type('form')
      .send({ ...hiddenFields(form.text, 'forgot'), email });
    expect(asked.status).toBe(200);
    let listed: CliResult | undefined;
    for (let i = 0; i < 50 && !listed?.stdout.includes('skipped'); i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      listed = await cli(database.url, 'mail', 'list', '--email', email.toUpperCase());
    }
    expect(listed!.code, listed!.stderr).toBe(0);
    const [line, ...others] = listed!.stdout.trim().split('\n');
    expect(others).toEqual([]);
    const [id, createdAt, kind, status, recipient] = line!.split('  ');
    expect({ kind, status, recipient }).toEqual({ kind: 'password_reset', status: 'skipped', recipient: email });
    expect(Number.isNaN(Date.parse(createdAt!))).toBe(false);

    const shown = await cli(database.url, 'mail', 'show', '--id', id!);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`To: ${email}`);
    expect(shown.stdout).toContain('Subject: Choose a new password');
    expect(shown.stdout).toContain('Status: skipped (kept, not sent: no SMTP server is configured (SMTP_URL))');
    const link = /Choose a new password: (http\S+)/.exec(shown.stdout)?.[1];
    expect(link).toMatch(/\/login\/reset\/pwr_[a-z2-7]{59}$/);
    const page = await http.get(new URL(link!).pathname);
    expect(page.status).toBe(200);
    const reset = await http
      .post('/login/reset')
      .set('Cookie', mergeCookies('', page.headers['set-cookie']))
      .type('form')
      .send({ ...hiddenFields(page.text, 'reset'), password: 'quiet meadow lantern 9' });
    expect(reset.status).toBe(303);
    // Used: the link is no longer kept anywhere, and the CLI says so.
    const after = await cli(database.url, 'mail', 'show', '--id', id!);
    expect(after.stdout).not.toContain(link!);
    expect(after.stdout).toContain('pwr_…(not kept: sent, used or expired)');
    expect((await cli(database.url, 'mail', 'show', '--id', 'nope')).code).toBe(1);
  }, 60_000);

  it('applies pending migrations first, so it works on an empty database', async () => {
    const name = `test_cli_blank_${randomBytes(4).toString('hex')}`;
    await admin((client) => client.query(`create database ${name}`));
    try {
      const url = databaseUrl(inject('serverUrl'), name);
      const res = await cli(url, 'user', 'create', '--email', uniqueEmail('cli'), '--plan', 'team');
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).plan).toBe('team');
      const applied = await admin(
        async (client) => (await client.query('select count(*)::int as n from mikro_orm_migrations')).rows[0].n,
        url,
      );
      expect(applied).toBeGreaterThan(0);
    } finally {
      await admin((client) => client.query(`drop database if exists ${name} with (force)`));
    }
  });
});
