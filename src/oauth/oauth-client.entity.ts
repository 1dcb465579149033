import { defineEntity, p } from '@mikro-orm/core';

export const CLIENT_TYPES = ['public', 'confidential'] as const;
export type ClientType = (typeof CLIENT_TYPES)[number];

/**
 * An application that may ask users for access. Public clients (dynamically registered, or created by a
 * developer without a secret) prove possession with PKCE only; confidential ones also hold a secret,
 * stored as a SHA-256 hash.
 */
export const OAuthClientEntity = defineEntity({
  name: 'OAuthClient',
  tableName: 'oauth_client',
  properties: {
    id: p.text().primary(),
    clientId: p.text().unique('oauth_client_client_id_key'),
    name: p.text(),
    redirectUris: p.array(),
    type: p.enum(CLIENT_TYPES),
    secretHash: p.text().nullable().hidden(),
    ownerUserId: p.text().nullable(),
    dynamicallyRegistered: p.boolean().default(false),
    createdAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
