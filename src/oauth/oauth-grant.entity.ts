import { defineEntity, p } from '@mikro-orm/core';

/** One approved authorization: user × client × scopes × resource. Owns its codes and its token family. */
export const OAuthGrantEntity = defineEntity({
  name: 'OAuthGrant',
  tableName: 'oauth_grant',
  properties: {
    id: p.text().primary(),
    userId: p.text(),
    /** The client's row id (oauth_client.id), not its public client_id. */
    clientId: p.text(),
    scopes: p.array(),
    /** The RFC 8707 resource the tokens are bound to; null when the client named none. */
    resource: p.text().nullable(),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
    revokedReason: p.text().nullable(),
  },
});
