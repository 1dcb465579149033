import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../lib/ids.ts';
import { refreshContacts } from '../contacts/contacts.projection.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { readLead } from './lead.rows.ts';

export interface LeadDetails {
  name?: string | undefined;
  email: string;
  timezone: string;
}

/**
 * Records that someone left their details on an event type's booking page without booking (yet).
 * One open lead per event type and e-mail (any letter case): leaving details again updates that lead
 * (name when given, time zone) instead of adding another. A later booking with the same e-mail on the
 * same event type converts it (see booking-creation.service.ts). The contact is refreshed in the same
 * transaction.
 */
export async function captureLead(
  em: EntityManager,
  eventType: { id: string; ownerId: string },
  details: LeadDetails,
  now: Date,
): Promise<void> {
  const email = details.email.trim();
  await em.transactional(async (tx) => {
    // Two concurrent captures of one person on one event type must not create two leads.
    await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`lead:${eventType.id}:${email.toLowerCase()}`]);
    const [open] = await tx.execute<{ id: string }[]>(
      `select id from lead
        where event_type_id = ? and lower(email) = lower(?) and booking_id is null
        order by created_at desc, id desc limit 1`,
      [eventType.id, email],
    );
    const leadId = open?.id ?? newId();
    if (open) {
      await tx.execute(
        'update lead set name = coalesce(?, name), email = ?, timezone = ?, updated_at = ? where id = ?',
        [details.name ?? null, email, details.timezone, now, open.id],
        'run',
      );
    } else {
      await tx.execute(
        `insert into lead (id, owner_id, event_type_id, name, email, timezone, status, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, 'new', ?, ?)`,
        [leadId, eventType.ownerId, eventType.id, details.name ?? null, email, details.timezone, now, now],
        'run',
      );
    }
    await refreshContacts(tx, eventType.ownerId, [email]);
    const lead = await readLead(tx, eventType.ownerId, leadId);
    await emitWebhookEvent(tx, eventType.ownerId, open ? 'lead.updated' : 'lead.created', lead, now);
  });
}
