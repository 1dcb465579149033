import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { checkedAppName, redirectUriProblem } from '../../oauth/client-metadata.ts';
import {
  createOAuthClient,
  listOAuthClientsForOwner,
  type OwnedClientSummary,
  rotateClientSecret,
} from '../../oauth/clients.ts';
import { listGrantsForUser, revokeGrant } from '../../oauth/grants.ts';
import { OAuthClientEntity } from '../../oauth/oauth-client.entity.ts';
import { OAuthGrantEntity } from '../../oauth/oauth-grant.entity.ts';
import { PersonalAccessTokenEntity } from '../../identity/personal-access-token.entity.ts';
import { createPersonalAccessToken } from '../../identity/personal-access-tokens.ts';
import type { Principal } from '../../identity/principal.ts';
import { ALL_SCOPES, isScope, SCOPE_DESCRIPTIONS, type Scope } from '../../identity/scopes.ts';
import type { Plan } from '../../identity/user.entity.ts';
import type {
  CreateOAuthAppInput,
  CreatePersonalAccessTokenInput,
  GrantedAppDto,
  OAuthAppDto,
  Ok,
  PersonalAccessTokenDto,
  UpdateOAuthAppInput,
} from './developer-settings.schemas.ts';

/** Enough for any real use; a runaway script creating tokens in a loop stops here. */
export const MAX_LIVE_TOKENS = 100;
export const MAX_OAUTH_APPS = 50;

const OK: Ok = { ok: true };

export function scopeCatalog(): { scope: Scope; description: string }[] {
  return ALL_SCOPES.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] }));
}

const PLAN_NAMES: Record<Plan, string> = { free: 'Free', pro: 'Pro', team: 'Team' };

/** API tokens and OAuth apps belong to the Team plan; everyone may still list and revoke what they have. */
export function requireTeamPlan(principal: Pick<Principal, 'plan'>, what: string): void {
  if (principal.plan !== 'team') {
    throw new DomainError(
      'forbidden',
      `${what} are part of the Team plan; your account is on the ${PLAN_NAMES[principal.plan]} plan. Upgrade to Team to create them.`,
    );
  }
}

type TokenRecord = {
  id: string;
  name: string;
  displayPrefix: string;
  scopes: string[];
  createdAt: Date;
  lastUsedAt?: Date | null;
  expiresAt?: Date | null;
};

function toTokenDto(row: TokenRecord, now: Date): PersonalAccessTokenDto {
  const expiresAt = row.expiresAt ?? null;
  return {
    id: row.id,
    name: row.name,
    prefix: row.displayPrefix,
    scopes: row.scopes.filter(isScope),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: expiresAt?.toISOString() ?? null,
    expired: expiresAt !== null && expiresAt <= now,
  };
}

/** The caller's tokens that are not revoked, newest first (expired ones stay listed, marked as such). */
export async function listPersonalAccessTokens(
  em: EntityManager,
  userId: string,
  now: Date,
): Promise<PersonalAccessTokenDto[]> {
  const rows = await em.find(
    PersonalAccessTokenEntity,
    { userId, revokedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return rows.map((row) => toTokenDto(row, now));
}

export async function createPersonalAccessTokenForUser(
  em: EntityManager,
  principal: Principal,
  input: CreatePersonalAccessTokenInput,
  now: Date,
): Promise<{ token: PersonalAccessTokenDto; secret: string }> {
  requireTeamPlan(principal, 'Personal access tokens');
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt <= now) throw invalidField(['expiresAt'], 'must be in the future');
  const live = await em.count(PersonalAccessTokenEntity, {
    userId: principal.userId,
    revokedAt: null,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  });
  if (live >= MAX_LIVE_TOKENS) {
    throw new DomainError('conflict', `You already have ${MAX_LIVE_TOKENS} active tokens. Revoke one you no longer use first.`);
  }
  const created = await createPersonalAccessToken(em, {
    userId: principal.userId,
    name: input.name,
    scopes: input.scopes,
    expiresAt,
  });
  const row = await em.findOneOrFail(PersonalAccessTokenEntity, { id: created.id });
  return { token: toTokenDto(row, now), secret: created.token };
}

/** Revokes one of the caller's tokens; revoking it again is fine, someone else's token is a 404. */
export async function revokePersonalAccessToken(em: EntityManager, userId: string, id: string, now: Date): Promise<Ok> {
  const row = await em.findOne(PersonalAccessTokenEntity, { id, userId });
  if (!row) throw notFound('Token');
  if (!row.revokedAt) {
    row.revokedAt = now;
    await em.flush();
  }
  return OK;
}

// ---------------------------------------------------------------------------------------------------------
// OAuth apps the user develops
// ---------------------------------------------------------------------------------------------------------

function toAppDto(row: OwnedClientSummary): OAuthAppDto {
  return {
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    redirectUris: [...row.redirectUris],
    type: row.type,
    createdAt: toIsoString(row.createdAt),
  };
}

/** The caller's apps, newest first (the page lists what was just created on top). */
export async function listOAuthApps(em: EntityManager, userId: string): Promise<OAuthAppDto[]> {
  const rows = await listOAuthClientsForOwner(em, userId);
  return rows.map(toAppDto).reverse();
}

export async function createOAuthApp(
  em: EntityManager,
  principal: Principal,
  input: CreateOAuthAppInput,
  now: Date,
): Promise<{ app: OAuthAppDto; clientSecret: string | null }> {
  requireTeamPlan(principal, 'OAuth apps');
  const owned = await em.count(OAuthClientEntity, { ownerUserId: principal.userId });
  if (owned >= MAX_OAUTH_APPS) {
    throw new DomainError('conflict', `You already have ${MAX_OAUTH_APPS} OAuth apps. Delete one you no longer use first.`);
  }
  const created = await createOAuthClient(
    em,
    { ownerUserId: principal.userId, name: input.name, redirectUris: input.redirectUris, type: input.type },
    now,
  );
  const app = await ownedApp(em, principal.userId, created.id);
  return { app: toAppDto(app), clientSecret: created.clientSecret ?? null };
}

async function ownedApp(em: EntityManager, userId: string, id: string) {
  const row = await em.findOne(OAuthClientEntity, { id, ownerUserId: userId });
  if (!row) throw notFound('OAuth app');
  return row;
}

/** Renames an app or replaces its redirect URIs (validated as at creation); its type never changes. */
export async function updateOAuthApp(em: EntityManager, userId: string, input: UpdateOAuthAppInput): Promise<OAuthAppDto> {
  const row = await ownedApp(em, userId, input.id);
  if (input.name !== undefined) row.name = checkedAppName(input.name);
  if (input.redirectUris !== undefined) {
    input.redirectUris.forEach((uri, index) => {
      const problem = redirectUriProblem(uri);
      if (problem) throw invalidField(['redirectUris', index], problem);
    });
    row.redirectUris = [...new Set(input.redirectUris)];
  }
  await em.flush();
  return toAppDto(row);
}

/** A new secret for a confidential app, shown once; the old one stops working at once. */
export async function rotateOAuthAppSecret(
  em: EntityManager,
  userId: string,
  id: string,
): Promise<{ app: OAuthAppDto; clientSecret: string }> {
  const row = await ownedApp(em, userId, id);
  const { clientSecret } = await rotateClientSecret(em, { ownerUserId: userId, clientId: row.clientId });
  return { app: toAppDto(row), clientSecret };
}

/**
 * Deletes an app. Its grants, codes and tokens go with it (foreign keys cascade), so every user of the
 * app is signed out of it at once.
 */
export async function deleteOAuthApp(em: EntityManager, userId: string, id: string): Promise<Ok> {
  const row = await ownedApp(em, userId, id);
  await em.remove(row).flush();
  return OK;
}

// ---------------------------------------------------------------------------------------------------------
// Apps the user has authorized
// ---------------------------------------------------------------------------------------------------------

export async function listGrantedApps(em: EntityManager, userId: string, now: Date): Promise<GrantedAppDto[]> {
  const grants = await listGrantsForUser(em, userId, now);
  return grants.map((grant) => ({
    id: grant.id,
    app: { ...grant.client },
    scopes: [...grant.scopes],
    grantedAt: toIsoString(grant.createdAt),
    lastUsedAt: toIsoStringOrNull(grant.lastTokenIssuedAt),
  }));
}

/** Withdraws an app's access (all its tokens die); an unknown or someone else's grant is a 404. */
export async function revokeGrantedApp(em: EntityManager, userId: string, grantId: string, now: Date): Promise<Ok> {
  const revoked = await revokeGrant(em, userId, grantId, now);
  if (!revoked) {
    const exists = await em.count(OAuthGrantEntity, { id: grantId, userId });
    if (!exists) throw notFound('Authorized app');
  }
  return OK;
}
