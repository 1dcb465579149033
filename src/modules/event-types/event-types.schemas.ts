import { z } from 'zod';
import { EVENT_TYPE_KINDS } from './event-type.entity.ts';
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';

export const EventTypeKindSchema = z.enum(EVENT_TYPE_KINDS).meta({ id: 'EventTypeKind' });

export const EventTypeSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    url: z.url().describe('The public booking page (for a secret event type, its private link).'),
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

export interface EventTypeRow {
  id: string;
  name: string;
  slug: string;
  kind: (typeof EVENT_TYPE_KINDS)[number];
  durationsMin: number[];
  bufferBeforeMin: number;
  bufferAfterMin: number;
  color: string;
  active: boolean;
  secret: boolean;
  privateLinkToken?: string | null;
  organizationId?: string | null;
  createdAt: SqlTimestamp;
  updatedAt: SqlTimestamp;
}

/** The public booking page of an event type; a secret one is reachable only with its private key. */
export function eventTypeUrl(siteUrl: string, ownerSlug: string, row: Pick<EventTypeRow, 'slug' | 'secret' | 'privateLinkToken'>): string {
  const base = `${siteUrl}/book/${encodeURIComponent(ownerSlug)}/${encodeURIComponent(row.slug)}`;
  return row.secret && row.privateLinkToken ? `${base}?key=${encodeURIComponent(row.privateLinkToken)}` : base;
}

export function toEventTypeDto(row: EventTypeRow, url: string): EventType {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    url,
    kind: row.kind,
    durationsMin: [...row.durationsMin],
    bufferBeforeMin: row.bufferBeforeMin,
    bufferAfterMin: row.bufferAfterMin,
    color: row.color,
    active: row.active,
    secret: row.secret,
    organizationId: row.organizationId ?? null,
    createdAt: toIsoString(row.createdAt),
    updatedAt: toIsoString(row.updatedAt),
  };
}
