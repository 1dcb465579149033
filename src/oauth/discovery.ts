import { ALL_SCOPES } from '../identity/scopes.ts';
import { CODE_CHALLENGE_METHODS } from './pkce.ts';
import { type ResourcePath, resourceUrl } from './resources.ts';
import { GRANT_TYPES } from './token.ts';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

/**
 * RFC 8414 authorization server metadata. The issuer is SITE_URL exactly (no trailing slash), the same
 * string the authorization responses carry as `iss` (RFC 9207); every array is non-empty.
 */
export function authorizationServerMetadata(siteUrl: string): Record<string, unknown> {
  return {
    issuer: siteUrl,
    authorization_endpoint: `${siteUrl}/oauth/authorize`,
    token_endpoint: `${siteUrl}/oauth/token`,
    revocation_endpoint: `${siteUrl}/oauth/revoke`,
    userinfo_endpoint: `${siteUrl}/oauth/userinfo`,
    registration_endpoint: `${siteUrl}/oauth/register`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH_METHODS,
    code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${siteUrl}/api/docs`,
  };
}

const RESOURCE_NAMES: Record<ResourcePath, string> = {
  '': 'Scheduling service',
  '/api/v2': 'Scheduling REST API v2',
  '/mcp': 'Scheduling MCP server',
};

/**
 * RFC 9728 protected resource metadata for one of our resources; `resource` is exactly the identifier
 * the well-known URL was built from (§3.3), so clients can check it.
 */
export function protectedResourceMetadata(siteUrl: string, path: ResourcePath): Record<string, unknown> {
  return {
    resource: resourceUrl(siteUrl, path),
    authorization_servers: [siteUrl],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: RESOURCE_NAMES[path],
    ...(path === '/mcp' ? {} : { resource_documentation: `${siteUrl}/api/docs` }),
  };
}
