import type { EntityManager } from '@mikro-orm/postgresql';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { newId } from '../../lib/ids.ts';
import { generateToken, hashToken, looksLikeToken } from '../../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { LoginAttemptEntity, SessionEntity } from './session.entity.ts';

export const SESSION_PREFIX = 'ses_';
const CSRF_PREFIX = 'csrf_';
/** A session lasts 7 days from sign-in (absolute, not sliding); signing in again starts a new one. */
export const SESSION_TTL_SEC = 7 * 24 * 3600;

/** Failed sign-ins are counted over 15 minutes: 5 per e-mail address, 20 per client address. */
export const LOGIN_FAILURE_WINDOW_SEC = 15 * 60;
export const MAX_LOGIN_FAILURES_PER_EMAIL = 5;
export const MAX_LOGIN_FAILURES_PER_IP = 20;

/** `__Host-` pins the cookie to this origin (Secure, Path=/, no Domain); browsers honour it on https only. */
export function sessionCookieName(siteUrl: string): string {
  return siteUrl.startsWith('https:') ? '__Host-session' : 'session';
}

export interface CookieOptions {
  path: string;
  httpOnly: true;
  sameSite: 'lax';
  secure: boolean;
  maxAge: number;
}

export function sessionCookieOptions(siteUrl: string, maxAgeSec = SESSION_TTL_SEC): CookieOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: siteUrl.startsWith('https:'), maxAge: maxAgeSec };
}

export interface NewSession {
  /** The raw value for the cookie; only its hash is stored. */
  cookieValue: string;
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(em: EntityManager, userId: string, now: Date): Promise<NewSession> {
  const cookieValue = generateToken(SESSION_PREFIX);
  const csrfToken = generateToken(CSRF_PREFIX);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SEC * 1000);
  em.create(SessionEntity, { id: newId(), idHash: hashToken(cookieValue), userId, csrfToken, createdAt: now, expiresAt });
  await em.flush();
  return { cookieValue, csrfToken, expiresAt };
}

export interface ResolvedSession {
  sessionId: string;
  userId: string;
  /** Every state-changing form of this session must echo it (compare with csrfTokenMatches). */
  csrfToken: string;
  expiresAt: Date;
}

/** The live session a cookie value names, or null. For first-party surfaces (sign-in, consent, later tRPC). */
export async function resolveSession(
  em: EntityManager,
  cookieValue: string | undefined,
  now: Date = new Date(),
): Promise<ResolvedSession | null> {
  if (!cookieValue || !looksLikeToken(SESSION_PREFIX, cookieValue)) return null;
  const session = await em.findOne(SessionEntity, { idHash: hashToken(cookieValue) });
  if (!session || session.expiresAt <= now) return null;
  return { sessionId: session.id, userId: session.userId, csrfToken: session.csrfToken, expiresAt: session.expiresAt };
}

/** Signs out: the session row goes, so the cookie is worthless even if a copy survives somewhere. */
export async function deleteSession(em: EntityManager, cookieValue: string | undefined): Promise<void> {
  if (!cookieValue || !looksLikeToken(SESSION_PREFIX, cookieValue)) return;
  await em.execute('delete from user_session where id_hash = ?', [hashToken(cookieValue)], 'run');
}

/** Constant-time comparison of a submitted CSRF token with the expected one. */
export function csrfTokenMatches(expected: string, submitted: string | undefined): boolean {
  if (!submitted) return false;
  const a = new TextEncoder().encode(expected);
  const b = new TextEncoder().encode(submitted);
  return a.length === b.length && constantTimeEqual(a, b);
}

// ---------------------------------------------------------------------------------------------------------
// Password sign-in with a limit on failed attempts
// ---------------------------------------------------------------------------------------------------------

export type SignInResult =
  | { ok: true; userId: string }
  | { ok: false; reason: 'invalid_credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSec: number };

let dummyHash: Promise<string> | undefined;
/** Verifying against a throwaway hash when the e-mail is unknown keeps the response time the same. */
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password-just-for-timing');
  return dummyHash;
}

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

async function retryAfterIfThrottled(
  em: EntityManager,
  column: 'email_key' | 'ip',
  value: string,
  limit: number,
  now: Date,
): Promise<number | null> {
  const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_SEC * 1000);
  const [row] = await em.execute<{ failures: string; oldest: SqlTimestamp | null }[]>(
    `select count(*) as failures, min(attempted_at) as oldest
       from (select attempted_at from login_attempt where ${column} = ? and attempted_at > ?
              order by attempted_at desc limit ?) recent`,
    [value, since, limit],
  );
  if (!row || Number(row.failures) < limit || !row.oldest) return null;
  const freedAt = toDate(row.oldest).getTime() + LOGIN_FAILURE_WINDOW_SEC * 1000;
  return Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
}

/**
 * Checks an e-mail and password. After too many failures for the address or from the client address the
 * password is not even checked until the window frees up, so guessing gets nowhere; a success clears the
 * address's failures.
 */
export async function signInWithPassword(
  em: EntityManager,
  input: { email: string; password: string; ip: string; now: Date },
): Promise<SignInResult> {
  const key = emailKey(input.email);
  const byEmail = await retryAfterIfThrottled(em, 'email_key', key, MAX_LOGIN_FAILURES_PER_EMAIL, input.now);
  const byIp = await retryAfterIfThrottled(em, 'ip', input.ip, MAX_LOGIN_FAILURES_PER_IP, input.now);
  if (byEmail !== null || byIp !== null) {
    return { ok: false, reason: 'throttled', retryAfterSec: Math.max(byEmail ?? 0, byIp ?? 0) };
  }
  const [user] = await em.execute<{ id: string; password_hash: string | null }[]>(
    'select id, password_hash from app_user where lower(email) = ?',
    [key],
  );
  const passwordHash = user?.password_hash ?? null;
  const valid = passwordHash
    ? await verifyPassword(passwordHash, input.password)
    : (await verifyPassword(await dummyPasswordHash(), input.password)) && false;
  if (!user || !valid) {
    em.create(LoginAttemptEntity, { id: newId(), emailKey: key, ip: input.ip, attemptedAt: input.now });
    await em.flush();
    await em.execute('delete from login_attempt where attempted_at < ?', [
      new Date(input.now.getTime() - 24 * 3600 * 1000),
    ], 'run');
    return { ok: false, reason: 'invalid_credentials' };
  }
  await em.execute('delete from login_attempt where email_key = ?', [key], 'run');
  return { ok: true, userId: user.id };
}
