import type { EntityManager } from '@mikro-orm/postgresql';
import { ACCESS_TOKEN_PREFIX, oauthAccessTokenResolver } from '../oauth/tokens.ts';
import { AuthenticationError, type BearerResolver, parseBearerHeader } from './bearer.ts';
import { PAT_PREFIX, resolvePersonalAccessToken } from './personal-access-tokens.ts';
import type { Principal } from './principal.ts';

/** Each kind of bearer token, by its prefix. OAuth access tokens register theirs here too. */
export const bearerResolvers: Record<string, BearerResolver> = {
  [PAT_PREFIX]: resolvePersonalAccessToken,
  [ACCESS_TOKEN_PREFIX]: oauthAccessTokenResolver('/api/v2'),
};

/** Resolves the request's bearer token to a principal on the Team plan, or throws an AuthenticationError. */
export async function authenticateBearer(
  em: EntityManager,
  authorization: string | string[] | undefined,
  now: Date,
): Promise<Principal> {
  const token = parseBearerHeader(authorization);
  const resolver = Object.entries(bearerResolvers).find(([prefix]) => token.startsWith(prefix))?.[1];
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
