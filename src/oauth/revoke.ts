import type { EntityManager } from '@mikro-orm/postgresql';
import { hashToken, looksLikeToken } from '../lib/secrets.ts';
import type { ClientRow } from './clients.ts';
import { OAuthError } from './errors.ts';
import { type RawParams, required, single } from './params.ts';
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX, revokeGrantTokens } from './tokens.ts';

interface OwnedTokenRow {
  id: string;
  grant_id: string;
  client_id: string;
}

/**
 * RFC 7009 §2.1: revokes an access or refresh token of the calling client. The token's prefix says what it is, so
 * token_type_hint is ignored; unknown and already-revoked tokens get the same 200 (§2.2). Revoking a refresh token
 * revokes its whole grant. Another client's token is left alone: silently for a public client (so nobody can probe
 * tokens with a public client_id), with invalid_grant for a confidential one.
 */
export async function revokeToken(
  em: EntityManager,
  ctx: { client: ClientRow; params: RawParams; now: Date },
): Promise<void> {
  const { client, params, now } = ctx;
  const token = required(params, 'token');
  single(params, 'token_type_hint');

  const kind = looksLikeToken(ACCESS_TOKEN_PREFIX, token)
    ? 'access'
    : looksLikeToken(REFRESH_TOKEN_PREFIX, token)
      ? 'refresh'
      : null;
  if (kind === null) return;
  const table = kind === 'access' ? 'oauth_access_token' : 'oauth_refresh_token';
  const [row] = await em.execute<OwnedTokenRow[]>(
    `select t.id, t.grant_id, g.client_id from ${table} t join oauth_grant g on g.id = t.grant_id where t.token_hash = ?`,
    [hashToken(token)],
  );
  if (!row) return;
  if (row.client_id !== client.id) {
    if (client.type === 'confidential') {
      throw new OAuthError('invalid_grant', 'The token was issued to another client.');
    }
    return;
  }
  if (kind === 'access') {
    await em.execute('update oauth_access_token set revoked_at = ? where id = ? and revoked_at is null', [now, row.id], 'run');
    return;
  }
  await em.transactional((tx) => revokeGrantTokens(tx, row.grant_id, now, 'revoked_by_client'));
}
