import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { createSession } from '../../src/identity/sessions.ts';
import { generateToken, hashToken } from '../../src/lib/secrets.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { createClient, createPasswordUser, obtainTokens, signIn } from '../oauth/support.ts';

/** The service's budget of failed authentications per client address and minute. */
const BUDGET = 30;

/** A well-formed token of the current form (its checksum holds) that names no token in the database. */
const unknownToken = () => generateToken(Math.random() < 0.5 ? 'pat_' : 'oat_');
/** Random characters in a token's shape: the checksum fails. */
const junkToken = () => `pat_${encodeBase32LowerCaseNoPadding(randomBytes(37)).slice(0, 59)}`;
/** A token as minted before tokens carried a checksum: the prefix and 52 base32 characters. */
const legacyToken = (prefix: string) => `${prefix}${encodeBase32LowerCaseNoPadding(randomBytes(32))}`;

describe('failed authentications are limited per client address', () => {
  let t: TestApp;
  let alice: TestUser;
  let addresses = 0;
  const address = () => `198.51.100.${++addresses}`;

  beforeAll(async () => {
    t = await startTestApp({ env: BEHIND_PROXY });
    alice = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  const rest = (ip: string, token: string) => t.http.get('/api/v2/me').set('X-Forwarded-For', ip).set(...bearer(token));
  const trpc = (ip: string, token: string) => t.http.get('/trpc/users.me').set('X-Forwarded-For', ip).set(...bearer(token));
  const userinfo = (ip: string, token: string) =>
    t.http.get('/oauth/userinfo').set('X-Forwarded-For', ip).set(...bearer(token));
  const mcp = (ip: string, token: string) =>
    t.http
      .post('/mcp')
      .set('X-Forwarded-For', ip)
      .set(...bearer(token))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

  /** Spends the address's budget of failures; the next failure is refused with 429. */
  async function exhaustBudget(ip: string): Promise<void> {
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, i % 2 ? unknownToken() : junkToken())).status).toBe(401);
    expect((await rest(ip, junkToken())).status).toBe(429);
  }

  it(`answers 401 to ${BUDGET} random tokens, then 429 with Retry-After in the spec's shape`, async () => {
    const ip = address();
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, unknownToken())).status).toBe(401);
    const refused = await rest(ip, unknownToken());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ title: 'Too Many Requests', message: expect.stringContaining('failed authentications') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Its further failures stay refused; another address is not affected.
    expect((await rest(ip, junkToken())).status).toBe(429);
    expect((await rest(address(), alice.token)).status).toBe(200);
    expect((await rest(address(), unknownToken())).status).toBe(401);
  });

  it('counts failures on /api/v2, /trpc and /oauth/userinfo together', async () => {
    const ip = address();
    for (let i = 0; i < BUDGET / 3; i++) {
      expect((await rest(ip, unknownToken())).status).toBe(401);
      expect((await trpc(ip, unknownToken())).status).toBe(401);
      expect((await userinfo(ip, unknownToken())).status).toBe(401);
    }
    const trpcRefused = await trpc(ip, unknownToken());
    expect(trpcRefused.status).toBe(429);
    expect(trpcRefused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    const userinfoRefused = await userinfo(ip, unknownToken());
    expect(userinfoRefused.status).toBe(429);
    expect(userinfoRefused.body).toEqual({ error: 'slow_down', error_description: expect.any(String) });
    expect(userinfoRefused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect((await rest(ip, unknownToken())).status).toBe(429);
  });

  it('does not count successful calls nor requests without credentials', async () => {
    const ip = address();
    for (let i = 0; i < BUDGET + 10; i++) expect((await rest(ip, alice.token)).status).toBe(200);
    for (let i = 0; i < BUDGET + 10; i++) expect((await t.http.get('/api/v2/me').set('X-Forwarded-For', ip)).status).toBe(401);
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, unknownToken())).status).toBe(401);
    expect((await rest(ip, alice.token)).status).toBe(200);
    expect((await rest(ip, unknownToken())).status).toBe(429);
  });

  it('serves every valid credential from an address over its budget: PAT, OAuth token, userinfo, /mcp, session', async () => {
    const owner = await createPasswordUser(t.em(), { plan: 'team' });
    const cookie = await signIn(t.http, owner);
    const client = await createClient(t.em(), owner.id);
    const oauth = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const session = await createSession(t.em(), owner.id, new Date());
    const ip = address();
    await exhaustBudget(ip);

    expect((await rest(ip, alice.token)).status).toBe(200);
    expect((await trpc(ip, alice.token)).status).toBe(200);
    expect((await rest(ip, oauth.access_token)).status).toBe(200);
    const claims = await userinfo(ip, oauth.access_token);
    expect(claims.status, claims.text).toBe(200);
    expect(claims.body.sub).toBe(owner.id);
    const tools = await mcp(ip, alice.token);
    expect(tools.status, tools.text).toBe(200);
    expect(tools.text).toContain('"tools"');
    const web = await t.http
      .get('/trpc/users.me')
      .set('X-Forwarded-For', ip)
      .set('Cookie', `session=${session.cookieValue}`)
      .set('x-csrf-token', session.csrfToken);
    expect(web.status, web.text).toBe(200);
    // The address's failures are still refused, on each surface.
    expect((await rest(ip, unknownToken())).status).toBe(429);
    expect((await userinfo(ip, unknownToken())).status).toBe(429);
    expect((await mcp(ip, unknownToken())).status).toBe(429);
  });

  it('refuses a token whose checksum fails without looking it up, counted or blocked alike', async () => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    const tokenLookups = () =>
      query.mock.calls.filter(([config]) => /token_hash/.test(typeof config === 'string' ? config : String((config as { text?: string }).text))).length;
    const ip = address();
    const before = tokenLookups();
    for (let i = 0; i < BUDGET; i++) expect((await rest(ip, junkToken())).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await rest(ip, junkToken())).status).toBe(429);
    expect(tokenLookups()).toBe(before);
    // A token with a valid checksum is looked up (and a valid one served), which shows the counter sees lookups.
    expect((await rest(ip, unknownToken())).status).toBe(429);
    expect(tokenLookups()).toBeGreaterThan(before);
  });

  it('still authenticates tokens minted before tokens carried a checksum', async () => {
    const legacy = legacyToken('pat_');
    const created = await createPersonalAccessToken(t.em(), { userId: alice.id, name: 'old', scopes: ['read:profile'] });
    await t.em().execute('update personal_access_token set token_hash = ? where id = ?', [hashToken(legacy), created.id], 'run');
    const ip = address();
    expect((await rest(ip, legacy)).status).toBe(200);
    await exhaustBudget(ip);
    expect((await rest(ip, legacy)).status).toBe(200);
    expect((await rest(ip, legacyToken('pat_'))).status).toBe(429);
  });
});
