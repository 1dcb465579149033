import { defineEntity, p } from '@mikro-orm/core';

/** The per-user contacts projection, keyed by lower-cased e-mail; written only by contacts.projection.ts. */
export const ContactEntity = defineEntity({
  name: 'Contact',
  tableName: 'contact',
  properties: {
    ownerId: p.string().primary(),
    emailKey: p.string().primary(),
    email: p.string(),
    name: p.string().nullable(),
    kind: p.enum(['client', 'lead'] as const),
    status: p.string(),
    meetings: p.integer(),
    noShows: p.integer(),
    lastActivityAt: p.datetime().nullable(),
    firstSeenAt: p.datetime().nullable(),
    searchText: p.string(),
  },
});
