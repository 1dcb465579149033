/**
 * The session store: signing in with a password, the rows behind the session cookie, signing out, and the limits on
 * failed sign-ins. What the web app asks of the current session (who is signed in, its CSRF token) is the
 * current-session module (src/modules/current-session).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { newId } from '../lib/ids.ts';
import { generateToken, hashToken, looksLikeToken } from '../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../lib/sql-values.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { LoginAttemptEntity, SessionEntity } from './session.entity.ts';

export const SESSION_PREFIX = 'ses_';
export const CSRF_PREFIX = 'csrf_';
/** A session lasts 7 days from sign-in (absolute, not sliding); signing in again starts a new one. */
export const SESSION_TTL_SEC = 7 * 24 * 3600;

/**
 * Failed sign-ins, counted so that guessing gets nowhere while nobody can lock an owner out: per address, per
 * (address, e-mail) with growing waits, and per account, where only addresses that have themselves failed are slowed
 * (docs/decisions.md, "Sign-in limits, without a lockout button").
 */
export const LOGIN_FAILURE_WINDOW_SEC = 15 * 60;
export const MAX_LOGIN_FAILURES_PER_IP = 20;
export const FREE_LOGIN_FAILURES_PER_IP_AND_EMAIL = 5;
const PAIR_FAILURE_MEMORY_SEC = 24 * 3600;
const MAX_PAIR_DELAY_SEC = 15 * 60;
export const SPREAD_GUESSING_FAILURES_PER_EMAIL = 10;
/** A device cookie lasts a year; a known client is forgotten after 90 days without a sign-in. */
export const DEVICE_COOKIE_TTL_SEC = 365 * 24 * 3600;
const KNOWN_CLIENT_TTL_SEC = 90 * 24 * 3600;
export const DEVICE_PREFIX = 'dev_';

/** `__Host-` pins the cookie to this origin (Secure, Path=/, no Domain); browsers honour it on https only. */
export function sessionCookieName(siteUrl: string): string {
  return siteUrl.startsWith('https:') ? '__Host-session' : 'session';
}

/** The cookie that marks a browser that has signed in before (see the sign-in limits above). */
export function deviceCookieName(siteUrl: string): string {
  return siteUrl.startsWith('https:') ? '__Host-login_device' : 'login_device';
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
  now: Date,
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
  | { ok: true; userId: string; deviceToken: string }
  | { ok: false; reason: 'invalid_credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSec: number };

export interface SignInAttempt {
  email: string;
  password: string;
  ip: string;
  /** The device cookie's value, when the browser has one. */
  deviceToken?: string;
  now: Date;
}

let dummyHash: Promise<string> | undefined;
/** Verifying against a throwaway hash when the e-mail is unknown keeps the response time the same. */
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password-just-for-timing');
  return dummyHash;
}

export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** Seconds until fewer than `limit` failures matching `where` lie within the window, or null when fewer already do. */
async function retryAfterWindowLimit(
  em: EntityManager,
  where: { sql: string; params: unknown[] },
  limit: number,
  now: Date,
): Promise<number | null> {
  const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_SEC * 1000);
  const [row] = await em.execute<{ failures: string; oldest: SqlTimestamp | null }[]>(
    `select count(*) as failures, min(attempted_at) as oldest
       from (select attempted_at from login_attempt where ${where.sql} and attempted_at > ?
              order by attempted_at desc limit ?) recent`,
    [...where.params, since, limit],
  );
  if (!row || Number(row.failures) < limit || !row.oldest) return null;
  return secondsUntil(toDate(row.oldest).getTime() + LOGIN_FAILURE_WINDOW_SEC * 1000, now);
}

function secondsUntil(timeMs: number, now: Date): number {
  return Math.max(1, Math.ceil((timeMs - now.getTime()) / 1000));
}

/** The growing wait after repeated failures for one e-mail from one address: 1, 2, 4, 8, 15, 15… minutes. */
async function retryAfterPairDelay(em: EntityManager, key: string, ip: string, now: Date): Promise<number | null> {
  const [row] = await em.execute<{ failures: string; latest: SqlTimestamp | null }[]>(
    `select count(*) as failures, max(attempted_at) as latest
       from login_attempt where email_key = ? and ip = ? and attempted_at > ?`,
    [key, ip, new Date(now.getTime() - PAIR_FAILURE_MEMORY_SEC * 1000)],
  );
  const failures = Number(row?.failures ?? 0);
  if (failures < FREE_LOGIN_FAILURES_PER_IP_AND_EMAIL || !row?.latest) return null;
  const delaySec = Math.min(MAX_PAIR_DELAY_SEC, 60 * 2 ** (failures - FREE_LOGIN_FAILURES_PER_IP_AND_EMAIL));
  const allowedAt = toDate(row.latest).getTime() + delaySec * 1000;
  return allowedAt > now.getTime() ? secondsUntil(allowedAt, now) : null;
}

/**
 * Guessing spread over addresses: while the account has had SPREAD_GUESSING_FAILURES_PER_EMAIL failures in the
 * window, an address that failed on it within the window waits until that failure is a window old.
 */
async function retryAfterSpreadGuessing(em: EntityManager, key: string, ip: string, now: Date): Promise<number | null> {
  const [row] = await em.execute<{ failures: string; latest_here: SqlTimestamp | null }[]>(
    `select count(*) as failures, max(attempted_at) filter (where ip = ?) as latest_here
       from login_attempt where email_key = ? and attempted_at > ?`,
    [ip, key, new Date(now.getTime() - LOGIN_FAILURE_WINDOW_SEC * 1000)],
  );
  if (Number(row?.failures ?? 0) < SPREAD_GUESSING_FAILURES_PER_EMAIL || !row?.latest_here) return null;
  return secondsUntil(toDate(row.latest_here).getTime() + LOGIN_FAILURE_WINDOW_SEC * 1000, now);
}

function knownClientKeys(attempt: SignInAttempt): string[] {
  const keys = [`ip:${attempt.ip}`];
  if (attempt.deviceToken && looksLikeToken(DEVICE_PREFIX, attempt.deviceToken)) {
    keys.push(`device:${hashToken(attempt.deviceToken)}`);
  }
  return keys;
}

/** Whether this browser or address has signed in to the account before (recently enough). */
async function isKnownClient(em: EntityManager, userId: string | undefined, attempt: SignInAttempt): Promise<boolean> {
  const [row] = await em.execute<{ known: boolean }[]>(
    `select exists (select 1 from login_known_client
                     where user_id = ? and client_key in (?) and last_success_at > ?) as known`,
    [userId ?? '', knownClientKeys(attempt), new Date(attempt.now.getTime() - KNOWN_CLIENT_TTL_SEC * 1000)],
  );
  return row?.known === true;
}

async function rememberKnownClient(em: EntityManager, userId: string, attempt: SignInAttempt, deviceToken: string): Promise<void> {
  await em.execute(
    `insert into login_known_client (user_id, client_key, last_success_at) values (?, ?, ?), (?, ?, ?)
     on conflict (user_id, client_key) do update set last_success_at = excluded.last_success_at`,
    [userId, `ip:${attempt.ip}`, attempt.now, userId, `device:${hashToken(deviceToken)}`, attempt.now],
    'run',
  );
  await em.execute('delete from login_known_client where user_id = ? and last_success_at < ?', [
    userId,
    new Date(attempt.now.getTime() - KNOWN_CLIENT_TTL_SEC * 1000),
  ], 'run');
}

async function recordFailure(em: EntityManager, key: string, attempt: SignInAttempt): Promise<void> {
  em.create(LoginAttemptEntity, { id: newId(), emailKey: key, ip: attempt.ip, attemptedAt: attempt.now });
  await em.flush();
  await em.execute('delete from login_attempt where attempted_at < ?', [
    new Date(attempt.now.getTime() - PAIR_FAILURE_MEMORY_SEC * 1000),
  ], 'run');
}

/** Seconds until the limits above let this attempt be checked, or null when none holds. */
async function retryAfterFailures(em: EntityManager, key: string, userId: string | undefined, attempt: SignInAttempt): Promise<number | null> {
  const byIp = await retryAfterWindowLimit(em, { sql: 'ip = ?', params: [attempt.ip] }, MAX_LOGIN_FAILURES_PER_IP, attempt.now);
  const byPair = await retryAfterPairDelay(em, key, attempt.ip, attempt.now);
  const byEmail = (await isKnownClient(em, userId, attempt)) ? null : await retryAfterSpreadGuessing(em, key, attempt.ip, attempt.now);
  if (byIp === null && byPair === null && byEmail === null) return null;
  return Math.max(byIp ?? 0, byPair ?? 0, byEmail ?? 0);
}

/**
 * Checks an e-mail and password under the limits above. While a limit holds, the password is not even
 * checked, so guessing gets nowhere; an unknown e-mail runs the same queries and takes the same time.
 * A success clears this address's failures for the e-mail and remembers the address and the device.
 */
export async function signInWithPassword(em: EntityManager, attempt: SignInAttempt): Promise<SignInResult> {
  const key = emailKey(attempt.email);
  const [user] = await em.execute<{ id: string; password_hash: string | null }[]>(
    'select id, password_hash from app_user where lower(email) = ?',
    [key],
  );
  const retryAfterSec = await retryAfterFailures(em, key, user?.id, attempt);
  if (retryAfterSec !== null) return { ok: false, reason: 'throttled', retryAfterSec };
  const passwordHash = user?.password_hash ?? null;
  const valid = passwordHash
    ? await verifyPassword(passwordHash, attempt.password)
    : (await verifyPassword(await dummyPasswordHash(), attempt.password)) && false;
  if (!user || !valid) {
    await recordFailure(em, key, attempt);
    return { ok: false, reason: 'invalid_credentials' };
  }
  await em.execute('delete from login_attempt where email_key = ? and ip = ?', [key, attempt.ip], 'run');
  const deviceToken =
    attempt.deviceToken && looksLikeToken(DEVICE_PREFIX, attempt.deviceToken) ? attempt.deviceToken : generateToken(DEVICE_PREFIX);
  await rememberKnownClient(em, user.id, attempt, deviceToken);
  return { ok: true, userId: user.id, deviceToken };
}

export type PasswordCheck = { ok: true } | { ok: false; reason: 'wrong_password' } | { ok: false; reason: 'throttled'; retryAfterSec: number };

/**
 * Checks a signed-in user's own password (before a change of e-mail or password, or deleting the account) under
 * the sign-in limits, counting a wrong one as a failed sign-in: a stolen session cannot be used to guess it faster.
 */
export async function confirmPassword(
  em: EntityManager,
  check: { userId: string; password: string; ip: string; now: Date },
): Promise<PasswordCheck> {
  const [user] = await em.execute<{ email: string; password_hash: string | null }[]>(
    'select email, password_hash from app_user where id = ?',
    [check.userId],
  );
  if (!user) return { ok: false, reason: 'wrong_password' };
  const attempt: SignInAttempt = { email: user.email, password: check.password, ip: check.ip, now: check.now };
  const key = emailKey(user.email);
  const retryAfterSec = await retryAfterFailures(em, key, check.userId, attempt);
  if (retryAfterSec !== null) return { ok: false, reason: 'throttled', retryAfterSec };
  if (user.password_hash && (await verifyPassword(user.password_hash, check.password))) {
    await em.execute('delete from login_attempt where email_key = ? and ip = ?', [key, check.ip], 'run');
    return { ok: true };
  }
  await recordFailure(em, key, attempt);
  return { ok: false, reason: 'wrong_password' };
}

/** Ends every session of the user but `keep` (the caller's own, when it stays signed in); how many ended. */
export async function deleteSessionsOf(em: EntityManager, userId: string, keep?: string): Promise<number> {
  const result = await em.execute<{ affectedRows: number }>(
    'delete from user_session where user_id = ? and id <> ?',
    [userId, keep ?? ''],
    'run',
  );
  return result.affectedRows;
}
