import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { lockHostCalendars } from '../bookings/booking-transaction.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import { type AccountCaller, requirePassword } from './account.service.ts';

/**
 * Deletes the account after the password: foreign keys cascade from `app_user` to all the user's rows, and the
 * principal-change triggers make every instance drop the user's cached tokens as it commits. Upcoming bookings the
 * user hosts for other accounts are a 409; past ones go, and their owners' contacts are recomputed. The user's host
 * lock, taken first, waits for bookings in flight (docs/decisions.md, "Deleting the account").
 */
export async function deleteAccount(em: EntityManager, caller: AccountCaller, password: string): Promise<void> {
  await requirePassword(em, caller, password, 'password');
  await em.transactional(async (tx) => {
    await lockHostCalendars(tx, [caller.userId]);
    await refuseWhileHostingForOthers(tx, caller);
    const othersContacts = await tx.execute<{ owner_id: string; email: string }[]>(
      'select distinct owner_id, lower(invitee_email) as email from booking where host_id = ? and owner_id <> ?',
      [caller.userId, caller.userId],
    );
    await tx.execute(
      `delete from idempotency_key where principal in (
         select 'pat:' || id from personal_access_token where user_id = ?
         union all select 'oauth:' || id from oauth_grant where user_id = ?
         union all select 'session:' || id from user_session where user_id = ?)`,
      [caller.userId, caller.userId, caller.userId],
      'run',
    );
    // Failed sign-ins are kept by e-mail address, not by user: they would outlive the account for a day.
    await tx.execute('delete from login_attempt where email_key = (select lower(trim(email)) from app_user where id = ?)', [caller.userId], 'run');
    await tx.execute('delete from app_user where id = ?', [caller.userId], 'run');
    for (const [ownerId, emails] of groupByOwner(othersContacts)) await refreshContacts(tx, ownerId, emails);
  });
}

async function refuseWhileHostingForOthers(tx: EntityManager, caller: AccountCaller): Promise<void> {
  const [row] = await tx.execute<{ upcoming: string }[]>(
    `select count(*) as upcoming from booking
      where host_id = ? and owner_id <> ? and status = 'active' and end_at > ?`,
    [caller.userId, caller.userId, caller.now],
  );
  const upcoming = Number(row?.upcoming ?? 0);
  if (upcoming === 0) return;
  throw new DomainError(
    'conflict',
    `You host ${upcoming} upcoming booking${upcoming === 1 ? '' : 's'} of other accounts' event types. Ask their owners to cancel or move ${upcoming === 1 ? 'it' : 'them'} first.`,
  );
}

function groupByOwner(rows: readonly { owner_id: string; email: string }[]): Map<string, string[]> {
  const byOwner = new Map<string, string[]>();
  for (const row of rows) byOwner.set(row.owner_id, [...(byOwner.get(row.owner_id) ?? []), row.email]);
  return byOwner;
}
