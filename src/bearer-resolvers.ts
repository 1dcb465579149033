import type { BearerResolvers } from './identity/bearer.ts';
import { PAT_PREFIX, resolvePersonalAccessToken } from './identity/personal-access-tokens.ts';
import type { ResourcePath } from './oauth/resources.ts';
import { ACCESS_TOKEN_PREFIX, oauthAccessTokenResolver } from './oauth/tokens.ts';

/**
 * Every kind of bearer token a protected resource accepts, by prefix: personal access tokens, and OAuth access
 * tokens bound to that resource (RFC 8707). Assembled here, where the app is wired, so identity need not import
 * the OAuth server, nor the API the OAuth server's internals.
 */
export function bearerResolversFor(resource: Exclude<ResourcePath, ''>): BearerResolvers {
  return {
    audience: resource,
    byPrefix: {
      [PAT_PREFIX]: resolvePersonalAccessToken,
      [ACCESS_TOKEN_PREFIX]: oauthAccessTokenResolver(resource),
    },
  };
}
