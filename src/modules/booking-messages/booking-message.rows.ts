/**
 * The `booking_message` table (the e-mail outbox) as the service reads it: SQL only, described here once. The
 * sealed manage link is never part of what the API selects.
 */
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { column, type RowOf, selectList } from '../../lib/table-columns.ts';
import type { BookingMessage, MessageAudience, MessageKind, MessageStatus } from './booking-messages.schemas.ts';
import type { MessageFacts } from './message-facts.ts';

export const MESSAGE_ROW_COLUMNS = {
  id: column<string>(),
  booking_id: column<string>(),
  owner_id: column<string>(),
  kind: column<MessageKind>(),
  audience: column<MessageAudience>(),
  recipient: column<string>(),
  time_zone: column<string>(),
  status: column<MessageStatus>(),
  scheduled_for: column<SqlTimestamp>(),
  sent_at: column<SqlTimestamp | null>(),
  attempts: column<number>(),
  last_error: column<string | null>(),
  server_reply: column<string | null>(),
  offset_min: column<number | null>(),
  sequence: column<number>(),
  facts: column<MessageFacts>(),
  resent_from: column<string | null>(),
  created_at: column<SqlTimestamp>(),
};

/** Written by the outbox and the worker, never read back into a MessageRow. */
export const MESSAGE_WRITE_ONLY_COLUMNS = {
  next_attempt_at: column<SqlTimestamp | null>(),
  manage_link: column<string | null>(),
};

export type MessageRow = RowOf<typeof MESSAGE_ROW_COLUMNS>;

export const MESSAGE_COLUMNS = selectList('m', MESSAGE_ROW_COLUMNS);

export function toBookingMessage(row: MessageRow): BookingMessage {
  return {
    id: row.id,
    kind: row.kind,
    audience: row.audience,
    recipient: row.recipient,
    status: row.status,
    scheduledFor: toIsoString(row.scheduled_for),
    sentAt: toIsoStringOrNull(row.sent_at),
    attempts: row.attempts,
    lastError: row.last_error,
    serverReply: row.server_reply,
    resentFrom: row.resent_from,
  };
}
