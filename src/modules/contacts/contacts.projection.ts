import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { runWrites, type SqlWrite } from '../../lib/sql-writes.ts';
import { columnNames } from '../../lib/table-columns.ts';
import { type ContactColumn, CONTACT_ROW_COLUMNS } from './contact.rows.ts';

/**
 * The contacts projection: one row per (owner, lower-cased e-mail), derived from that owner's bookings (as
 * invitees) and leads. Every write to a booking or lead calls refreshContacts in the same transaction, so a page
 * of contacts is an index scan and never a merge on the fly. Field rules: docs/decisions.md, "Lists and paging".
 */
function summaryCtes(scope: 'one' | 'all', as: (cte: string) => string = (cte) => cte): Array<[string, string]> {
  const bookingFilter = scope === 'one' ? 'where owner_id = ? and lower(invitee_email) = ?' : '';
  const leadFilter = scope === 'one' ? 'where owner_id = ? and lower(email) = ?' : '';
  return [
    [
      as('events'),
      `select owner_id, lower(invitee_email) as email_key, invitee_email as email, invitee_name as name,
             created_at as at, true as is_booking, status = 'active' as is_active, no_show,
             canceled_at, null::text as lead_status
        from booking ${bookingFilter}
      union all
      select owner_id, lower(email), email, name, created_at, false, false, false, null, status
        from lead ${leadFilter}`,
    ],
    [
      as('summary'),
      `select owner_id, email_key,
             (array_agg(email order by at desc))[1] as email,
             (array_agg(name order by at desc) filter (where name is not null))[1] as name,
             bool_or(is_booking) as booked,
             count(*) filter (where is_active) as meetings,
             count(*) filter (where no_show) as no_shows,
             (array_agg(lead_status order by at desc) filter (where not is_booking))[1] as lead_status,
             greatest(max(at), max(canceled_at)) as last_activity_at,
             min(at) as first_seen_at
        from ${as('events')}
       group by owner_id, email_key`,
    ],
  ];
}

/** What the projection writes of a contact besides its key (owner_id, email_key): the columns shown, then the search text. */
const CONTACT_WRITTEN: ContactColumn[] = [...columnNames(CONTACT_ROW_COLUMNS), 'search_text'];

/** The select's expressions follow the insert's columns: the key, then CONTACT_WRITTEN. */
const contactInsert = (summary: string) => `
    insert into contact (owner_id, email_key, ${CONTACT_WRITTEN.join(', ')})
    select owner_id, email_key, email, name,
           case when booked then 'client' else 'lead' end,
           case when booked then 'client' else lead_status end,
           meetings, no_shows, last_activity_at, first_seen_at,
           lower(coalesce(name, '') || ' ' || email)
      from ${summary}`;

/**
 * One contact recomputed in one statement (parameters: owner and e-mail key, three times): its row written over
 * (upsert) when the person still has bookings or leads, deleted when not. The two sub-statements never touch
 * the same row, so their order within the statement does not matter. The transaction must hold the contact's
 * `contactLockKey` lock, taken in an earlier statement.
 */
export function contactRefreshWrite(ownerId: string, email: string): SqlWrite {
  const key = email.toLowerCase();
  return {
    label: 'contact.refresh',
    build: (as) => ({
      ctes: [
        ...summaryCtes('one', as),
        [
          as('upserted'),
          `${contactInsert(as('summary'))}
      on conflict (owner_id, email_key) do update
        set ${CONTACT_WRITTEN.map((name) => `${name} = excluded.${name}`).join(', ')}`,
        ],
      ],
      statement: `delete from contact where owner_id = ? and email_key = ? and not exists (select 1 from ${as('summary')})`,
    }),
    params: [ownerId, key, ownerId, key, ownerId, key],
  };
}

const REBUILD_ALL_SQL = `with ${summaryCtes('all')
  .map(([name, sql]) => `${name} as (${sql})`)
  .join(', ')}${contactInsert('summary')}`;

/**
 * The transaction-scoped advisory lock that serialises concurrent writers of one contact: the second recomputes
 * after the first commits, so neither overwrites the other with a stale count. Taken in a statement before the
 * refresh, which must read with a snapshot taken once the lock is granted.
 */
export function contactLockKey(ownerId: string, email: string): string {
  return `contact:${ownerId}:${email.toLowerCase()}`;
}

/** Recomputes the contact rows of these e-mail addresses; call it inside the transaction that changed them. */
export async function refreshContacts(em: EntityManager, ownerId: string, emails: readonly string[]): Promise<void> {
  // Sorted keys keep the lock order deadlock-free.
  for (const email of [...new Set(emails.map((address) => address.toLowerCase()))].sort()) {
    await executePrepared(em, 'contact.lock', 'select pg_advisory_xact_lock(hashtextextended(?, 0))', [contactLockKey(ownerId, email)]);
    await refreshLockedContact(em, ownerId, email);
  }
}

/** Recomputes one contact row; the transaction already holds its `contactLockKey` lock (taken in an earlier statement). */
export async function refreshLockedContact(em: EntityManager, ownerId: string, email: string): Promise<void> {
  await runWrites(em, [contactRefreshWrite(ownerId, email)]);
}

/** Rebuilds the whole projection from bookings and leads (scripts/rebuild-contacts.ts; after bulk loads). */
export async function rebuildAllContacts(em: EntityManager): Promise<number> {
  return em.transactional(async (tx) => {
    await tx.execute('lock table contact in exclusive mode');
    await tx.execute('delete from contact', [], 'run');
    const result = await tx.execute<{ affectedRows: number }>(REBUILD_ALL_SQL, [], 'run');
    return result.affectedRows;
  });
}
