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

/** A path segment that is itself a secret: the invitee's manage link /book/manage/<secret>[/event.ics]. */
const SECRET_PATH_SEGMENT = /^(\/book\/manage\/)[^/?#]+/i;

/**
 * The URL with the value of every secret-bearing query parameter and every secret path segment replaced;
 * everything else is kept as sent.
 */
export function redactUrl(rawUrl: string): string {
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
export function serializeRequestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
