import type { EntityManager } from '@mikro-orm/postgresql';
import { openKeyset, type Page, sortKeySql } from '../../lib/keyset.ts';
import type { LeadStatus } from './lead.entity.ts';
import { LEAD_ROW_COLUMNS, type Lead, type LeadRow, toLeadDto } from './leads.schemas.ts';

export interface ListLeadsQuery {
  status?: LeadStatus;
  booked?: boolean;
  cursor?: string;
  limit: number;
}

type LeadPageRow = LeadRow & { sort_key: string };

/** The user's leads, newest first (created_at, then id, descending); keyset paging over lead_owner_created_idx. */
export async function listLeads(em: EntityManager, ownerId: string, query: ListLeadsQuery): Promise<Page<Lead>> {
  const keyset = await openKeyset(
    em,
    { resource: 'leads', userId: ownerId, filter: { status: query.status, booked: query.booked } },
    query.cursor,
  );
  const after = keyset.after;

  const conditions = ['l.owner_id = ?'];
  const params: unknown[] = [ownerId];
  if (query.status) {
    conditions.push('l.status = ?');
    params.push(query.status);
  }
  if (query.booked !== undefined) {
    conditions.push(query.booked ? 'l.booking_id is not null' : 'l.booking_id is null');
  }
  if (after) {
    conditions.push('(l.created_at, l.id) < (?::timestamptz, ?)');
    params.push(after.key, after.id);
  }
  params.push(query.limit + 1);
  const rows = await em.execute<LeadPageRow[]>(
    `select ${LEAD_ROW_COLUMNS}, ${sortKeySql('l.created_at')} as sort_key
       from lead l join event_type et on et.id = l.event_type_id
      where ${conditions.join(' and ')}
      order by l.created_at desc, l.id desc
      limit ?`,
    params,
  );
  return keyset.page(rows, query.limit, toLeadDto);
}
