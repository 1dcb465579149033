/**
 * The `lead` table as the service reads it. The table itself is described by its migrations alone (no ORM
 * entity): every query of it is SQL, and this is its one row type, select list and mapper.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import type { Lead } from './leads.schemas.ts';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** A lead joined with its event type's name and slug (the reference a Lead carries). */
export interface LeadRow {
  id: string;
  name: string | null;
  email: string;
  timezone: string;
  status: LeadStatus;
  event_type_id: string;
  event_type_name: string;
  event_type_slug: string;
  booking_id: string | null;
  created_at: SqlTimestamp;
  completed_at: SqlTimestamp | null;
}

/** The select list that produces a LeadRow from `lead l join event_type et on et.id = l.event_type_id`. */
export const LEAD_COLUMNS = `l.id, l.name, l.email, l.timezone, l.status, l.event_type_id,
  et.name as event_type_name, et.slug as event_type_slug, l.booking_id, l.created_at, l.completed_at`;

export const LEAD_FROM = 'lead l join event_type et on et.id = l.event_type_id';

export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    timezone: row.timezone,
    status: row.status,
    eventType: { id: row.event_type_id, name: row.event_type_name, slug: row.event_type_slug },
    booked: row.booking_id !== null,
    bookingId: row.booking_id,
    createdAt: toIsoString(row.created_at),
    completedAt: toIsoStringOrNull(row.completed_at),
  };
}

/** One of the owner's leads, or undefined. */
export async function readLead(em: EntityManager, ownerId: string, id: string): Promise<Lead | undefined> {
  const [row] = await em.execute<LeadRow[]>(`select ${LEAD_COLUMNS} from ${LEAD_FROM} where l.id = ? and l.owner_id = ?`, [
    id,
    ownerId,
  ]);
  return row ? toLead(row) : undefined;
}
