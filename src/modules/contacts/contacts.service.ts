import type { EntityManager } from '@mikro-orm/postgresql';
import { CONTACT_COLUMNS, type ContactRow, toContact } from './contact.rows.ts';
import type { Contact } from './contacts.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';

export interface ListContactsQuery {
  kind?: 'client' | 'lead';
  q?: string;
  offset: number;
  limit: number;
}

export interface ContactPage {
  data: Contact[];
  total: number;
  nextOffset: number | null;
}

/** `q` as a LIKE pattern that matches it literally anywhere: %, _ and \ lose their special meaning. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * A page of the contacts projection, most recent activity first (never-active contacts last, then by
 * e-mail). `q` matches name or e-mail case-insensitively, as a plain substring. The page and the total
 * come from ONE statement, hence one snapshot, so they always agree; the left join keeps a row (the
 * total) when the offset lies past the end.
 */
type ContactPageRow = Partial<ContactRow> & { total: string | number };

export async function listContacts(em: EntityManager, ownerId: string, query: ListContactsQuery): Promise<ContactPage> {
  const conditions = ['owner_id = ?'];
  const params: unknown[] = [ownerId];
  if (query.kind) {
    conditions.push('kind = ?');
    params.push(query.kind);
  }
  const q = query.q?.trim();
  if (q) {
    // search_text is lower(name || ' ' || email); lower() on both sides keeps PostgreSQL's case rules.
    conditions.push('search_text like lower(?)');
    params.push(containsPattern(q));
  }
  const where = conditions.join(' and ');
  const sql = `with total as (select count(*) as total from contact where ${where})
     select total.total, page.*
       from total left join lateral (
         select ${CONTACT_COLUMNS}
           from contact
          where ${where}
          order by last_activity_at desc nulls last, email_key
          limit ? offset ?
       ) page on true`;
  const values = [...params, ...params, query.limit, query.offset];
  // A search is planned for its actual pattern (a generic plan cannot use the trigram index for a LIKE pattern
  // it does not know), so only the plain listing is a prepared statement.
  const rows = q
    ? await em.execute<ContactPageRow[]>(sql, values)
    : await executePrepared<ContactPageRow>(em, 'contacts.list', sql, values);
  const total = Number(rows[0]?.total ?? 0);
  const end = query.offset + query.limit;
  return {
    data: rows.filter((row): row is ContactRow & { total: string | number } => row.email != null).map(toContact),
    total,
    nextOffset: end < total ? end : null,
  };
}
