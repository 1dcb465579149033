import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, looksLikeToken } from '../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../lib/sql-values.ts';
import { isScope, type Scope } from '../identity/scopes.ts';
import type { ClientRow } from './clients.ts';
import { OAuthError } from './errors.ts';
import { parseScopeParam, type RawParams, required, single } from './params.ts';
import { isValidPkceValue, verifyS256 } from './pkce.ts';
import { canonicalResource, resourceCovers } from './resources.ts';
import {
  AUTHORIZATION_CODE_PREFIX,
  issueTokenPair,
  REFRESH_TOKEN_PREFIX,
  revokeGrantTokens,
  type TokenResponse,
} from './tokens.ts';

export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

interface TokenRequestContext {
  client: ClientRow;
  params: RawParams;
  siteUrl: string;
  now: Date;
}

/** The `resource` parameter of a token request, canonical, or undefined (RFC 8707 §2.2). */
function requestedResource(params: RawParams, siteUrl: string): string | undefined {
  if (Array.isArray(params.resource)) throw new OAuthError('invalid_target', 'Name one resource per token request.');
  const value = single(params, 'resource');
  return value === undefined ? undefined : canonicalResource(siteUrl, value);
}

/** The audience of a new access token: the requested resource if the grant covers it, else the grant's. */
function tokenResource(siteUrl: string, granted: string | null, requested: string | undefined): string | null {
  if (requested === undefined) return granted;
  if (!resourceCovers(siteUrl, granted, requested)) {
    throw new OAuthError('invalid_target', 'The requested resource is not covered by this authorization.');
  }
  return requested;
}

interface CodeRow {
  id: string;
  grant_id: string;
  redirect_uri: string;
  redirect_uri_in_request: boolean;
  code_challenge: string | null;
  expires_at: SqlTimestamp;
  consumed_at: SqlTimestamp | null;
  grant_client_id: string;
  scopes: string[];
  resource: string | null;
  grant_revoked_at: SqlTimestamp | null;
}

const INVALID_CODE = 'The authorization code is invalid, expired or already used.';

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3, RFC 7636 §4.6). Every binding is checked before the
 * code is consumed, so a request with a wrong verifier or client neither burns the code nor revokes
 * anything (OAuth 2.1 §7.5.2); a second valid redemption revokes every token of the grant (§4.1.2, §10.5).
 */
export async function exchangeAuthorizationCode(em: EntityManager, ctx: TokenRequestContext): Promise<TokenResponse> {
  const { client, params, siteUrl, now } = ctx;
  const code = required(params, 'code');
  const redirectUri = single(params, 'redirect_uri');
  const verifier = single(params, 'code_verifier');
  const resource = requestedResource(params, siteUrl);
  if (verifier !== undefined && !isValidPkceValue(verifier)) {
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of [A-Za-z0-9-._~].');
  }
  if (!looksLikeToken(AUTHORIZATION_CODE_PREFIX, code)) throw new OAuthError('invalid_grant', INVALID_CODE);

  const [row] = await em.execute<CodeRow[]>(
    `select c.id, c.grant_id, c.redirect_uri, c.redirect_uri_in_request, c.code_challenge, c.expires_at, c.consumed_at,
            g.client_id as grant_client_id, g.scopes, g.resource, g.revoked_at as grant_revoked_at
       from oauth_authorization_code c join oauth_grant g on g.id = c.grant_id
      where c.code_hash = ?`,
    [hashToken(code)],
  );
  if (!row) throw new OAuthError('invalid_grant', INVALID_CODE);
  if (row.grant_client_id !== client.id) {
    throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  }
  if (row.redirect_uri_in_request && redirectUri === undefined) {
    throw new OAuthError('invalid_request', "redirect_uri is required: the authorization request included it.");
  }
  if (redirectUri !== undefined && redirectUri !== row.redirect_uri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the one of the authorization request.');
  }
  if (row.code_challenge !== null) {
    if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required for this code.');
    if (!verifyS256(verifier, row.code_challenge)) {
      throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
    }
  } else if (verifier !== undefined) {
    // BCP 240 §2.1.1 / §4.8.2: no verifier for a code issued without a challenge (PKCE downgrade).
    throw new OAuthError('invalid_request', 'code_verifier was sent, but the authorization request had no code_challenge.');
  }
  if (row.consumed_at !== null) {
    await revokeGrantTokens(em, row.grant_id, now, 'code_replay');
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  if (toDate(row.expires_at) <= now) throw new OAuthError('invalid_grant', INVALID_CODE);
  if (row.grant_revoked_at !== null) throw new OAuthError('invalid_grant', INVALID_CODE);
  const audience = tokenResource(siteUrl, row.resource, resource);
  const scopes = row.scopes.filter(isScope);

  const outcome = await em.transactional(async (tx) => {
    // Single use, atomically: of any number of concurrent redemptions exactly one updates the row.
    const consumed = await tx.execute<{ id: string }[]>(
      'update oauth_authorization_code set consumed_at = ? where id = ? and consumed_at is null returning id',
      [now, row.id],
      'all',
    );
    if (consumed.length === 0) return { replayed: true as const };
    const [grant] = await tx.execute<{ revoked_at: SqlTimestamp | null }[]>(
      'select revoked_at from oauth_grant where id = ? for update',
      [row.grant_id],
    );
    if (!grant || grant.revoked_at !== null) return { revoked: true as const };
    const issued = await issueTokenPair(tx, { grantId: row.grant_id, scopes, resource: audience, now });
    return { response: issued.response };
  });
  if ('replayed' in outcome) {
    await revokeGrantTokens(em, row.grant_id, now, 'code_replay');
    throw new OAuthError('invalid_grant', INVALID_CODE);
  }
  if ('revoked' in outcome) throw new OAuthError('invalid_grant', INVALID_CODE);
  return outcome.response;
}

interface RefreshRow {
  id: string;
  grant_id: string;
  expires_at: SqlTimestamp;
  revoked_at: SqlTimestamp | null;
  rotated_at: SqlTimestamp | null;
  grant_client_id: string;
  scopes: string[];
  resource: string | null;
  grant_revoked_at: SqlTimestamp | null;
}

const INVALID_REFRESH = 'The refresh token is invalid, expired or revoked.';
const REUSED_REFRESH =
  'The refresh token was already used. Every token of this authorization has been revoked; authorize again.';

/**
 * grant_type=refresh_token with strict rotation (BCP 240 §4.14.2, OAuth 2.1 §4.3.1): each use returns a new
 * pair and retires the old one; presenting a retired refresh token again revokes the whole grant.
 */
export async function refreshTokens(em: EntityManager, ctx: TokenRequestContext): Promise<TokenResponse> {
  const { client, params, siteUrl, now } = ctx;
  const refreshToken = required(params, 'refresh_token');
  const scopeValue = single(params, 'scope');
  const resource = requestedResource(params, siteUrl);
  if (!looksLikeToken(REFRESH_TOKEN_PREFIX, refreshToken)) throw new OAuthError('invalid_grant', INVALID_REFRESH);

  const [row] = await em.execute<RefreshRow[]>(
    `select r.id, r.grant_id, r.expires_at, r.revoked_at, r.rotated_at,
            g.client_id as grant_client_id, g.scopes, g.resource, g.revoked_at as grant_revoked_at
       from oauth_refresh_token r join oauth_grant g on g.id = r.grant_id
      where r.token_hash = ?`,
    [hashToken(refreshToken)],
  );
  if (!row) throw new OAuthError('invalid_grant', INVALID_REFRESH);
  if (row.grant_client_id !== client.id) {
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  }
  if (row.rotated_at !== null) {
    await revokeGrantTokens(em, row.grant_id, now, 'refresh_token_reuse');
    throw new OAuthError('invalid_grant', REUSED_REFRESH);
  }
  if (row.revoked_at !== null || row.grant_revoked_at !== null || toDate(row.expires_at) <= now) {
    throw new OAuthError('invalid_grant', INVALID_REFRESH);
  }
  const granted = row.scopes.filter(isScope);
  let scopes: Scope[] = granted;
  if (scopeValue !== undefined) {
    scopes = parseScopeParam(scopeValue);
    const extra = scopes.find((scope) => !granted.includes(scope));
    if (extra) throw new OAuthError('invalid_scope', `The scope '${extra}' was not granted to this authorization.`);
  }
  const audience = tokenResource(siteUrl, row.resource, resource);

  const outcome = await em.transactional(async (tx) => {
    const rotated = await tx.execute<{ id: string }[]>(
      `update oauth_refresh_token set rotated_at = ?, revoked_at = ?
        where id = ? and revoked_at is null returning id`,
      [now, now, row.id],
      'all',
    );
    if (rotated.length === 0) return { reused: true as const };
    // The old pair goes: its access token too.
    await tx.execute(
      'update oauth_access_token set revoked_at = ? where refresh_token_id = ? and revoked_at is null',
      [now, row.id],
      'run',
    );
    const issued = await issueTokenPair(tx, { grantId: row.grant_id, scopes, resource: audience, now });
    await tx.execute('update oauth_refresh_token set replaced_by = ? where id = ?', [issued.refreshTokenId, row.id], 'run');
    return { response: issued.response };
  });
  if ('reused' in outcome) {
    await revokeGrantTokens(em, row.grant_id, now, 'refresh_token_reuse');
    throw new OAuthError('invalid_grant', REUSED_REFRESH);
  }
  return outcome.response;
}
