import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { authorizeAs, createPasswordUser, type PasswordUser, signIn, startListeningApp } from './support.ts';

/**
 * The whole flow driven by a client nobody here wrote (panva's oauth4webapi), against the app listening on
 * 127.0.0.1: discovery, RFC 9728 resource discovery, dynamic registration, sign-in and consent, PKCE code
 * exchange, an API call, userinfo, refresh with rotation, reuse detection and revocation.
 */
describe('OAuth end to end with oauth4webapi', () => {
  let t: TestApp & { siteUrl: string };
  let user: PasswordUser;
  let cookie: string;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const options = { [oauth.allowInsecureRequests]: true } as const;

  beforeAll(async () => {
    t = await startListeningApp({ publicRateLimitPerMinute: 10_000 });
    user = await createPasswordUser(t.em(), { name: 'Grace Flow', timezone: 'Asia/Tokyo' });
    cookie = await signIn(t.http, user);
    const issuer = new URL(t.siteUrl);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }),
    );
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [redirectUri], client_name: 'oauth4webapi e2e', token_endpoint_auth_method: 'none' },
        options,
      ),
    );
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  });
  afterAll(() => t.close());

  /** Authorization request → consent (approve) → validated callback → token response. */
  async function authorize(scope: string, resource?: string): Promise<oauth.TokenEndpointResponse> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    if (resource) url.searchParams.set('resource', resource);
    const callback = await authorizeAs(t.http, cookie, url.search.slice(1));
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
      ...options,
      ...(resource ? { additionalParameters: { resource } } : {}),
    });
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  /** GET /api/v2/me through oauth4webapi; a 401 challenge comes back as its response rather than thrown. */
  async function getMe(accessToken: string): Promise<Response> {
    try {
      return await oauth.protectedResourceRequest(
        accessToken,
        'GET',
        new URL(`${t.siteUrl}/api/v2/me`),
        undefined,
        undefined,
        options,
      );
    } catch (error) {
      if (error instanceof oauth.WWWAuthenticateChallengeError) {
        expect(error.cause[0]?.parameters.error).toBe('invalid_token');
        return error.response;
      }
      throw error;
    }
  }

  it('discovers the server and the API resource (RFC 8414, RFC 9728) and registers a public client (RFC 7591)', async () => {
    expect(as.issuer).toBe(t.siteUrl);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(client.client_id).toMatch(/^oci_/);
    const resource = new URL(`${t.siteUrl}/api/v2`);
    const rs = await oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, options));
    expect(rs.resource).toBe(`${t.siteUrl}/api/v2`);
    expect(rs.authorization_servers).toEqual([t.siteUrl]);
  });

  it('signs in, consents, exchanges the code with PKCE, calls the API, reads userinfo, refreshes with rotation', async () => {
    const tokens = await authorize('read:profile read:bookings', `${t.siteUrl}/api/v2`);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);
    expect(tokens.scope).toBe('read:profile read:bookings');

    const me = await getMe(tokens.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: user.id, email: user.email, timezone: 'Asia/Tokyo' });
    expect(me.headers.get('x-ratelimit-limit')).toBe('600');

    const info = await oauth.processUserInfoResponse(
      as,
      client,
      user.id,
      await oauth.userInfoRequest(as, client, tokens.access_token, options),
    );
    expect(info).toEqual({ sub: user.id, email: user.email, name: 'Grace Flow', zoneinfo: 'Asia/Tokyo' });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token ?? '', options),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await getMe(refreshed.access_token)).status).toBe(200);
    // Rotation revoked the old pair.
    expect((await getMe(tokens.access_token)).status).toBe(401);
  });

  it('detects reuse of a rotated refresh token and revokes the whole family', async () => {
    const tokens = await authorize('read:profile');
    const second = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token ?? '', options),
    );
    const replay = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token ?? '', options),
    );
    await expect(replay).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
    // The newest pair died with it.
    expect((await getMe(second.access_token)).status).toBe(401);
    const newest = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), second.refresh_token ?? '', options),
    );
    await expect(newest).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('revokes a refresh token (RFC 7009): its access token stops working at once', async () => {
    const tokens = await authorize('read:profile');
    expect((await getMe(tokens.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token ?? '', options),
    );
    expect((await getMe(tokens.access_token)).status).toBe(401);
    const userinfo = await oauth.userInfoRequest(as, client, tokens.access_token, options);
    expect(userinfo.status).toBe(401);
    expect(userinfo.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('revokes an access token alone', async () => {
    const tokens = await authorize('read:profile');
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, {
        ...options,
        additionalParameters: { token_type_hint: 'access_token' },
      }),
    );
    expect((await getMe(tokens.access_token)).status).toBe(401);
  });
});
