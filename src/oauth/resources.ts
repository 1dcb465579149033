import { OAuthError } from './errors.ts';

/**
 * The protected resources this server issues tokens for (RFC 8707 / RFC 9728), as paths under SITE_URL:
 * the whole service (the bare origin, what clients that probe only the root metadata get), the REST API,
 * and the MCP endpoint.
 */
export const RESOURCE_PATHS = ['', '/api/v2', '/mcp'] as const;
export type ResourcePath = (typeof RESOURCE_PATHS)[number];

export function resourceUrl(siteUrl: string, path: ResourcePath): string {
  return `${siteUrl}${path}`;
}

/**
 * The canonical form of a `resource` parameter, or an invalid_target error. RFC 8707 §2: an absolute URI
 * without a fragment. URLs are compared normalised (scheme and host case, default port, one trailing
 * slash): the MCP SDK sends `new URL("https://host").href`, which is "https://host/".
 */
export function canonicalResource(siteUrl: string, value: string): string {
  if (value.includes('#')) throw new OAuthError('invalid_target', 'The resource must not contain a fragment.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthError('invalid_target', 'The resource must be an absolute URI.');
  }
  if (url.search || url.username || url.password) {
    throw new OAuthError('invalid_target', 'The resource must not contain a query or user information.');
  }
  const normalised = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const known = RESOURCE_PATHS.map((path) => resourceUrl(siteUrl, path));
  if (!known.includes(normalised)) {
    throw new OAuthError('invalid_target', `Unknown resource. This server issues tokens for: ${known.join(', ')}.`);
  }
  return normalised;
}

/**
 * Whether a token bound to `bound` may be used for `requested` (both canonical, or null for "no resource
 * named"): the origin covers every resource under it; otherwise they must be equal.
 */
export function resourceCovers(siteUrl: string, bound: string | null, requested: string | null): boolean {
  if (bound === null || bound === siteUrl) return true;
  return bound === requested;
}

/**
 * Whether an access token bound to `bound` is meant for the resource at `path` (MCP "Token Handling": a
 * server MUST only accept tokens issued for it). Works on the path alone, because every stored resource
 * was checked against SITE_URL when the token was issued. A token bound to no resource (a client that sent no
 * `resource`) is the REST API's, as before resource binding existed; /mcp takes only tokens issued for it or
 * for the whole origin.
 */
export function audienceAllows(bound: string | null, path: Exclude<ResourcePath, ''>): boolean {
  if (bound === null) return path !== '/mcp';
  const boundPath = new URL(bound).pathname.replace(/\/+$/, '');
  return boundPath === '' || boundPath === path;
}
