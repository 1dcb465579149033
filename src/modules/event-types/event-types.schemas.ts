import { z } from 'zod';
import { EVENT_TYPE_KINDS, type EventTypeRecord } from './event-type.rows.ts';

export const EventTypeKindSchema = z.enum(EVENT_TYPE_KINDS).meta({ id: 'EventTypeKind' });

export const EventTypeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    url: z
      .url()
      .describe(
        'The public booking page. For a secret event type, the private link (with its `?key=`) only in the response ' +
          'that created the key (creation, turning `secret` on, POST /event-types/{id}/private-link): the key is ' +
          'stored hashed and cannot be shown again; every other response gives the page without the key.',
      ),
    kind: EventTypeKindSchema,
    durationsMin: z.array(z.int()).describe('Allowed durations in minutes; the first is the default.'),
    bufferBeforeMin: z.int(),
    bufferAfterMin: z.int(),
    color: z.string(),
    active: z.boolean(),
    secret: z.boolean(),
    organizationId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'EventType' });

export type EventType = z.infer<typeof EventTypeSchema>;

/** The `{id, name, slug}` reference bookings and leads carry. */
export const EventTypeRefSchema = z
  .object({ id: z.string(), name: z.string(), slug: z.string() })
  .meta({ id: 'EventTypeRef' });

/**
 * The public booking page of an event type. A secret one is reachable only with its private link's key,
 * which only its creator (or a visitor who was given the link) knows: pass it when known.
 */
export function eventTypeUrl(siteUrl: string, ownerSlug: string, slug: string, privateLinkKey?: string): string {
  const base = `${siteUrl}/book/${encodeURIComponent(ownerSlug)}/${encodeURIComponent(slug)}`;
  return privateLinkKey ? `${base}?key=${encodeURIComponent(privateLinkKey)}` : base;
}

export function toEventTypeDto(eventType: EventTypeRecord, url: string): EventType {
  return {
    id: eventType.id,
    name: eventType.name,
    slug: eventType.slug,
    url,
    kind: eventType.kind,
    durationsMin: [...eventType.durationsMin],
    bufferBeforeMin: eventType.bufferBeforeMin,
    bufferAfterMin: eventType.bufferAfterMin,
    color: eventType.color,
    active: eventType.active,
    secret: eventType.secret,
    organizationId: eventType.organizationId,
    createdAt: eventType.createdAt.toISOString(),
    updatedAt: eventType.updatedAt.toISOString(),
  };
}
