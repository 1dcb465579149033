import type { FastifyReply } from 'fastify';

/**
 * Every OAuth error code the server answers with, and its HTTP status when it is sent as a JSON body
 * (token, revocation, registration, userinfo). Authorization-endpoint errors travel in the redirect instead.
 * Sources: RFC 6749 §4.1.2.1 and §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1, RFC 7591 §3.2.2, RFC 8707 §2.
 */
export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unsupported_response_type: 400,
  access_denied: 403,
  unsupported_token_type: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  /** Our answer to a client that exceeded a per-address limit (429, with Retry-After). */
  slow_down: 429,
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: OAuthErrorCode, description: string, headers: Record<string, string> = {}) {
    super(safeDescription(description));
    this.name = 'OAuthError';
    this.code = code;
    this.status = OAUTH_ERROR_STATUS[code];
    this.headers = headers;
  }

  get description(): string {
    return this.message;
  }
}

/**
 * RFC 6749 §5.2: error_description is limited to %x20-21 / %x23-5B / %x5D-7E (printable ASCII without
 * the double quote and the backslash). Anything else is replaced, so no caller input can break the rule.
 */
export function safeDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export function oauthErrorBody(error: OAuthError): OAuthErrorBody {
  return { error: error.code, error_description: error.description };
}

/** Headers of every token-endpoint-like response (RFC 6749 §5.1): never cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
}

/**
 * Sends an OAuth error as JSON. An invalid_client after the client tried HTTP Basic authentication carries
 * the matching challenge (RFC 6749 §5.2 MUST).
 */
export function sendOAuthError(reply: FastifyReply, error: OAuthError, options: { basicChallenge?: boolean } = {}) {
  noStore(reply);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.code === 'invalid_client' && options.basicChallenge) {
    reply.header('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
  }
  return reply.code(error.status).type('application/json; charset=utf-8').send(oauthErrorBody(error));
}
