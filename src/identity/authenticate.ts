import type { EntityManager } from '@mikro-orm/postgresql';
import { AuthenticationError, type BearerResolvers, parseBearerHeader } from './bearer.ts';
import type { Principal } from './principal.ts';

/**
 * Resolves the request's bearer token, with the resolver of its prefix, to a principal on the Team plan, or throws
 * an AuthenticationError.
 */
export async function authenticateBearer(
  em: EntityManager,
  resolvers: BearerResolvers,
  authorization: string | string[] | undefined,
  now: Date,
): Promise<Principal> {
  const token = parseBearerHeader(authorization);
  const resolver = Object.entries(resolvers).find(([prefix]) => token.startsWith(prefix))?.[1];
  const principal = resolver ? await resolver(em, token, now) : null;
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

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
