import { fastifyCookie } from '@fastify/cookie';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../lib/errors.ts';
import { AuthenticationError } from './bearer.ts';
import type { Principal } from './principal.ts';
import { ALL_SCOPES } from './scopes.ts';
import { csrfTokenMatches, type ResolvedSession, resolveSession, sessionCookieName } from './sessions.ts';
import { UserEntity } from './user.entity.ts';

/** The header a first-party call made with the session cookie must carry: the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

type Headers = Record<string, string | string[] | undefined>;

/** The session cookie's value, if the request carries one. */
export function sessionCookieValue(headers: Headers, siteUrl: string): string | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string' || header === '') return undefined;
  return fastifyCookie.parse(header)[sessionCookieName(siteUrl)] || undefined;
}

/** The live session of the request's cookie, or null (no cookie, or it names no live session). */
export async function currentSession(
  em: EntityManager,
  headers: Headers,
  siteUrl: string,
  now: Date,
): Promise<ResolvedSession | null> {
  const cookie = sessionCookieValue(headers, siteUrl);
  return cookie ? resolveSession(em, cookie, now) : null;
}

/**
 * The principal of a first-party call authenticated by the session cookie (tRPC only), or null without one: the
 * user acts for themself, with every scope. CSRF: besides SameSite=Lax, every cookie-authenticated call echoes the
 * session's CSRF token in `x-csrf-token`, which a cross-site page can neither read nor send without CORS.
 */
export async function authenticateSession(
  em: EntityManager,
  headers: Headers,
  siteUrl: string,
  now: Date,
): Promise<Principal | null> {
  const cookie = sessionCookieValue(headers, siteUrl);
  if (!cookie) return null;
  const session = await resolveSession(em, cookie, now);
  if (!session) throw new AuthenticationError('Your session has ended. Sign in again.', undefined, true);
  const submitted = headers[CSRF_HEADER];
  if (!csrfTokenMatches(session.csrfToken, typeof submitted === 'string' ? submitted : undefined)) {
    throw new DomainError(
      'forbidden',
      `Missing or invalid CSRF token: calls made with the session cookie must send the "${CSRF_HEADER}" header with the token from session.current.`,
    );
  }
  const user = await em.findOne(UserEntity, { id: session.userId }, { fields: ['id', 'plan'] });
  if (!user) throw new AuthenticationError('Your session has ended. Sign in again.', undefined, true);
  return {
    userId: session.userId,
    plan: user.plan,
    scopes: new Set(ALL_SCOPES),
    credential: { kind: 'session', id: session.sessionId },
  };
}
