/**
 * A booking's e-mail as its host sees it: the list (every message and its fate), one message exactly as it goes
 * out (the kept mail of a service without SMTP included), and resending one that failed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { BookingMessage, MessageContent } from './booking-messages.schemas.ts';
import { composeMessage, holdsSeriesLinks, type MailSettings, manageLinksOf, messageIdOf, type StoredMessage } from './compose.ts';
import { MESSAGE_COLUMNS, type MessageRow, toBookingMessage } from './booking-message.rows.ts';
import { IN_SERIES_REASONS } from './message-plan.ts';

/** What the dashboard shows in place of the invitee's manage secret: it is theirs, never the host's to read. */
export const MASKED_MANAGE_TOKEN = 'bkm_…(the invitee’s private link)';

/** What a message's manage secret opens to, every token masked (see manageLinksOf). */
function maskedManageSecret(message: Pick<StoredMessage, 'kind' | 'facts'>): string {
  if (!holdsSeriesLinks(message)) return MASKED_MANAGE_TOKEN;
  return JSON.stringify(Object.fromEntries((message.facts.series?.occurrences ?? []).map((o) => [o.bookingId, MASKED_MANAGE_TOKEN])));
}

/** 404 unless the booking is the owner's. */
async function assertOwnBooking(em: EntityManager, ownerId: string, bookingId: string): Promise<{ status: string }> {
  const [booking] = await em.execute<{ status: string }[]>('select status from booking where id = ? and owner_id = ?', [bookingId, ownerId]);
  if (!booking) throw notFound('Booking');
  return booking;
}

/**
 * The booking's messages in the order they were written (a reminder when it was planned). On the occurrence that
 * holds its series' message of a kind (the series' one confirmation, request, cancellation or decline per
 * recipient), the occurrence's own skipped row of that kind ("announced in its series' …") is left out: it only
 * holds the occurrence's manage link for its later messages (message-outbox.ts), and beside the series' message it
 * would say that a mail listed right there was not sent. The other occurrences list theirs: it is where they say
 * which mail told of them.
 */
export async function listMessages(em: EntityManager, ownerId: string, bookingId: string): Promise<BookingMessage[]> {
  await assertOwnBooking(em, ownerId, bookingId);
  const rows = await em.execute<MessageRow[]>(
    `select ${MESSAGE_COLUMNS} from booking_message m
      where m.booking_id = ? and m.owner_id = ?
        and not (m.status = 'skipped' and m.facts -> 'series' is null
                 and m.last_error in (select jsonb_array_elements_text(?::jsonb))
                 and exists (select 1 from booking_message s
                              where s.booking_id = m.booking_id and s.kind = m.kind and s.facts -> 'series' is not null))
      order by m.position`,
    [bookingId, ownerId, JSON.stringify(IN_SERIES_REASONS)],
  );
  return rows.map(toBookingMessage);
}

async function readMessage(em: EntityManager, ownerId: string, bookingId: string, messageId: string): Promise<MessageRow & { has_manage_link: boolean }> {
  const [row] = await em.execute<(MessageRow & { has_manage_link: boolean })[]>(
    `select ${MESSAGE_COLUMNS}, m.manage_link is not null as has_manage_link
       from booking_message m where m.id = ? and m.booking_id = ? and m.owner_id = ?`,
    [messageId, bookingId, ownerId],
  );
  if (!row) throw notFound('Message');
  return row;
}

/** One message composed as it is sent, with the invitee's manage secret masked. */
export async function getMessageContent(
  em: EntityManager,
  ownerId: string,
  input: { id: string; messageId: string },
  settings: MailSettings,
): Promise<MessageContent> {
  const row = await readMessage(em, ownerId, input.id, input.messageId);
  const links = manageLinksOf(settings.siteUrl, row, row.has_manage_link ? maskedManageSecret(row) : null);
  const mail = await composeMessage(row, settings, links.url, links.occurrences);
  return {
    message: toBookingMessage(row),
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    messageIdHeader: `<${messageIdOf(row.id, settings.siteUrl)}>`,
    text: mail.text,
    html: mail.html,
    ics: mail.invitation?.content ?? null,
  };
}

/**
 * Sends a failed message again: a new message (its own id and Message-ID, `resentFrom` naming the failed one)
 * with the same content, due now; the failed one keeps its error. Only a failed message can be resent (409), and
 * not a reminder of a canceled booking.
 */
export async function resendMessage(
  em: EntityManager,
  ownerId: string,
  input: { id: string; messageId: string },
  now: Date,
): Promise<BookingMessage> {
  return em.transactional(async (tx) => {
    const booking = await assertOwnBooking(tx, ownerId, input.id);
    const failed = await readMessage(tx, ownerId, input.id, input.messageId);
    if (failed.status !== 'failed') {
      throw new DomainError('conflict', `Only a failed message can be sent again; this one is ${failed.status}.`);
    }
    if (failed.kind === 'reminder' && booking.status !== 'active') {
      throw new DomainError('conflict', 'This booking is canceled: its reminder is not sent again.');
    }
    const id = newId();
    await tx.execute(
      `insert into booking_message (id, booking_id, owner_id, kind, audience, recipient, time_zone, status, scheduled_for,
                                    next_attempt_at, offset_min, sequence, facts, manage_link, resent_from, created_at)
       select ?, booking_id, owner_id, kind, audience, recipient, time_zone, 'queued', ?, ?, offset_min, sequence, facts,
              manage_link, id, ?
         from booking_message where id = ?`,
      [id, now, now, now, failed.id],
      'run',
    );
    return toBookingMessage(await readMessage(tx, ownerId, input.id, id));
  });
}
