/**
 * The e-mail outbox of bookings: the messages a booking change causes, written in the transaction of that change
 * (a booking that rolls back sends nothing), one statement per change. Sending is the worker's
 * (message-worker.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { sealSecret } from '../../lib/sealed-secrets.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';
import type { Reminder } from '../event-types/event-type.rows.ts';
import { factsOf, type FactsWithoutHost } from './message-facts.ts';
import { announcements, planReminders, type PlannedMessage, replanReminders, SKIPPED, type WaitingReminder, withManageLink } from './message-plan.ts';

/** The facts as stored: the change's own, completed with the booking's host (`h`). */
const FACTS_SQL = `?::jsonb || jsonb_build_object('host', jsonb_build_object('name', coalesce(h.name, h.email), 'email', h.email, 'timezone', h.timezone))`;

/**
 * Inserts planned messages of booking `b` (parameters: facts, created_at, the messages as JSON, the booking's id),
 * none while its event type's e-mail is off (`notifications`, read here so that every change obeys it as it stands
 * in the change's transaction). The host's messages go to the booking's host; an invitee's message that inherits
 * the manage link takes the one the booking's earlier messages carry.
 */
const INSERT_SQL = `insert into booking_message (id, booking_id, owner_id, kind, audience, recipient, time_zone, status, scheduled_for,
                                  next_attempt_at, offset_min, last_error, sequence, facts, manage_link, created_at)
     select gen_random_uuid()::text, b.id, b.owner_id, m.kind, m.audience, coalesce(m.recipient, h.email), coalesce(m.time_zone, h.timezone),
            m.status, m.scheduled_for, m.next_attempt_at, m.offset_min, m.last_error, b.sequence, ${FACTS_SQL},
            case when m.manage_link is not null then m.manage_link
                 when m.inherit_link then (select p.manage_link from booking_message p where p.booking_id = b.id and p.manage_link is not null limit 1)
            end,
            ?
       from booking b join app_user h on h.id = b.host_id join event_type et on et.id = b.event_type_id
      cross join jsonb_to_recordset(?::jsonb) as m(kind text, audience text, recipient text, time_zone text, status text,
            scheduled_for timestamptz, next_attempt_at timestamptz, offset_min integer, last_error text, manage_link text, inherit_link boolean, n integer)
      where b.id = ? and et.notifications
      order by m.n`;

/** `n` keeps the messages in the plan's order (their `position`). */
function insertParams(facts: FactsWithoutHost, messages: PlannedMessage[], now: Date): unknown[] {
  return [JSON.stringify(facts), now, JSON.stringify(messages.map((message, n) => ({ ...message, n }))), facts.bookingId];
}

/** A new booking: the confirmations and the event type's reminders; the invitee's carry their manage link, sealed. */
export async function queueNewBookingMessages(
  tx: EntityManager,
  booking: Booking,
  reminders: readonly Reminder[],
  manageToken: string | undefined,
  now: Date,
): Promise<void> {
  const facts = factsOf(booking);
  if (!facts) return;
  const sealed = manageToken ? await sealSecret(tx, 'booking-manage-link', manageToken) : undefined;
  const messages = withManageLink([...announcements('confirmation', facts, now), ...planReminders(reminders, facts, now)], sealed);
  await executePrepared(tx, 'booking-message.queue', INSERT_SQL, insertParams(facts, messages, now));
}

/**
 * A rescheduled booking: updates to everyone, and its waiting reminders moved to the new time (see
 * replanReminders). Two statements: the waiting reminders, locked, then every change at once.
 */
export async function queueRescheduleMessages(
  tx: EntityManager,
  booking: Booking,
  previous: { startAt: string; endAt: string },
  reminders: readonly Reminder[],
  now: Date,
): Promise<void> {
  const facts = factsOf(booking, previous);
  if (!facts) return;
  const waiting = await tx.execute<WaitingReminder[]>(
    `select id, offset_min, audience, recipient from booking_message
      where booking_id = ? and kind = 'reminder' and status in ('scheduled', 'queued') for update`,
    [booking.id],
  );
  const changes = replanReminders(planReminders(reminders, facts, now, SKIPPED.pastAtMove), waiting);
  await tx.execute(
    `with moved as (
       update booking_message m
          set status = x.status, scheduled_for = x.scheduled_for, next_attempt_at = x.next_attempt_at, last_error = x.last_error,
              sequence = b.sequence, facts = ${FACTS_SQL},
              recipient = case when m.audience = 'host' then h.email else m.recipient end,
              time_zone = case when m.audience = 'host' then h.timezone else m.time_zone end
         from jsonb_to_recordset(?::jsonb) as x(id text, status text, scheduled_for timestamptz, next_attempt_at timestamptz, last_error text),
              booking b join app_user h on h.id = b.host_id
        where m.id = x.id and b.id = m.booking_id
     ), dropped as (
       update booking_message set status = 'skipped', next_attempt_at = null, last_error = ?
        where id in (select jsonb_array_elements_text(?::jsonb))
     )
     ${INSERT_SQL}`,
    [
      JSON.stringify(facts),
      JSON.stringify(changes.moves),
      SKIPPED.unplanned,
      JSON.stringify(changes.dropped),
      ...insertParams(facts, [...announcements('update', facts, now), ...changes.added], now),
    ],
    'run',
  );
}

/** A canceled booking: cancellations to everyone; its reminders not sent yet are dropped. */
export async function queueCancellationMessages(tx: EntityManager, booking: Booking, now: Date): Promise<void> {
  const facts = factsOf(booking);
  if (!facts) return;
  await tx.execute(
    `with dropped as (
       update booking_message set status = 'skipped', next_attempt_at = null, last_error = ?
        where booking_id = ? and kind = 'reminder' and status in ('scheduled', 'queued')
     )
     ${INSERT_SQL}`,
    [SKIPPED.canceled, booking.id, ...insertParams(facts, announcements('cancellation', facts, now), now)],
    'run',
  );
}
