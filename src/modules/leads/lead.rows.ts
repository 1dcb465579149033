/**
 * The `lead` table as the service reads it. The table itself is described by its migrations alone (no ORM
 * entity): every query of it is SQL, and its columns are described here once, with the row type, select list
 * and mapper that derive from them.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { column, type RowOf, selectList } from '../../lib/table-columns.ts';
import type { Lead, LeadStatus } from './leads.schemas.ts';

/** A lead joined with its event type's name and slug (the reference a Lead carries). */
export const LEAD_ROW_COLUMNS = {
  id: column<string>(),
  name: column<string | null>(),
  email: column<string>(),
  timezone: column<string>(),
  status: column<LeadStatus>(),
  event_type_id: column<string>(),
  event_type_name: column<string>('et.name'),
  event_type_slug: column<string>('et.slug'),
  booking_id: column<string | null>(),
  created_at: column<SqlTimestamp>(),
  completed_at: column<SqlTimestamp | null>(),
};

export type LeadRow = RowOf<typeof LEAD_ROW_COLUMNS>;

/** The select list that produces a LeadRow from LEAD_FROM. */
export const LEAD_COLUMNS = selectList('l', LEAD_ROW_COLUMNS);

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
