import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../lib/ids.ts';
import { generateToken, hashToken } from '../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../lib/sql-values.ts';
import type { Scope } from '../identity/scopes.ts';
import { OAuthAuthorizationCodeEntity } from './oauth-authorization-code.entity.ts';
import { OAuthGrantEntity } from './oauth-grant.entity.ts';
import { AUTHORIZATION_CODE_PREFIX, AUTHORIZATION_CODE_TTL_SEC, revokeGrantTokens } from './tokens.ts';

export interface ApprovedAuthorization {
  userId: string;
  clientRowId: string;
  scopes: readonly Scope[];
  resource: string | null;
  redirectUri: string;
  redirectUriInRequest: boolean;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
}

/**
 * The user approved: a new grant and its single-use authorization code (256 random bits, stored hashed,
 * valid for 60 seconds), in one transaction. Returns the raw code for the redirect.
 */
export async function createGrantWithCode(em: EntityManager, input: ApprovedAuthorization, now: Date): Promise<string> {
  const code = generateToken(AUTHORIZATION_CODE_PREFIX);
  await em.transactional(async (tx) => {
    const grantId = newId();
    tx.create(OAuthGrantEntity, {
      id: grantId,
      userId: input.userId,
      clientId: input.clientRowId,
      scopes: [...input.scopes],
      resource: input.resource,
      createdAt: now,
      revokedAt: null,
      revokedReason: null,
    });
    await tx.flush();
    tx.create(OAuthAuthorizationCodeEntity, {
      id: newId(),
      codeHash: hashToken(code),
      grantId,
      redirectUri: input.redirectUri,
      redirectUriInRequest: input.redirectUriInRequest,
      codeChallenge: input.codeChallenge,
      codeChallengeMethod: input.codeChallengeMethod,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SEC * 1000),
      consumedAt: null,
      createdAt: now,
    });
  });
  return code;
}

export interface GrantSummary {
  /** The grant id, for revokeGrant. */
  id: string;
  client: { clientId: string; name: string; verified: boolean };
  scopes: Scope[];
  resource: string | null;
  createdAt: Date;
  /** When its newest access token was issued (a first approximation of "last used"). */
  lastTokenIssuedAt: Date | null;
}

interface GrantRow {
  id: string;
  client_id: string;
  client_name: string;
  dynamically_registered: boolean;
  scopes: Scope[];
  resource: string | null;
  created_at: SqlTimestamp;
  last_token_issued_at: SqlTimestamp | null;
}

/**
 * The apps a user has authorized and not revoked, newest first: one entry per approval that still has a
 * live refresh token (a grant whose tokens all expired is no longer access anyone holds).
 */
export async function listGrantsForUser(em: EntityManager, userId: string, now: Date): Promise<GrantSummary[]> {
  const rows = await em.execute<GrantRow[]>(
    `select g.id, c.client_id, c.name as client_name, c.dynamically_registered, g.scopes, g.resource, g.created_at,
            (select max(t.created_at) from oauth_access_token t where t.grant_id = g.id) as last_token_issued_at
       from oauth_grant g
       join oauth_client c on c.id = g.client_id
      where g.user_id = ? and g.revoked_at is null
        and exists (select 1 from oauth_refresh_token r
                     where r.grant_id = g.id and r.revoked_at is null and r.expires_at > ?)
      order by g.created_at desc, g.id`,
    [userId, now],
  );
  return rows.map((row) => ({
    id: row.id,
    client: { clientId: row.client_id, name: row.client_name, verified: !row.dynamically_registered },
    scopes: row.scopes,
    resource: row.resource,
    createdAt: toDate(row.created_at),
    lastTokenIssuedAt: row.last_token_issued_at === null ? null : toDate(row.last_token_issued_at),
  }));
}

/**
 * The user withdraws an app's access: the grant and every token of it stop working at once.
 * False when the grant does not exist, is someone else's, or was already revoked.
 */
export async function revokeGrant(em: EntityManager, userId: string, grantId: string, now: Date): Promise<boolean> {
  return em.transactional(async (tx) => {
    const grant = await tx.findOne(OAuthGrantEntity, { id: grantId, userId });
    if (!grant) return false;
    return revokeGrantTokens(tx, grant.id, now, 'revoked_by_user');
  });
}
