/**
 * The e-mail outbox of bookings: the messages a booking change causes, written in the transaction of that change
 * (a booking that rolls back sends nothing), one statement per change. Sending is the worker's
 * (message-worker.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { openSecret, sealSecret } from '../../lib/sealed-secrets.ts';
import type { SqlWrite } from '../../lib/sql-writes.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';
import type { Reminder } from '../event-types/event-type.rows.ts';
import { factsOf, type FactsWithoutHost, seriesFactsOf, type SeriesRef } from './message-facts.ts';
import {
  announcements,
  changeAnnouncements,
  planNewBooking,
  planReminders,
  type PlannedMessage,
  replanReminders,
  seriesAnnouncements,
  type SeriesPart,
  SKIPPED,
  type WaitingReminder,
  withManageLink,
} from './message-plan.ts';

/** The facts as stored: the change's own, completed with the booking's host (`h`). */
const FACTS_SQL = `?::jsonb || jsonb_build_object('host', jsonb_build_object('name', coalesce(h.name, h.email), 'email', h.email, 'timezone', h.timezone))`;

/**
 * Inserts planned messages of booking `b` (parameters: facts, created_at, the messages as JSON, the booking's id),
 * none while its event type's e-mail is off (`notifications`, read here so that every change obeys it as it stands
 * in the change's transaction). The host's messages go to the booking's host; an invitee's message that inherits
 * the manage link takes the one the booking's earlier messages carry (never a series' message's, which holds every
 * occurrence's).
 */
const INSERT_SQL = `insert into booking_message (id, booking_id, owner_id, kind, audience, recipient, time_zone, status, scheduled_for,
                                  next_attempt_at, offset_min, last_error, sequence, facts, manage_link, created_at)
     select gen_random_uuid()::text, b.id, b.owner_id, m.kind, m.audience, coalesce(m.recipient, h.email), coalesce(m.time_zone, h.timezone),
            m.status, m.scheduled_for, m.next_attempt_at, m.offset_min, m.last_error, b.sequence, ${FACTS_SQL},
            case when m.manage_link is not null then m.manage_link
                 when m.inherit_link then (select p.manage_link from booking_message p
                                       where p.booking_id = b.id and p.manage_link is not null and p.facts -> 'series' is null
                                       limit 1)
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

/** The planned messages' insert, to run alone or with the booking's other writes. */
function messagesWrite(facts: FactsWithoutHost, messages: PlannedMessage[], now: Date): SqlWrite {
  return { label: 'booking-message.queue', build: () => ({ statement: INSERT_SQL }), params: insertParams(facts, messages, now) };
}

/**
 * A new booking's messages: the confirmations and the event type's reminders, or for a booking that waits for the
 * host's confirmation the request messages alone (its reminders come with the confirmation). The invitee's carry
 * their manage link, sealed. An occurrence of a series (`inSeries`) is confirmed by queueNewSeriesMessages instead.
 * Undefined when there is nothing to send.
 */
export async function newBookingMessagesWrite(
  tx: EntityManager,
  booking: Booking,
  reminders: readonly Reminder[],
  manageToken: string | undefined,
  now: Date,
  inSeries = false,
): Promise<SqlWrite | undefined> {
  const facts = factsOf(booking);
  if (!facts) return undefined;
  const messages = planNewBooking(facts, reminders, now, inSeries);
  if (messages.length === 0) return undefined;
  const sealed = manageToken ? await sealSecret(tx, 'booking-manage-link', manageToken) : undefined;
  return messagesWrite(facts, withManageLink(messages, sealed), now);
}

/**
 * A new series: one confirmation (or, for a series of requests, one request) per recipient telling of every
 * occurrence, on the first occurrence (its messages list it, the dashboard shows it there); the invitee's carries
 * every occurrence's manage link (`manageTokens`, by booking id), sealed together as one JSON object (compose's
 * manageLinksOf opens it). The occurrences were written with their reminders and a skipped confirmation (or
 * request) holding their own link (queueNewBookingMessages, `inSeries`).
 */
export async function queueNewSeriesMessages(
  tx: EntityManager,
  occurrences: readonly Booking[],
  series: SeriesRef,
  manageTokens: Readonly<Record<string, string>>,
  now: Date,
): Promise<void> {
  const facts = seriesFactsOf(occurrences, series);
  if (!facts) return;
  const sealed = Object.keys(manageTokens).length > 0 ? await sealSecret(tx, 'booking-manage-link', JSON.stringify(manageTokens)) : undefined;
  await executePrepared(tx, 'booking-message.queue', INSERT_SQL, insertParams(facts, withManageLink(seriesAnnouncements(facts, now), sealed), now));
}

/**
 * A change's announcements (`announced`), and the booking's waiting reminders planned again for `facts` (see
 * replanReminders). Two statements: the waiting reminders, locked, then every change at once.
 */
async function queueWithReminders(
  tx: EntityManager,
  facts: FactsWithoutHost,
  announced: PlannedMessage[],
  reminders: readonly Reminder[],
  now: Date,
  pastReason: string,
): Promise<void> {
  const waiting = await tx.execute<WaitingReminder[]>(
    `select id, offset_min, audience, recipient from booking_message
      where booking_id = ? and kind = 'reminder' and status in ('scheduled', 'queued') for update`,
    [facts.bookingId],
  );
  const changes = replanReminders(planReminders(reminders, facts, now, pastReason), waiting);
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
      ...insertParams(facts, [...announced, ...changes.added], now),
    ],
    'run',
  );
}

/** A rescheduled booking: updates to everyone, and its waiting reminders moved to the new time. */
export async function queueRescheduleMessages(
  tx: EntityManager,
  booking: Booking,
  previous: { startAt: string; endAt: string },
  reminders: readonly Reminder[],
  now: Date,
): Promise<void> {
  const facts = factsOf(booking, previous);
  if (!facts) return;
  await queueWithReminders(tx, facts, announcements('update', facts, now), reminders, now, SKIPPED.pastAtMove);
}

/**
 * A request the host confirmed: the confirmations (the invitee's and guests' with the invitation, the host's a
 * note) and the event type's reminders, planned now; the invitee's confirmation takes the manage link their
 * request carried. An occurrence confirmed with its series (`series`) gets its reminders here and its confirmation
 * from queueSeriesConfirmationMessages.
 */
export async function queueConfirmationMessages(tx: EntityManager, booking: Booking, reminders: readonly Reminder[], now: Date, series?: SeriesPart): Promise<void> {
  const facts = factsOf(booking);
  if (!facts) return;
  const confirmed = { ...facts, approval: 'confirmed' as const };
  await queueWithReminders(tx, confirmed, changeAnnouncements('confirmation', confirmed, now, series), reminders, now, SKIPPED.pastAtConfirm);
}

/**
 * Messages that end a booking (a cancellation or a decline) to everyone, or its part in its series' one
 * (`series`); its reminders not sent yet are dropped.
 */
async function queueEnding(
  tx: EntityManager,
  facts: FactsWithoutHost,
  kind: 'cancellation' | 'decline',
  dropReason: string,
  now: Date,
  series: SeriesPart | undefined,
): Promise<void> {
  await tx.execute(
    `with dropped as (
       update booking_message set status = 'skipped', next_attempt_at = null, last_error = ?
        where booking_id = ? and kind = 'reminder' and status in ('scheduled', 'queued')
     )
     ${INSERT_SQL}`,
    [dropReason, facts.bookingId, ...insertParams(facts, changeAnnouncements(kind, facts, now, series), now)],
    'run',
  );
}

/**
 * A canceled booking: cancellations to everyone (or its part in its series' one, `series`). `wasPending`: it was
 * still a request, so the invitee's side holds no invitation to withdraw.
 */
export async function queueCancellationMessages(tx: EntityManager, booking: Booking, wasPending: boolean, now: Date, series?: SeriesPart): Promise<void> {
  const facts = factsOf(booking);
  if (!facts) return;
  await queueEnding(tx, wasPending ? { ...facts, approval: 'pending' } : facts, 'cancellation', SKIPPED.canceled, now, series);
}

/** A declined request: the invitee and guests learn it (with the host's reason), the host gets a note (or its series does, `series`). */
export async function queueDeclineMessages(tx: EntityManager, booking: Booking, expired: boolean, now: Date, series?: SeriesPart): Promise<void> {
  const facts = factsOf(booking);
  if (!facts) return;
  await queueEnding(tx, { ...facts, declined: { reason: booking.declineReason ?? null, expired } }, 'decline', SKIPPED.declined, now, series);
}

/** Each booking's iCalendar SEQUENCE as it stands in this transaction. */
async function sequencesOf(tx: EntityManager, bookings: readonly Booking[]): Promise<Map<string, number>> {
  const rows = await tx.execute<{ id: string; sequence: number }[]>('select id, sequence from booking where id in (select jsonb_array_elements_text(?::jsonb))', [
    JSON.stringify(bookings.map((booking) => booking.id)),
  ]);
  return new Map(rows.map((row) => [row.id, row.sequence]));
}

/** Inserts a series' one message of a change per recipient on its first occurrence concerned (`facts`). */
async function queueSeriesChange(tx: EntityManager, facts: FactsWithoutHost, messages: PlannedMessage[], now: Date): Promise<void> {
  await executePrepared(tx, 'booking-message.queue', INSERT_SQL, insertParams(facts, messages, now));
}

/**
 * A series canceled at once: one cancellation per recipient on the first canceled occurrence, listing every
 * canceled one; the invitation cancels each one's event (its UID, its new SEQUENCE), except those that were still
 * requests (they had none). The occurrences were canceled with their part (`series`) first: their reminders
 * dropped, each other one's skipped cancellation written.
 */
export async function queueSeriesCancellationMessages(
  tx: EntityManager,
  canceled: readonly { booking: Booking; wasPending: boolean }[],
  series: SeriesRef,
  now: Date,
): Promise<void> {
  const sequences = await sequencesOf(tx, canceled.map((entry) => entry.booking));
  const requests = new Set(canceled.filter((entry) => entry.wasPending).map((entry) => entry.booking.id));
  const facts = seriesFactsOf(
    canceled.map((entry) => entry.booking),
    series,
    (booking) => ({ sequence: sequences.get(booking.id) ?? 0, ...(requests.has(booking.id) ? { request: true } : {}) }),
  );
  if (!facts) return;
  // Only when every occurrence was a request is the series' cancellation a request's (no invitation at all).
  const ended = requests.size === canceled.length ? { ...facts, approval: 'pending' as const } : facts;
  await queueSeriesChange(tx, ended, announcements('cancellation', ended, now), now);
}

/**
 * The host confirmed a series' requests at once: one confirmation per recipient on the first confirmed occurrence,
 * its invitation an event per occurrence (each its own SEQUENCE); the invitee's carries each occurrence's own manage
 * link, taken from the occurrence's earlier messages and sealed together (as a new series' confirmation does). The
 * occurrences were confirmed with their part (`series`) first: their reminders planned, each other one's skipped
 * confirmation written.
 */
export async function queueSeriesConfirmationMessages(tx: EntityManager, confirmed: readonly Booking[], series: SeriesRef, now: Date): Promise<void> {
  const sequences = await sequencesOf(tx, confirmed);
  const facts = seriesFactsOf(confirmed, series, (booking) => ({ sequence: sequences.get(booking.id) ?? 0 }));
  if (!facts) return;
  const sealed = await occurrenceLinks(tx, confirmed);
  const messages = withManageLink(announcements('confirmation', { ...facts, approval: 'confirmed' }, now), sealed);
  await queueSeriesChange(tx, { ...facts, approval: 'confirmed' }, messages, now);
}

/**
 * A series' requests declined at once, by the host or, `expired`, because nobody confirmed them before the first one
 * started: one decline per recipient on the first declined occurrence, listing every declined one, with the host's
 * reason. The occurrences were declined with their part (`series`) first.
 */
export async function queueSeriesDeclineMessages(
  tx: EntityManager,
  declined: readonly Booking[],
  series: SeriesRef,
  now: Date,
  expired = false,
): Promise<void> {
  const facts = seriesFactsOf(declined, series);
  if (!facts) return;
  const ended = { ...facts, declined: { reason: declined[0]!.declineReason ?? null, expired } };
  await queueSeriesChange(tx, ended, announcements('decline', ended, now), now);
}

/**
 * The occurrences' own manage links (each held by its earlier messages, never by a series' message), opened and
 * sealed again together as one JSON object by booking id; none when no occurrence has one (a series booked
 * through the API).
 */
async function occurrenceLinks(tx: EntityManager, occurrences: readonly Booking[]): Promise<string | undefined> {
  const rows = await tx.execute<{ booking_id: string; manage_link: string }[]>(
    `select distinct on (booking_id) booking_id, manage_link from booking_message
      where booking_id in (select jsonb_array_elements_text(?::jsonb)) and manage_link is not null and facts -> 'series' is null
      order by booking_id, position`,
    [JSON.stringify(occurrences.map((booking) => booking.id))],
  );
  if (rows.length === 0) return undefined;
  const tokens: Record<string, string> = {};
  for (const row of rows) tokens[row.booking_id] = await openSecret(tx, 'booking-manage-link', row.manage_link);
  return sealSecret(tx, 'booking-manage-link', JSON.stringify(tokens));
}
