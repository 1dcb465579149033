import { defineEntity, p } from '@mikro-orm/core';

/** A single-use authorization code, bound to its grant (client, user, scopes, resource), redirect URI and PKCE challenge. */
export const OAuthAuthorizationCodeEntity = defineEntity({
  name: 'OAuthAuthorizationCode',
  tableName: 'oauth_authorization_code',
  properties: {
    id: p.string().primary(),
    codeHash: p.string().unique().hidden(),
    grantId: p.string(),
    redirectUri: p.string(),
    /** Whether the authorization request named redirect_uri; if so the token request must repeat it. */
    redirectUriInRequest: p.boolean(),
    codeChallenge: p.string().nullable(),
    codeChallengeMethod: p.string().nullable(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
