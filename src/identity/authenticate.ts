import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken } from '../lib/secrets.ts';
import { AuthenticationError, type BearerResolvers, parseBearerHeader } from './bearer.ts';
import type { Principal } from './principal.ts';
import type { PrincipalCache } from './principal-cache.ts';

/**
 * Resolves the request's bearer token, with the resolver of its prefix, to a principal on the Team plan, or throws
 * an AuthenticationError. A principal found in `cache` (keyed by the token's hash and the audience) costs no
 * database round trip; the plan is checked on every request either way.
 */
export async function authenticateBearer(
  em: EntityManager,
  resolvers: BearerResolvers,
  authorization: string | string[] | undefined,
  now: Date,
  cache?: PrincipalCache,
): Promise<Principal> {
  const token = parseBearerHeader(authorization);
  const principal = await resolvePrincipal(em, resolvers, token, now, cache);
  if (!principal) {
    throw new AuthenticationError('The access token is invalid, expired or revoked.', 'invalid_token');
  }
  if (principal.plan !== 'team') {
    throw new AuthenticationError(
      `The API needs the Team plan; this token belongs to an account on the ${capitalize(principal.plan)} plan. Upgrade to Team to use API tokens.`,
      'invalid_token',
    );
  }
  return principal;
}

async function resolvePrincipal(
  em: EntityManager,
  resolvers: BearerResolvers,
  token: string,
  now: Date,
  cache: PrincipalCache | undefined,
): Promise<Principal | null> {
  const resolver = Object.entries(resolvers.byPrefix).find(([prefix]) => token.startsWith(prefix))?.[1];
  if (!resolver) return null;
  const key = cache ? `${resolvers.audience} ${hashToken(token)}` : '';
  const cached = await cache?.lookup(key, now);
  if (cached) return cached;
  const generation = cache?.generation ?? 0;
  const resolved = await resolver(em, token, now);
  if (!resolved) return null;
  cache?.set(key, resolved.principal, resolved.reusableUntil, generation);
  return resolved.principal;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
