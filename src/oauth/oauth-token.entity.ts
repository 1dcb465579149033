import { defineEntity, p } from '@mikro-orm/core';

/** A refresh token of a grant's family; strict rotation marks it rotated and points at its successor. */
export const OAuthRefreshTokenEntity = defineEntity({
  name: 'OAuthRefreshToken',
  tableName: 'oauth_refresh_token',
  properties: {
    id: p.text().primary(),
    tokenHash: p.text().unique('oauth_refresh_token_token_hash_key').hidden(),
    grantId: p.text(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    rotatedAt: p.datetime().nullable(),
    replacedBy: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});

/** An opaque access token; `scopes` may be narrower than the grant's, `resource` is its audience. */
export const OAuthAccessTokenEntity = defineEntity({
  name: 'OAuthAccessToken',
  tableName: 'oauth_access_token',
  properties: {
    id: p.text().primary(),
    tokenHash: p.text().unique('oauth_access_token_token_hash_key').hidden(),
    grantId: p.text(),
    /** The refresh token issued in the same response: rotating that one revokes this one. */
    refreshTokenId: p.text().nullable(),
    scopes: p.array(),
    resource: p.text().nullable(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});
