import type { EntityManager, QueryResult } from '@mikro-orm/postgresql';
import { newId } from '../lib/ids.ts';
import { executePrepared } from '../lib/prepared-sql.ts';
import { generateToken, hashToken, looksLikeToken } from '../lib/secrets.ts';
import { type SqlTimestamp, toDate } from '../lib/sql-values.ts';
import { PersonalAccessTokenEntity } from './personal-access-token.entity.ts';
import type { ResolvedBearer } from './bearer.ts';
import { isScope, type Scope } from './scopes.ts';
import type { Plan } from './user.entity.ts';

export const PAT_PREFIX = 'pat_';
/** Writing lastUsedAt on every request would turn each read into a write; a minute's precision is plenty. */
const LAST_USED_PRECISION_MS = 60_000;

export interface CreatedToken {
  id: string;
  token: string;
  displayPrefix: string;
}

export async function createPersonalAccessToken(
  em: EntityManager,
  input: { userId: string; name: string; scopes: readonly Scope[]; expiresAt?: Date | null },
): Promise<CreatedToken> {
  const token = generateToken(PAT_PREFIX);
  const id = newId();
  const displayPrefix = token.slice(0, PAT_PREFIX.length + 6);
  em.create(PersonalAccessTokenEntity, {
    id,
    userId: input.userId,
    name: input.name,
    tokenHash: hashToken(token),
    displayPrefix,
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expiresAt ?? null,
  });
  await em.flush();
  return { id, token, displayPrefix };
}

/** Revokes by raw token value; true when a live token was revoked. */
export async function revokePersonalAccessTokenByValue(em: EntityManager, token: string, now: Date): Promise<boolean> {
  const result = await em.execute<QueryResult>(
    'update personal_access_token set revoked_at = ? where token_hash = ? and revoked_at is null',
    [now, hashToken(token)],
    'run',
  );
  return result.affectedRows > 0;
}

interface TokenRow {
  id: string;
  user_id: string;
  scopes: string[];
  expires_at: SqlTimestamp | null;
  revoked_at: SqlTimestamp | null;
  last_used_at: SqlTimestamp | null;
  plan: Plan;
}

export async function resolvePersonalAccessToken(em: EntityManager, token: string, now: Date): Promise<ResolvedBearer | null> {
  if (!looksLikeToken(PAT_PREFIX, token)) return null;
  const [row] = await executePrepared<TokenRow>(
    em,
    'pat.lookup',
    `select t.id, t.user_id, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, u.plan
       from personal_access_token t join app_user u on u.id = t.user_id
      where t.token_hash = ?`,
    [hashToken(token)],
  );
  if (!row || row.revoked_at || (row.expires_at && toDate(row.expires_at) <= now)) return null;
  let lastUsed = row.last_used_at ? toDate(row.last_used_at) : null;
  if (!lastUsed || now.getTime() - lastUsed.getTime() > LAST_USED_PRECISION_MS) {
    await executePrepared(em, 'personal-access-token.used', 'update personal_access_token set last_used_at = ? where id = ?', [now, row.id]);
    lastUsed = now;
  }
  // Reused (by the principal cache) no longer than the last-used time may lag, nor past the token's expiry.
  const lastUsedDue = lastUsed.getTime() + LAST_USED_PRECISION_MS;
  const expiry = row.expires_at ? toDate(row.expires_at).getTime() : Number.POSITIVE_INFINITY;
  return {
    principal: {
      userId: row.user_id,
      plan: row.plan,
      scopes: new Set(row.scopes.filter(isScope)),
      credential: { kind: 'pat', id: row.id },
    },
    reusableUntil: new Date(Math.min(lastUsedDue, expiry)),
  };
}
