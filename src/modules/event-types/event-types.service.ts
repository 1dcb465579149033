import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlTimestamp } from '../../lib/sql-values.ts';
import type { EventTypeKind } from './event-type.entity.ts';
import { type EventType, eventTypeUrl, toEventTypeDto } from './event-types.schemas.ts';

interface EventTypeListRow {
  id: string;
  name: string;
  slug: string;
  kind: EventTypeKind;
  durations_min: number[];
  buffer_before_min: number;
  buffer_after_min: number;
  color: string;
  active: boolean;
  secret: boolean;
  private_link_token: string | null;
  organization_id: string | null;
  created_at: SqlTimestamp;
  updated_at: SqlTimestamp;
  owner_slug: string;
}

/** The event types the user owns (active or not), oldest first. */
export async function listEventTypes(em: EntityManager, ownerId: string, siteUrl: string): Promise<EventType[]> {
  const rows = await em.execute<EventTypeListRow[]>(
    `select et.id, et.name, et.slug, et.kind, et.durations_min, et.buffer_before_min, et.buffer_after_min,
            et.color, et.active, et.secret, et.private_link_token, et.organization_id, et.created_at, et.updated_at,
            u.slug as owner_slug
       from event_type et join app_user u on u.id = et.owner_id
      where et.owner_id = ?
      order by et.created_at, et.id`,
    [ownerId],
  );
  return rows.map((row) => {
    const eventType = {
      id: row.id,
      name: row.name,
      slug: row.slug,
      kind: row.kind,
      durationsMin: row.durations_min,
      bufferBeforeMin: row.buffer_before_min,
      bufferAfterMin: row.buffer_after_min,
      color: row.color,
      active: row.active,
      secret: row.secret,
      privateLinkToken: row.private_link_token,
      organizationId: row.organization_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
    return toEventTypeDto(eventType, eventTypeUrl(siteUrl, row.owner_slug, eventType));
  });
}
