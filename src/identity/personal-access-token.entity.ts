import { defineEntity, p } from '@mikro-orm/core';

export const PersonalAccessTokenEntity = defineEntity({
  name: 'PersonalAccessToken',
  tableName: 'personal_access_token',
  properties: {
    id: p.string().primary(),
    userId: p.string(),
    name: p.string(),
    tokenHash: p.string().hidden(),
    displayPrefix: p.string(),
    scopes: p.array(),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
