/**
 * The `contact` projection as the service reads it. The table itself is described by its migrations alone
 * (no ORM entity): it is written only by contacts.projection.ts (set-based SQL under advisory locks) and read
 * with SQL, and its columns are described here once, with the row type, column lists and mapper derived from them.
 */
import { type SqlTimestamp, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { column, returningList, type RowOf } from '../../lib/table-columns.ts';
import type { Contact } from './contacts.schemas.ts';

/** The columns of a contact that the API shows. */
export const CONTACT_ROW_COLUMNS = {
  email: column<string>(),
  name: column<string | null>(),
  kind: column<'client' | 'lead'>(),
  status: column<string>(),
  meetings: column<number>(),
  no_shows: column<number>(),
  last_activity_at: column<SqlTimestamp | null>(),
  first_seen_at: column<SqlTimestamp | null>(),
};

/** The columns the projection writes but the API never shows: the contact's key and the text it is searched by. */
export const CONTACT_WRITE_ONLY_COLUMNS = {
  owner_id: column<string>(),
  email_key: column<string>(),
  search_text: column<string>(),
};

export type ContactRow = RowOf<typeof CONTACT_ROW_COLUMNS>;
export type ContactColumn = keyof typeof CONTACT_ROW_COLUMNS | keyof typeof CONTACT_WRITE_ONLY_COLUMNS;

/** The select list that produces a ContactRow from `contact`. */
export const CONTACT_COLUMNS = returningList(CONTACT_ROW_COLUMNS);

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
