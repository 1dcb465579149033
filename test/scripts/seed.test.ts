import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDatabase } from '../helpers/app.ts';
import { bearer } from '../helpers/factories.ts';
import { signIn } from '../oauth/support.ts';

const run = promisify(execFile);

interface SeedDoc {
  users: {
    id: string;
    email: string;
    password: string;
    plan: string;
    timezone: string;
    pat: string;
    eventTypes: { id: string; slug: string; name: string; active: boolean; durationsMin: number[] }[];
  }[];
}

describe('npm run seed -- --json', () => {
  let database: TestDatabase;
  let t: TestApp;
  let first: SeedDoc;
  let second: SeedDoc;

  beforeAll(async () => {
    database = await createTestDatabase();
    const seed = async () => {
      const { stdout } = await run('npm', ['run', '--silent', 'seed', '--', '--json'], {
        env: { ...process.env, DATABASE_URL: database.url },
      });
      return JSON.parse(stdout) as SeedDoc;
    };
    first = await seed();
    second = await seed();
    t = await startTestApp({ database });
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  it('prints one JSON document with four users of the contracted plans and zones', () => {
    expect(first.users.map((u) => [u.plan, u.timezone])).toEqual([
      ['team', 'America/New_York'],
      ['team', 'Europe/Berlin'],
      ['pro', 'Asia/Kolkata'],
      ['free', 'Africa/Lagos'],
    ]);
    for (const user of first.users) {
      expect(user.pat).toMatch(/^pat_/);
      expect(user.password.length).toBeGreaterThanOrEqual(12);
    }
  });

  it('uses new e-mails on every run', () => {
    const emails = new Set(first.users.map((u) => u.email));
    expect(second.users.some((u) => emails.has(u.email))).toBe(false);
  });

  it('gives each Team user active and inactive event types, past and future bookings, leads and a merged contact', async () => {
    for (const user of first.users.slice(0, 2)) {
      expect(user.eventTypes.filter((e) => e.active).length).toBeGreaterThanOrEqual(2);
      expect(user.eventTypes.filter((e) => !e.active).length).toBeGreaterThanOrEqual(1);

      const me = await t.http.get('/api/v2/me').set(...bearer(user.pat));
      expect(me.body.timezone).toBe(user.timezone);

      const bookingsRes = await t.http.get('/api/v2/bookings?limit=100').set(...bearer(user.pat));
      expect(bookingsRes.status, JSON.stringify(bookingsRes.body)).toBe(200);
      const bookings = bookingsRes.body.data as {
        startAt: string;
        status: string;
      }[];
      const now = Date.now();
      const kinds = new Set(bookings.map((b) => `${Date.parse(b.startAt) < now ? 'past' : 'future'}-${b.status}`));
      expect([...kinds].sort()).toEqual(['future-active', 'future-canceled', 'past-active', 'past-canceled']);

      const leads = (await t.http.get('/api/v2/leads?limit=100').set(...bearer(user.pat))).body.data as {
        status: string;
        booked: boolean;
      }[];
      expect(new Set(leads.map((l) => l.status))).toEqual(new Set(['new', 'contacted', 'qualified', 'lost']));
      expect(leads.some((l) => l.booked)).toBe(true);

      const contacts = (await t.http.get('/api/v2/contacts?limit=200').set(...bearer(user.pat))).body.data as {
        email: string;
        kind: string;
      }[];
      const emails = contacts.map((c) => c.email.toLowerCase());
      expect(new Set(emails).size).toBe(emails.length);
      const dana = contacts.find((c) => c.email.toLowerCase().startsWith('dana.'));
      expect(dana?.kind).toBe('client');
    }
  });

  it('gives the Pro and Free users tokens that the API refuses for their plan', async () => {
    for (const user of first.users.slice(2)) {
      const res = await t.http.get('/api/v2/me').set(...bearer(user.pat));
      expect(res.status).toBe(401);
      expect(res.body.message).toMatch(/Team plan/);
    }
  });

  it('gives every Team user a Monday-Friday 09:00-17:00 schedule', async () => {
    for (const user of first.users.slice(0, 2)) {
      const res = await t.http.get('/api/v2/schedule').set(...bearer(user.pat));
      expect(res.body.weekly.friday).toEqual([{ start: '09:00', end: '17:00' }]);
      expect(res.body.weekly.sunday).toEqual([]);
    }
  });
});

describe('npm run seed without --json', () => {
  let database: TestDatabase;
  let t: TestApp;
  let summary: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { stdout } = await run('npm', ['run', '--silent', 'seed'], {
      env: { ...process.env, DATABASE_URL: database.url, SITE_URL: 'http://demo.example.test' },
    });
    summary = stdout;
    t = await startTestApp({ database });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('prints a summary a person can use: logins that sign in, tokens, and booking pages that exist', async () => {
    expect(() => JSON.parse(summary)).toThrow();
    expect(summary).toContain('http://demo.example.test/login?next=%2Fapp');
    const logins = [...summary.matchAll(/^(\S+@example\.com) {2}\((\w+) plan, ([\w/]+)\)\n {2}password {8}(\S+)\n {2}API token {7}(pat_\S+)/gm)];
    expect(logins.map((m) => m[2])).toEqual(['team', 'team', 'pro', 'free']);

    const [, email, , , password, pat] = logins[0]!;
    await signIn(t.http, { email: email!, password: password! }, '/app');
    const me = await t.http.get('/api/v2/me').set(...bearer(pat!));
    expect(me.body.email).toBe(email);

    const pages = [...summary.matchAll(/booking page {4}http:\/\/demo\.example\.test(\/book\/\S+)/g)].map((m) => m[1]!);
    expect(pages).toHaveLength(4); // two active event types for each Team user
    for (const page of pages) {
      const [, , userSlug, eventTypeSlug] = page.split('/');
      const res = await t.http.get('/trpc/publicBooking.eventType').query({ input: JSON.stringify({ json: { userSlug, eventTypeSlug } }) });
      expect(res.status, page).toBe(200);
    }
  });
});
