import type { EntityManager } from '@mikro-orm/postgresql';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { DomainError, invalidField, notFound } from '../lib/errors.ts';
import { newId } from '../lib/ids.ts';
import { generateToken, hashToken, looksLikeToken } from '../lib/secrets.ts';
import { OAuthError } from './errors.ts';
import { type ClientType, OAuthClientEntity } from './oauth-client.entity.ts';
import { type RawParams, single } from './params.ts';

export const CLIENT_ID_PREFIX = 'oci_';
export const CLIENT_SECRET_PREFIX = 'ocs_';
export const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 2000;
const MAX_CLIENT_NAME_LENGTH = 100;

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
// Redirect URIs
// ---------------------------------------------------------------------------------------------------------

/** RFC 3986 URIs are ASCII: printable, no spaces. This also shuts out bidi controls and look-alike hosts. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
/** The authority exactly as written: `scheme://` followed by at least one character of host. */
const WRITTEN_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i;
const LOOPBACK = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::(\d*))?((?:[/?].*)?)$/;

/** A port as it should be written: 1 to 65535, no leading zeros (port 0 and 65536+ name no real endpoint). */
function isCanonicalPort(port: string): boolean {
  return /^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65535;
}

/**
 * A loopback redirect URI split into the part that must match exactly and its port (RFC 8252 §7.3), or
 * null when it is not a loopback URI with a usable port.
 */
function loopbackParts(uri: string): { withoutPort: string } | null {
  const match = LOOPBACK.exec(uri);
  if (!match) return null;
  const [, origin, port, rest] = match;
  if (port !== undefined && !isCanonicalPort(port)) return null;
  return { withoutPort: `${origin}${rest}` };
}

/**
 * Whether the host and port as written are what the WHATWG parser understood: no empty host
 * (`https:///cb` parses as host `cb`), no percent-encoded or numeric-shorthand host, a real port.
 */
function authorityProblem(uri: string, url: URL): string | null {
  const written = WRITTEN_AUTHORITY.exec(uri)?.[1]?.toLowerCase();
  if (!written) return 'must name a host (scheme://host/path)';
  const portMatch = /:(\d*)$/.exec(written);
  const host = portMatch ? written.slice(0, portMatch.index) : written;
  if (host !== url.hostname) return 'must name its host plainly (no encoded or abbreviated host)';
  if (portMatch && !isCanonicalPort(portMatch[1] ?? '')) return 'must have a port from 1 to 65535';
  return null;
}

/**
 * Why a redirect URI cannot be registered, or null when it can: an absolute https URI with a host, or http
 * on a loopback host only (BCP 240 §2.6, RFC 8252 §7.3); printable ASCII only; no fragment (RFC 6749
 * §3.1.2), no user information, no other scheme.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) return 'must be 1 to 2000 characters long';
  if (!PRINTABLE_ASCII.test(uri)) return 'must be printable ASCII, without spaces, control or bidirectional characters';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (uri.includes('\\')) return 'must not contain a backslash';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?]*@/i.test(uri)) {
    return 'must not contain user information';
  }
  if (url.protocol === 'https:') return authorityProblem(uri, url);
  if (url.protocol === 'http:' && LOOPBACK.test(uri)) return loopbackParts(uri) ? null : 'must have a port from 1 to 65535';
  if (url.protocol === 'http:') return 'must use https; plain http is allowed only for localhost, 127.0.0.1 and [::1]';
  return 'must use the https scheme (or http on localhost, 127.0.0.1 or [::1])';
}

/**
 * Whether a redirect URI of an authorization request matches a registered one: simple string comparison
 * (RFC 3986 §6.2.1, BCP 240 §2.1), except that a loopback redirect URI may carry any port from 1 to 65535
 * (RFC 8252 §7.3, OAuth 2.1 §8.4.2) — every other component still compares exactly.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const loopback = loopbackParts(requested);
  if (!loopback) return false;
  return registered.some((candidate) => loopbackParts(candidate)?.withoutPort === loopback.withoutPort);
}

// ---------------------------------------------------------------------------------------------------------
// Client names (shown on the consent screen, so they must not be able to impersonate another app)
// ---------------------------------------------------------------------------------------------------------

/** Control, format (bidi overrides and isolates, zero-width characters), private-use, unassigned, separators. */
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]/u;
const SCRIPTS = [
  'Latin', 'Greek', 'Cyrillic', 'Armenian', 'Hebrew', 'Arabic', 'Syriac', 'Thaana', 'Devanagari', 'Bengali',
  'Gurmukhi', 'Gujarati', 'Oriya', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao',
  'Tibetan', 'Myanmar', 'Georgian', 'Hangul', 'Ethiopic', 'Cherokee', 'Khmer', 'Mongolian', 'Hiragana',
  'Katakana', 'Bopomofo', 'Han',
] as const;
const SCRIPT_PATTERNS = SCRIPTS.map((script) => ({ script, pattern: new RegExp(`^\\p{Script=${script}}$`, 'u') }));
/** UTS #39 "highly restrictive": one script, or Latin with the scripts East Asian writing combines. */
const ALLOWED_SCRIPT_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

function scriptsOfLetters(text: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of text) {
    if (!/\p{L}/u.test(char) || /[\p{Script=Common}\p{Script=Inherited}]/u.test(char)) continue;
    scripts.add(SCRIPT_PATTERNS.find(({ pattern }) => pattern.test(char))?.script ?? 'other');
  }
  return scripts;
}

/** NFKC folds compatibility look-alikes (fullwidth `Ｇ`, mathematical bold `𝐆`) to the plain letter. */
export function normaliseClientName(name: string): string {
  return name.normalize('NFKC').trim();
}

/**
 * Why a (normalised) client name cannot be shown on a consent screen, or null. Invisible and bidi
 * characters are refused outright; letters must come from one script (or an allowed East Asian mix), so
 * `Gооgle` with Cyrillic o's is refused while `Календарь` or `カレンダー同期` are fine.
 */
export function clientNameProblem(name: string): string | null {
  if (name.length > MAX_CLIENT_NAME_LENGTH) return `must be at most ${MAX_CLIENT_NAME_LENGTH} characters long`;
  if (INVISIBLE_OR_CONTROL.test(name)) return 'must not contain control, invisible or bidirectional-override characters';
  const scripts = [...scriptsOfLetters(name)];
  const mixedOk = scripts.length <= 1 || ALLOWED_SCRIPT_MIXES.some((mix) => scripts.every((script) => mix.includes(script)));
  return mixedOk ? null : 'must not mix letters of different scripts (look-alike letters)';
}

/** A developer's app name, normalised, or a 400 on `name` (developer settings: create and rename). */
export function checkedAppName(raw: string): string {
  const name = normaliseClientName(raw);
  if (name.length === 0) throw invalidField(['name'], `must be 1 to ${MAX_CLIENT_NAME_LENGTH} characters long`);
  const problem = clientNameProblem(name);
  if (problem) throw invalidField(['name'], problem);
  return name;
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
