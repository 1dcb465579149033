import type { EntityManager } from '@mikro-orm/postgresql';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { DomainError, invalidField, notFound } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { generateToken, hashToken, looksLikeToken } from '../lib/secrets.ts';
import { checkedAppName, MAX_REDIRECT_URIS, redirectUriProblem } from './client-metadata.ts';
import { OAuthError } from './errors.ts';
import { type ClientType, OAuthClientEntity } from './oauth-client.entity.ts';
import { type RawParams, single } from './params.ts';

export const CLIENT_ID_PREFIX = 'oci_';
export const CLIENT_SECRET_PREFIX = 'ocs_';

export interface ClientRow {
  /** The row id (oauth_client.id); grants reference it. */
  id: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  type: ClientType;
  secretHash: string | null;
  ownerUserId: string | null;
  dynamicallyRegistered: boolean;
}

/** Public identifiers: 128 random bits, not secret, but not guessable either. */
function generateClientId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `${CLIENT_ID_PREFIX}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

export async function findClient(em: EntityManager, clientId: string): Promise<ClientRow | null> {
  if (clientId.length > 200) return null;
  const row = await em.findOne(OAuthClientEntity, { clientId });
  if (!row) return null;
  return {
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    redirectUris: row.redirectUris,
    type: row.type,
    secretHash: row.secretHash ?? null,
    ownerUserId: row.ownerUserId ?? null,
    dynamicallyRegistered: row.dynamicallyRegistered,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Creating clients
// ---------------------------------------------------------------------------------------------------------

export interface NewClient {
  ownerUserId: string | null;
  name: string;
  redirectUris: string[];
  type: ClientType;
  dynamicallyRegistered?: boolean;
}

export interface CreatedClient {
  /** The row id, for settings pages. */
  id: string;
  clientId: string;
  /** Only for confidential clients, and only now: it is stored as a hash. */
  clientSecret?: string;
  createdAt: Date;
}

async function insertClient(em: EntityManager, input: NewClient, now: Date): Promise<CreatedClient> {
  const id = newId();
  const clientId = generateClientId();
  const clientSecret = input.type === 'confidential' ? generateToken(CLIENT_SECRET_PREFIX) : undefined;
  em.create(OAuthClientEntity, {
    id,
    clientId,
    name: input.name,
    redirectUris: [...new Set(input.redirectUris)],
    type: input.type,
    secretHash: clientSecret ? hashToken(clientSecret) : null,
    ownerUserId: input.ownerUserId,
    dynamicallyRegistered: input.dynamicallyRegistered ?? false,
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  return { id, clientId, createdAt: now, ...(clientSecret ? { clientSecret } : {}) };
}

/**
 * An app a developer creates in their settings. Confidential apps get a secret, shown once; public apps
 * (mobile, single-page) authenticate with PKCE alone. Throws a DomainError (400) for invalid input.
 */
export async function createOAuthClient(
  em: EntityManager,
  input: { ownerUserId: string; name: string; redirectUris: string[]; type: ClientType },
  now: Date,
): Promise<CreatedClient> {
  const name = checkedAppName(input.name);
  if (input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw invalidField(['redirectUris'], `must list 1 to ${MAX_REDIRECT_URIS} redirect URIs`);
  }
  input.redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalidField(['redirectUris', index], problem);
  });
  return insertClient(em, { ...input, name, dynamicallyRegistered: false }, now);
}

/** Replaces a confidential app's secret; the old one stops working at once. Returns the new one, shown once. */
export async function rotateClientSecret(
  em: EntityManager,
  input: { ownerUserId: string; clientId: string },
): Promise<{ clientSecret: string }> {
  const client = await em.findOne(OAuthClientEntity, { clientId: input.clientId, ownerUserId: input.ownerUserId });
  if (!client) throw notFound('OAuth app');
  if (client.type !== 'confidential') throw new DomainError('conflict', 'A public app has no client secret.');
  const clientSecret = generateToken(CLIENT_SECRET_PREFIX);
  client.secretHash = hashToken(clientSecret);
  await em.flush();
  return { clientSecret };
}

export interface OwnedClientSummary {
  id: string;
  clientId: string;
  name: string;
  type: ClientType;
  redirectUris: string[];
  createdAt: Date;
}

/** The apps a developer created, oldest first. */
export async function listOAuthClientsForOwner(em: EntityManager, ownerUserId: string): Promise<OwnedClientSummary[]> {
  const rows = await em.find(OAuthClientEntity, { ownerUserId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return rows.map((row) => ({
    id: row.id,
    clientId: row.clientId,
    name: row.name,
    type: row.type,
    redirectUris: row.redirectUris,
    createdAt: row.createdAt,
  }));
}

/** Dynamic registration (RFC 7591): always a public client, never a secret, marked unverified. */
export async function registerPublicClient(
  em: EntityManager,
  input: { name: string; redirectUris: string[] },
  now: Date,
): Promise<CreatedClient> {
  return insertClient(
    em,
    { ownerUserId: null, name: input.name, redirectUris: input.redirectUris, type: 'public', dynamicallyRegistered: true },
    now,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Client authentication at the token and revocation endpoints (RFC 6749 §2.3)
// ---------------------------------------------------------------------------------------------------------

export type ClientAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

interface PresentedCredentials {
  clientId: string;
  secret?: string;
  method: ClientAuthMethod;
}

function decodeFormComponent(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/** client_secret_basic: `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1). */
function parseBasic(header: string): { clientId: string; secret: string } {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(header);
  if (!match?.[1]) throw new OAuthError('invalid_client', 'Malformed HTTP Basic client credentials.');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic client credentials.');
  try {
    return {
      clientId: decodeFormComponent(decoded.slice(0, colon)),
      secret: decodeFormComponent(decoded.slice(colon + 1)),
    };
  } catch {
    throw new OAuthError('invalid_client', 'Malformed HTTP Basic client credentials.');
  }
}

function presentedCredentials(authorization: string | undefined, body: RawParams): PresentedCredentials {
  const bodyClientId = single(body, 'client_id');
  const bodySecret = single(body, 'client_secret');
  if (authorization !== undefined && authorization !== '') {
    if (bodySecret !== undefined) {
      // RFC 6749 §2.3: "The client MUST NOT use more than one authentication method in each request."
      throw new OAuthError('invalid_request', 'Use either HTTP Basic or client_secret in the body, not both.');
    }
    const basic = parseBasic(authorization);
    if (bodyClientId !== undefined && bodyClientId !== basic.clientId) {
      throw new OAuthError('invalid_client', 'The client_id in the body differs from the HTTP Basic one.');
    }
    return { clientId: basic.clientId, secret: basic.secret, method: 'client_secret_basic' };
  }
  if (bodyClientId === undefined) {
    throw new OAuthError('invalid_client', 'Client authentication failed: no client_id was sent.');
  }
  if (bodySecret !== undefined) return { clientId: bodyClientId, secret: bodySecret, method: 'client_secret_post' };
  return { clientId: bodyClientId, method: 'none' };
}

function secretMatches(secret: string, secretHash: string): boolean {
  if (!looksLikeToken(CLIENT_SECRET_PREFIX, secret)) return false;
  const expected = new TextEncoder().encode(secretHash);
  const actual = new TextEncoder().encode(hashToken(secret));
  return expected.length === actual.length && constantTimeEqual(expected, actual);
}

/**
 * The calling client, authenticated: confidential clients by their secret (HTTP Basic or in the body),
 * public clients by client_id alone. Anything else is invalid_client.
 */
export async function authenticateClient(
  em: EntityManager,
  authorization: string | undefined,
  body: RawParams,
): Promise<{ client: ClientRow; method: ClientAuthMethod }> {
  const presented = presentedCredentials(authorization, body);
  const client = await findClient(em, presented.clientId);
  if (!client) throw new OAuthError('invalid_client', 'Client authentication failed: unknown client.');
  if (client.type === 'confidential') {
    if (presented.secret === undefined || !client.secretHash || !secretMatches(presented.secret, client.secretHash)) {
      throw new OAuthError('invalid_client', 'Client authentication failed: wrong or missing client secret.');
    }
  } else if (presented.secret !== undefined) {
    throw new OAuthError('invalid_client', 'Client authentication failed: this public client has no secret.');
  }
  return { client, method: presented.method };
}
