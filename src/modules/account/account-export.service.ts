import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';
import { getSchedule } from '../availability/schedule.service.ts';
import { BOOKING_COLUMNS, BOOKING_FROM, type BookingRow, toBooking } from '../bookings/booking.rows.ts';
import { listConnections } from '../calendars/calendars.service.ts';
import { CONTACT_COLUMNS, type ContactRow, toContact } from '../contacts/contact.rows.ts';
import { listEventTypes } from '../event-types/event-types.service.ts';
import { LEAD_COLUMNS, LEAD_FROM, type LeadRow, toLead } from '../leads/lead.rows.ts';
import { listWebhooks } from '../webhooks/webhooks.service.ts';
import type { AccountExport } from './account.schemas.ts';

/**
 * Everything the account holds, each resource as the API shows it, read in one REPEATABLE READ snapshot so the
 * parts agree (a booking's lead and contact are there with it). Secrets never leave: webhook endpoints come without
 * their signing secrets, calendar connections with their masked addresses, tokens not at all.
 */
export async function exportAccount(em: EntityManager, userId: string, siteUrl: string, now: Date): Promise<AccountExport> {
  return em.transactional(
    async (tx) => ({
      exportedAt: now.toISOString(),
      user: await exportedUser(tx, userId),
      eventTypes: await listEventTypes(tx, userId, siteUrl),
      schedule: await getSchedule(tx, userId),
      bookings: (
        await tx.execute<BookingRow[]>(`select ${BOOKING_COLUMNS} from ${BOOKING_FROM} where b.owner_id = ? order by b.start_at, b.id`, [userId])
      ).map(toBooking),
      leads: (await tx.execute<LeadRow[]>(`select ${LEAD_COLUMNS} from ${LEAD_FROM} where l.owner_id = ? order by l.created_at, l.id`, [userId])).map(
        toLead,
      ),
      contacts: (await tx.execute<ContactRow[]>(`select ${CONTACT_COLUMNS} from contact where owner_id = ? order by email_key`, [userId])).map(
        toContact,
      ),
      webhookEndpoints: await listWebhooks(tx, userId),
      calendarConnections: await listConnections(tx, userId),
    }),
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

type UserRow = { id: string; email: string; name: string | null; slug: string; timezone: string; plan: AccountExport['user']['plan']; created_at: SqlTimestamp };

async function exportedUser(tx: EntityManager, userId: string): Promise<AccountExport['user']> {
  const [user] = await tx.execute<UserRow[]>('select id, email, name, slug, timezone, plan, created_at from app_user where id = ?', [userId]);
  if (!user) throw notFound('User');
  const previous = await tx.execute<{ slug: string }[]>('select slug from user_slug where user_id = ? and slug <> ? order by created_at, slug', [
    userId,
    user.slug,
  ]);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    slug: user.slug,
    timezone: user.timezone,
    plan: user.plan,
    createdAt: toIsoString(user.created_at),
    previousSlugs: previous.map((row) => row.slug),
  };
}
