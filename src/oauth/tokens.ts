import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';
import type { BearerResolver, ResolvedBearer } from '../identity/bearer.ts';
import { isScope, type Scope } from '../identity/scopes.ts';
import type { Plan } from '../identity/user.entity.ts';
import { newId } from '../lib/ids.ts';
import { executePrepared } from '../lib/prepared-sql.ts';
import { generateToken, hashToken, looksLikeToken } from '../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../lib/sql-values.ts';
import { OAuthAccessTokenEntity, OAuthRefreshTokenEntity } from './oauth-token.entity.ts';
import { audienceAllows, type ResourcePath } from './resources.ts';

/** Type prefixes, so logs and secret scanners can tell the kinds apart (each followed by 256 random bits). */
export const ACCESS_TOKEN_PREFIX = 'oat_';
export const REFRESH_TOKEN_PREFIX = 'ort_';
export const AUTHORIZATION_CODE_PREFIX = 'oac_';

/** Lifetimes from the spec (access 1 hour, refresh 30 days); codes live at most 60 seconds. */
export const ACCESS_TOKEN_TTL_SEC = 3600;
export const REFRESH_TOKEN_TTL_SEC = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_TTL_SEC = 60;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

/**
 * A new access token and refresh token for a grant. The refresh token always carries the grant's full
 * scope; the access token may be narrower (RFC 6749 §6). Runs inside the caller's transaction.
 */
export async function issueTokenPair(
  em: EntityManager,
  input: { grantId: string; scopes: readonly Scope[]; resource: string | null; now: Date },
): Promise<{ response: TokenResponse; refreshTokenId: string }> {
  const accessToken = generateToken(ACCESS_TOKEN_PREFIX);
  const refreshToken = generateToken(REFRESH_TOKEN_PREFIX);
  const refreshTokenId = newId();
  em.create(OAuthRefreshTokenEntity, {
    id: refreshTokenId,
    tokenHash: hashToken(refreshToken),
    grantId: input.grantId,
    expiresAt: addSeconds(input.now, REFRESH_TOKEN_TTL_SEC),
    revokedAt: null,
    rotatedAt: null,
    replacedBy: null,
    createdAt: input.now,
  });
  await em.flush();
  em.create(OAuthAccessTokenEntity, {
    id: newId(),
    tokenHash: hashToken(accessToken),
    grantId: input.grantId,
    refreshTokenId,
    scopes: [...input.scopes],
    resource: input.resource,
    expiresAt: addSeconds(input.now, ACCESS_TOKEN_TTL_SEC),
    revokedAt: null,
    createdAt: input.now,
  });
  await em.flush();
  return {
    refreshTokenId,
    response: {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SEC,
      refresh_token: refreshToken,
      scope: input.scopes.join(' '),
    },
  };
}

export type GrantRevocationReason = 'code_replay' | 'refresh_token_reuse' | 'revoked_by_client' | 'revoked_by_user';

/** Revokes a grant and every token of its family; idempotent. Returns whether the grant was live. */
export async function revokeGrantTokens(
  em: EntityManager,
  grantId: string,
  now: Date,
  reason: GrantRevocationReason,
): Promise<boolean> {
  const grant = await em.execute<QueryResult>(
    'update oauth_grant set revoked_at = ?, revoked_reason = ? where id = ? and revoked_at is null',
    [now, reason, grantId],
    'run',
  );
  await em.execute(
    'update oauth_access_token set revoked_at = ? where grant_id = ? and revoked_at is null',
    [now, grantId],
    'run',
  );
  await em.execute(
    'update oauth_refresh_token set revoked_at = ? where grant_id = ? and revoked_at is null',
    [now, grantId],
    'run',
  );
  return grant.affectedRows > 0;
}

export interface LiveAccessToken {
  id: string;
  grantId: string;
  clientRowId: string;
  userId: string;
  plan: Plan;
  scopes: Scope[];
  resource: string | null;
  expiresAt: Date;
}

interface AccessTokenRow {
  id: string;
  grant_id: string;
  client_id: string;
  user_id: string;
  plan: Plan;
  scopes: string[];
  resource: string | null;
  expires_at: SqlTimestamp;
  revoked_at: SqlTimestamp | null;
  grant_revoked_at: SqlTimestamp | null;
}

/** The live access token with this value, or null (unknown, malformed, expired, revoked, or its grant revoked). */
export async function findLiveAccessToken(em: EntityManager, token: string, now: Date): Promise<LiveAccessToken | null> {
  if (!looksLikeToken(ACCESS_TOKEN_PREFIX, token)) return null;
  const [row] = await executePrepared<AccessTokenRow>(
    em,
    'oauth.access_token.lookup',
    `select t.id, t.grant_id, g.client_id, g.user_id, u.plan, t.scopes, t.resource, t.expires_at, t.revoked_at,
            g.revoked_at as grant_revoked_at
       from oauth_access_token t
       join oauth_grant g on g.id = t.grant_id
       join app_user u on u.id = g.user_id
      where t.token_hash = ?`,
    [hashToken(token)],
  );
  if (!row || row.revoked_at || row.grant_revoked_at || toDate(row.expires_at) <= now) return null;
  return {
    id: row.id,
    grantId: row.grant_id,
    clientRowId: row.client_id,
    userId: row.user_id,
    plan: row.plan,
    scopes: row.scopes.filter(isScope),
    resource: row.resource,
    expiresAt: toDate(row.expires_at),
  };
}

/**
 * The bearer resolver for OAuth access tokens on one of our protected resources: a token bound to a
 * different resource is refused (401), as MCP "Token Handling" and BCP 240 §2.3 require.
 * The principal's credential id is the grant: the per-token rate limit and idempotency keys then follow
 * the token family across refreshes instead of restarting with every new access token.
 */
export function oauthAccessTokenResolver(path: Exclude<ResourcePath, ''>): BearerResolver {
  return async (em, token, now): Promise<ResolvedBearer | null> => {
    const live = await findLiveAccessToken(em, token, now);
    if (!live || !audienceAllows(live.resource, path)) return null;
    return {
      principal: {
        userId: live.userId,
        plan: live.plan,
        scopes: new Set(live.scopes),
        credential: { kind: 'oauth', id: live.grantId },
      },
      reusableUntil: live.expiresAt,
    };
  };
}
