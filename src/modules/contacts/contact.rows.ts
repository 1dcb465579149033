/**
 * The `contact` projection as the service reads it. The table itself is described by its migrations alone
 * (no ORM entity): it is written only by contacts.projection.ts (set-based SQL under advisory locks) and read
 * with SQL, and this is its one row type, select list and mapper.
 */
import { type SqlTimestamp, toIsoStringOrNull } from '../../lib/sql-values.ts';
import type { Contact } from './contacts.schemas.ts';

/** The columns of a contact that the API shows. */
export interface ContactRow {
  email: string;
  name: string | null;
  kind: 'client' | 'lead';
  status: string;
  meetings: number;
  no_shows: number;
  last_activity_at: SqlTimestamp | null;
  first_seen_at: SqlTimestamp | null;
}

/** The select list that produces a ContactRow from `contact`. */
export const CONTACT_COLUMNS = 'email, name, kind, status, meetings, no_shows, last_activity_at, first_seen_at';

export function toContact(row: ContactRow): Contact {
  return {
    email: row.email,
    name: row.name,
    kind: row.kind,
    status: row.status,
    meetings: row.meetings,
    noShows: row.no_shows,
    lastActivityAt: toIsoStringOrNull(row.last_activity_at),
    firstSeenAt: toIsoStringOrNull(row.first_seen_at),
  };
}
