import { defineEntity, p } from '@mikro-orm/core';

export const EVENT_TYPE_KINDS = ['one_on_one', 'group', 'round_robin', 'collective'] as const;
export type EventTypeKind = (typeof EVENT_TYPE_KINDS)[number];

export const EventTypeEntity = defineEntity({
  name: 'EventType',
  tableName: 'event_type',
  properties: {
    id: p.string().primary(),
    ownerId: p.string(),
    name: p.string(),
    slug: p.string(),
    kind: p.enum(EVENT_TYPE_KINDS),
    durationsMin: p.array(Number).columnType('integer[]'),
    bufferBeforeMin: p.integer().default(0),
    bufferAfterMin: p.integer().default(0),
    minNoticeMin: p.integer().default(0),
    slotIntervalMin: p.integer().nullable(),
    seatsPerSlot: p.integer().default(1),
    color: p.string().default('#2563eb'),
    active: p.boolean().default(true),
    secret: p.boolean().default(false),
    /** SHA-256 of the private link's key (a bearer secret, never stored in clear). */
    privateLinkKeyHash: p.string().nullable().hidden(),
    organizationId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

/** The hosts of round-robin and collective event types; other kinds are hosted by their owner alone. */
export const EventTypeHostEntity = defineEntity({
  name: 'EventTypeHost',
  tableName: 'event_type_host',
  properties: {
    eventTypeId: p.string().primary(),
    userId: p.string().primary(),
  },
});
