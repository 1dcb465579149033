import { defineEntity, p } from '@mikro-orm/core';

export const PersonalAccessTokenEntity = defineEntity({
  name: 'PersonalAccessToken',
  tableName: 'personal_access_token',
  properties: {
    id: p.text().primary(),
    userId: p.text(),
    name: p.text(),
    tokenHash: p.text().hidden(),
    displayPrefix: p.text(),
    scopes: p.array(),
    expiresAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
  },
});
