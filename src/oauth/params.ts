import { ALL_SCOPES, isScope, type Scope } from '../identity/scopes.ts';
import { OAuthError } from './errors.ts';

/** A parsed query string or form body: repeated names come as arrays (fast-querystring). */
export type RawParams = Record<string, string | string[] | undefined>;

export function asParams(value: unknown): RawParams {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return {};
  return value as RawParams;
}

/**
 * One parameter: RFC 6749 §3.1/§3.2 — "Request and response parameters MUST NOT be included more than once"
 * and "Parameters sent without a value MUST be treated as if they were omitted from the request".
 */
export function single(params: RawParams, name: string): string | undefined {
  const value = params[name];
  if (Array.isArray(value)) {
    throw new OAuthError('invalid_request', `The '${name}' parameter was given more than once.`);
  }
  return value === undefined || value === '' ? undefined : value;
}

/** The names of parameters given more than once; the authorization endpoint reports them in its own way. */
export function repeatedNames(params: RawParams): string[] {
  return Object.entries(params)
    .filter(([, value]) => Array.isArray(value))
    .map(([name]) => name);
}

export function required(params: RawParams, name: string): string {
  const value = single(params, name);
  if (value === undefined) throw new OAuthError('invalid_request', `The '${name}' parameter is required.`);
  return value;
}

/** Token and revocation requests are form-encoded (RFC 6749 §3.2, RFC 7009 §2.1). */
export function requireFormEncoded(contentType: string | undefined): void {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Send the request body as application/x-www-form-urlencoded.');
  }
}

/**
 * A `scope` parameter (RFC 6749 §3.3: space-delimited, order irrelevant): our scopes, deduplicated, or
 * invalid_scope naming the first unknown one.
 */
export function parseScopeParam(value: string): Scope[] {
  const tokens = value.split(' ').filter((token) => token !== '');
  if (tokens.length === 0) throw new OAuthError('invalid_scope', 'Request at least one scope.');
  const scopes: Scope[] = [];
  for (const token of tokens) {
    if (!isScope(token)) {
      throw new OAuthError('invalid_scope', `Unknown scope '${token.slice(0, 60)}'. Known scopes: ${ALL_SCOPES.join(' ')}.`);
    }
    if (!scopes.includes(token)) scopes.push(token);
  }
  return scopes;
}
