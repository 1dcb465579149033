import { defineEntity, p } from '@mikro-orm/core';

/** A refresh token of a grant's family; strict rotation marks it rotated and points at its successor. */
export const OAuthRefreshTokenEntity = defineEntity({
  name: 'OAuthRefreshToken',
  tableName: 'oauth_refresh_token',
  properties: {
    id: p.string().primary(),
    tokenHash: p.string().unique().hidden(),
    grantId: p.string(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    rotatedAt: p.datetime().nullable(),
    replacedBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** An opaque access token; `scopes` may be narrower than the grant's, `resource` is its audience. */
export const OAuthAccessTokenEntity = defineEntity({
  name: 'OAuthAccessToken',
  tableName: 'oauth_access_token',
  properties: {
    id: p.string().primary(),
    tokenHash: p.string().unique().hidden(),
    grantId: p.string(),
    /** The refresh token issued in the same response: rotating that one revokes this one. */
    refreshTokenId: p.string().nullable(),
    scopes: p.array(),
    resource: p.string().nullable(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
