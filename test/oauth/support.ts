import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type supertest from 'supertest';
import { expect } from 'vitest';
import { findFreePort } from '../../src/db/embedded-postgres.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createOAuthClient } from '../../src/oauth/clients.ts';
import { s256Challenge } from '../../src/oauth/pkce.ts';
import { createUser } from '../../src/modules/users/users.service.ts';
import type { Plan } from '../../src/identity/user.entity.ts';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.ts';
import { uniqueEmail } from '../helpers/factories.ts';

type Http = ReturnType<typeof supertest>;

/** A clock the test can move forward (codes and tokens expire by it). */
export function movableClock(start = new Date()): Clock & { advance(seconds: number): void; set(at: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance: (seconds) => {
      current += seconds * 1000;
    },
    set: (at) => {
      current = at.getTime();
    },
  };
}

/** The app listening on 127.0.0.1 with SITE_URL set to its real address, for clients that use fetch. */
export async function startListeningApp(options: TestAppOptions = {}): Promise<TestApp & { siteUrl: string }> {
  const port = await findFreePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ ...options, env: { ...options.env, SITE_URL: siteUrl, PORT: String(port) } });
  await t.app.fastify.listen({ port, host: '127.0.0.1' });
  return { ...t, siteUrl };
}

export interface PasswordUser {
  id: string;
  email: string;
  password: string;
  name: string;
  timezone: string;
}

export async function createPasswordUser(
  em: EntityManager,
  options: { plan?: Plan; name?: string; timezone?: string } = {},
): Promise<PasswordUser> {
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  const name = options.name ?? 'Olivia Auth';
  const timezone = options.timezone ?? 'Europe/Paris';
  const user = await createUser(em, { email: uniqueEmail('oauth'), plan: options.plan ?? 'team', timezone, name, password });
  return { id: user.id, email: user.email, password, name, timezone };
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256Challenge(verifier) };
}

/** The hidden inputs of the form with this id (or of the first form). */
export function hiddenFields(html: string, formId?: string): Record<string, string> {
  let form = html;
  if (formId) {
    const start = html.indexOf(`id="${formId}"`);
    expect(start, `form #${formId} present`).toBeGreaterThanOrEqual(0);
    form = html.slice(start, html.indexOf('</form>', start));
  }
  const fields: Record<string, string> = {};
  for (const match of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[decodeEntities(match[1] ?? '')] = decodeEntities(match[2] ?? '');
  }
  return fields;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** `name=value` pairs of the Set-Cookie headers, merged into one Cookie header with the jar so far. */
export function mergeCookies(jar: string, setCookie: string | string[] | undefined): string {
  const cookies = new Map<string, string>();
  for (const pair of jar.split('; ').filter(Boolean)) {
    const [name, ...rest] = pair.split('=');
    cookies.set(name ?? '', rest.join('='));
  }
  for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
    const [pair = ''] = line.split(';');
    const [name, ...rest] = pair.split('=');
    const value = rest.join('=');
    if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name ?? '');
    else cookies.set(name ?? '', value);
  }
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** Signs in through the real /login form; returns the Cookie header of the new session. */
export async function signIn(http: Http, user: { email: string; password: string }, next = '/login'): Promise<string> {
  const form = await http.get(`/login?next=${encodeURIComponent(next)}`);
  expect(form.status).toBe(200);
  let jar = mergeCookies('', form.headers['set-cookie']);
  const fields = hiddenFields(form.text, 'login');
  const res = await http
    .post('/login')
    .set('Cookie', jar)
    .type('form')
    .send({ ...fields, email: user.email, password: user.password });
  expect(res.status, res.text).toBe(303);
  jar = mergeCookies(jar, res.headers['set-cookie']);
  expect(jar).toMatch(/(^|; )session=ses_/);
  return jar;
}

/** GET /oauth/authorize with the session; expects the consent page and returns its form fields. */
export async function openConsent(
  http: Http,
  cookie: string,
  query: Record<string, string> | string,
): Promise<{ fields: Record<string, string>; html: string }> {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  const res = await http.get(`/oauth/authorize?${search}`).set('Cookie', cookie);
  expect(res.status, res.text).toBe(200);
  return { fields: hiddenFields(res.text, 'consent'), html: res.text };
}

/** Submits the consent form as the browser would; returns the redirect's Location. */
export async function submitConsent(
  http: Http,
  cookie: string,
  fields: Record<string, string>,
  decision: 'approve' | 'deny',
): Promise<URL> {
  const res = await http
    .post('/oauth/authorize')
    .set('Cookie', cookie)
    .type('form')
    .send({ ...fields, decision });
  expect(res.status, res.text).toBe(303);
  return new URL(res.headers.location as string);
}

/** The whole browser part: consent page, then approve (or deny); returns where the browser is sent. */
export async function authorizeAs(
  http: Http,
  cookie: string,
  query: Record<string, string> | string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const { fields } = await openConsent(http, cookie, query);
  return submitConsent(http, cookie, fields, decision);
}

export const REDIRECT_URI = 'https://app.example.test/callback';

export interface TestClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

/** A developer-created app (public unless told otherwise), owned by `ownerUserId`; created now by the wall clock (its creation time only orders listings). */
export async function createClient(
  em: EntityManager,
  ownerUserId: string,
  options: { type?: 'public' | 'confidential'; redirectUris?: string[]; name?: string } = {},
): Promise<TestClient> {
  const redirectUris = options.redirectUris ?? [REDIRECT_URI];
  const created = await createOAuthClient(em, {
    ownerUserId,
    name: options.name ?? 'Acme Calendar Sync',
    redirectUris,
    type: options.type ?? 'public',
  }, new Date());
  return { clientId: created.clientId, clientSecret: created.clientSecret, redirectUri: redirectUris[0] ?? '' };
}

/** A code for `client` via the real consent flow, with PKCE; returns what the token request needs. */
export async function obtainCode(
  http: Http,
  cookie: string,
  client: TestClient,
  options: { scope?: string; resource?: string; state?: string; pkce?: boolean; redirectUri?: string } = {},
): Promise<{ code: string; verifier?: string; location: URL }> {
  const pkce = options.pkce === false ? undefined : pkcePair();
  const query: Record<string, string> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: options.redirectUri ?? client.redirectUri,
    scope: options.scope ?? 'read:profile read:bookings',
    state: options.state ?? randomBytes(8).toString('hex'),
  };
  if (pkce) Object.assign(query, { code_challenge: pkce.challenge, code_challenge_method: 'S256' });
  if (options.resource) query.resource = options.resource;
  const location = await authorizeAs(http, cookie, query);
  const code = location.searchParams.get('code');
  expect(code, location.toString()).toMatch(/^oac_/);
  return { code: code ?? '', verifier: pkce?.verifier, location };
}

/** POST /oauth/token, form-encoded. */
export function tokenRequest(http: Http, form: Record<string, string | undefined>, basic?: [string, string]) {
  const body = Object.fromEntries(Object.entries(form).filter(([, value]) => value !== undefined)) as Record<
    string,
    string
  >;
  const req = http.post('/oauth/token').type('form');
  if (basic) req.auth(basic[0], basic[1]);
  return req.send(body);
}

export async function redeem(
  http: Http,
  client: TestClient,
  code: { code: string; verifier?: string },
  extra: Record<string, string> = {},
) {
  return tokenRequest(http, {
    grant_type: 'authorization_code',
    code: code.code,
    code_verifier: code.verifier,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    ...extra,
  });
}

/** Signed in, consented, redeemed: a fresh token pair for `client`. */
export async function obtainTokens(
  http: Http,
  cookie: string,
  client: TestClient,
  options: { scope?: string; resource?: string } = {},
): Promise<{ access_token: string; refresh_token: string; scope: string; expires_in: number }> {
  const code = await obtainCode(http, cookie, client, options);
  const res = await redeem(http, client, code, options.resource ? { resource: options.resource } : {});
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** RFC 6749 §5.2: error and error_description only use %x20-21 / %x23-5B / %x5D-7E. */
export function expectOAuthErrorCharset(body: { error?: unknown; error_description?: unknown }): void {
  expect(String(body.error)).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
  if (body.error_description !== undefined) {
    expect(String(body.error_description)).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
  }
}
