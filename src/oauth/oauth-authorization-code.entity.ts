import { defineEntity, p } from '@mikro-orm/core';

/** A single-use authorization code, bound to its grant (client, user, scopes, resource), redirect URI and PKCE challenge. */
export const OAuthAuthorizationCodeEntity = defineEntity({
  name: 'OAuthAuthorizationCode',
  tableName: 'oauth_authorization_code',
  properties: {
    id: p.text().primary(),
    codeHash: p.text().unique('oauth_authorization_code_code_hash_key').hidden(),
    grantId: p.text(),
    redirectUri: p.text(),
    /** Whether the authorization request named redirect_uri; if so the token request must repeat it. */
    redirectUriInRequest: p.boolean(),
    codeChallenge: p.text().nullable(),
    codeChallengeMethod: p.text().nullable(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});
