import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type supertest from 'supertest';
import { expect } from 'vitest';
import { authorizeAs } from './support.ts';

/**
 * An OAuthClientProvider as an MCP client application would write one, except that "redirecting the user"
 * drives the real sign-in and consent pages over HTTP and captures the code from the redirect.
 */
export class ConsentDrivingProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://localhost:33418/oauth/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'MCP SDK e2e client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  authorizationCode: string | undefined;
  invalidated: string[] = [];
  readonly http: ReturnType<typeof supertest>;
  readonly cookie: string;
  readonly overrideResource: URL | undefined;

  constructor(http: ReturnType<typeof supertest>, cookie: string, overrideResource?: URL) {
    this.http = http;
    this.cookie = cookie;
    this.overrideResource = overrideResource;
    if (overrideResource) {
      // Like MCP SDK versions before 1.29: the resource indicator is sent as URL.href, with a trailing slash.
      this.validateResourceURL = async () => overrideResource;
    }
  }

  validateResourceURL?: (serverUrl: string | URL, resource?: string) => Promise<URL | undefined>;
  state() {
    return 'mcp-state-123';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidated.push(scope);
    if (scope === 'tokens' || scope === 'all') this.saved = undefined;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    const callback = await authorizeAs(this.http, this.cookie, url.search.slice(1));
    expect(callback.origin + callback.pathname).toBe(this.redirectUrl);
    expect(callback.searchParams.get('state')).toBe('mcp-state-123');
    this.authorizationCode = callback.searchParams.get('code') ?? undefined;
  }
}
