import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { openKeyset, type Page, sortKeySql } from '../../lib/keyset.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { LEAD_COLUMNS, LEAD_FROM, type LeadRow, readLead, toLead } from './lead.rows.ts';
import type { Lead, LeadStatus } from './leads.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';

export interface ListLeadsQuery {
  status?: LeadStatus;
  booked?: boolean;
  cursor?: string;
  limit: number;
}

type LeadPageRow = LeadRow & { sort_key: string };

/** GET /leads/{id}: one of the owner's leads; 404 when it is not theirs. */
export async function getLead(em: EntityManager, ownerId: string, id: string): Promise<Lead> {
  const lead = await readLead(em, ownerId, id);
  if (!lead) throw notFound('Lead');
  return lead;
}

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
  const rows = await executePrepared<LeadPageRow>(
    em,
    'leads.list',
    `select ${LEAD_COLUMNS}, ${sortKeySql('l.created_at')} as sort_key
       from ${LEAD_FROM}
      where ${conditions.join(' and ')}
      order by l.created_at desc, l.id desc
      limit ?`,
    params,
  );
  return keyset.page(rows, query.limit, toLead);
}

/**
 * Sets the pipeline status of one of the user's leads (booked or not) and refreshes the person's contact in
 * the same transaction: a contact who has not booked shows the status of their most recent lead.
 */
export async function updateLeadStatus(
  em: EntityManager,
  ownerId: string,
  input: { id: string; status: LeadStatus },
  now: Date,
): Promise<Lead> {
  return em.transactional(async (tx) => {
    const [previous] = await tx.execute<{ status: LeadStatus }[]>(
      'select status from lead where id = ? and owner_id = ? for update',
      [input.id, ownerId],
    );
    if (!previous) throw notFound('Lead');
    const [updated] = await tx.execute<{ email: string }[]>(
      `update lead set status = ?, updated_at = case when status = ? then updated_at else ? end
        where id = ? and owner_id = ?
        returning email`,
      [input.status, input.status, now, input.id, ownerId],
    );
    await refreshContacts(tx, ownerId, [updated!.email]);
    const lead = await readLead(tx, ownerId, input.id);
    if (!lead) throw notFound('Lead');
    if (previous.status !== input.status) await emitWebhookEvent(tx, ownerId, 'lead.updated', lead, now);
    return lead;
  });
}
