import type { EntityManager } from '@mikro-orm/postgresql';
import { UserEntity } from '../identity/user.entity.ts';
import { findLiveAccessToken } from './tokens.ts';

export type UserInfo = { sub: string; email?: string; name?: string; zoneinfo?: string };

export class BearerError extends Error {
  readonly status: 400 | 401;
  /** RFC 6750 §3.1 code; absent when the request carried no credentials at all. */
  readonly code: 'invalid_request' | 'invalid_token' | undefined;

  constructor(status: 400 | 401, code: BearerError['code'], description: string) {
    super(description);
    this.status = status;
    this.code = code;
  }
}

/**
 * OpenID Connect UserInfo (Core §5.3) for an OAuth access token of ours. `sub` (the user id) is always
 * there; the profile claims need read:profile. Any of our resources' tokens may read it: the endpoint
 * belongs to the authorization server itself. Off the Team plan tokens do not authenticate, as on the API.
 */
export async function userInfo(
  em: EntityManager,
  token: string,
  now: Date,
): Promise<{ claims: UserInfo; rateLimitKey: string }> {
  const live = await findLiveAccessToken(em, token, now);
  if (!live) throw new BearerError(401, 'invalid_token', 'The access token is invalid, expired or revoked.');
  if (live.plan !== 'team') {
    throw new BearerError(401, 'invalid_token', 'The account is not on the Team plan; its tokens do not authenticate.');
  }
  const user = await em.findOne(UserEntity, { id: live.userId });
  if (!user) throw new BearerError(401, 'invalid_token', 'The access token is invalid, expired or revoked.');
  const claims: UserInfo = { sub: user.id };
  if (live.scopes.includes('read:profile')) {
    claims.email = user.email;
    if (user.name) claims.name = user.name;
    claims.zoneinfo = user.timezone;
  }
  return { claims, rateLimitKey: `oauth:${live.grantId}` };
}
