import type { FastifyRequest } from 'fastify';

/**
 * Query parameters that carry a credential when a client puts one in a URL: the private link key of a
 * secret event type, OAuth tokens, codes and secrets, CSRF tokens, passwords. Compared case-insensitively
 * after percent-decoding the name, so `%6Bey` or `KEY` are redacted too.
 */
const SECRET_QUERY_PARAMETERS = new Set([
  'key',
  'access_token',
  'refresh_token',
  'id_token',
  'token',
  'code',
  'code_verifier',
  'client_secret',
  'csrf',
  'password',
  // tRPC queries carry their whole input in the URL: the manage page's secret, a private link key.
  'input',
]);
export const REDACTED = '[REDACTED]';

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/**
 * A path segment that is itself a secret: the invitee's manage link /book/manage/<secret>[/event.ics], a password
 * reset link /login/reset/<secret>.
 */
const SECRET_PATH_SEGMENT = /^(\/(?:book\/manage|login\/reset)\/)[^/?#]+/i;

/** The type prefixes of the secrets the service mints, by the alphabet their random part is written in. */
export interface SecretPrefixes {
  /** generateToken's (src/lib/secrets.ts): base32, perhaps followed by a checksum. */
  base32: readonly string[];
  /** Base64 secrets (webhook signing secrets): `+`, `/` and `=` too. */
  base64: readonly string[];
}

/** Characters of a token after its prefix: base32 and any URL-safe checksum or separator, or a percent-encoded one. */
const TOKEN_TAIL = '(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2})';
const BASE64_TAIL = '(?:[A-Za-z0-9_+/=-]|%[0-9A-Fa-f]{2})';
/** Where a token may start: not inside a word, unless right after a percent-encoded separator (`Bearer%20pat_…`). */
const TOKEN_START = '(?:(?<![A-Za-z0-9])|(?<=%[0-9A-Fa-f]{2}))';

/** A secret's prefix as it may appear in a URL (matched in any case): its `_` possibly percent-encoded. */
function prefixPattern(prefix: string): string {
  return prefix.replace(/_$/, '').replace(/[^A-Za-z0-9]/g, (ch) => `\\${ch}`) + '(?:_|%5F)';
}

/**
 * Anything shaped like one of the service's secrets (a type prefix followed by at least 8 characters of its
 * alphabet), wherever it is in a URL: a client may put one in a query parameter of any name, a path segment or
 * a fragment. Not anchored to a token's exact length, so a longer format (a checksum) is covered too.
 */
function secretShape(prefixes: SecretPrefixes): RegExp {
  const alternatives = [
    prefixes.base32.length > 0 ? `(${prefixes.base32.map(prefixPattern).join('|')})${TOKEN_TAIL}{8,}` : undefined,
    prefixes.base64.length > 0 ? `(${prefixes.base64.map(prefixPattern).join('|')})${BASE64_TAIL}{8,}` : undefined,
  ].filter((alternative) => alternative !== undefined);
  return new RegExp(`${TOKEN_START}(?:${alternatives.join('|')})`, 'gi');
}

/**
 * Redacts a URL for the log: the value of every secret-bearing query parameter, every secret path segment and
 * every secret-shaped token (its type prefix kept, to tell what was sent); everything else is kept as sent.
 */
export function urlRedactor(prefixes: SecretPrefixes): (url: string) => string {
  const shape = secretShape(prefixes);
  return (url) => redactNamedSecrets(url).replace(shape, (_token, base32?: string, base64?: string) => `${base32 ?? base64}${REDACTED}`);
}

function redactNamedSecrets(rawUrl: string): string {
  const url = rawUrl.replace(SECRET_PATH_SEGMENT, `$1${REDACTED}`);
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const parts = url
    .slice(queryStart + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const name = equals === -1 ? part : part.slice(0, equals);
      return SECRET_QUERY_PARAMETERS.has(decodedName(name)) && equals !== -1 ? `${name}=${REDACTED}` : part;
    });
  return `${url.slice(0, queryStart)}?${parts.join('&')}`;
}

/** What the log records of a request (Fastify's default fields), with secrets in its URL redacted. */
export function requestLogSerializer(prefixes: SecretPrefixes) {
  const redact = urlRedactor(prefixes);
  return (request: FastifyRequest) => ({
    method: request.method,
    url: redact(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  });
}
