/**
 * The account's own e-mail (today the password reset link), apart from bookings' (booking_message belongs to a
 * booking): its outbox `account_message`, written in the transaction that causes it and sent by the account mail
 * worker through the same SMTP transport and layout. Without an SMTP server it is kept; its reader is signed out,
 * so the operator reads it with `npm run -s cli -- mail list|show` (this file's readers).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FORGOT_PASSWORD_PATH, PASSWORD_RESET_PREFIX, PASSWORD_RESET_TTL_MIN, passwordResetUrl } from '../../identity/password-reset-links.ts';
import { SealedSecretError, openSecret } from '../../lib/sealed-secrets.ts';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { type ComposedMail, type MailSettings, messageIdOf } from '../booking-messages/compose.ts';
import { renderHtml, renderText } from '../booking-messages/mail-layout.ts';
import type { MailContent } from '../booking-messages/templates/template.ts';

export type AccountMessageKind = 'password_reset';

/** What the message says about the account, as it was when it was queued. */
export interface AccountMessageFacts {
  name: string;
  /** When the link stops working. */
  expiresAt: string;
}

/** A queued message, as composing needs it. */
export interface StoredAccountMessage {
  id: string;
  kind: AccountMessageKind;
  recipient: string;
  facts: AccountMessageFacts;
  created_at: Date | string;
}

/** What the CLI shows in place of a link it no longer has: only the recipient ever gets a live one. */
export const LINK_NOT_KEPT = `${PASSWORD_RESET_PREFIX}…(not kept: sent, used or expired)`;

function passwordResetContent(message: StoredAccountMessage, settings: MailSettings, resetUrl: string): MailContent {
  const host = new URL(settings.siteUrl).host;
  return {
    subject: 'Choose a new password',
    heading: 'Choose a new password',
    paragraphs: [
      `Hello ${message.facts.name}, someone (we hope you) asked to reset the password of your account at ${host}.`,
      `The button below works once, within ${PASSWORD_RESET_TTL_MIN} minutes. Choosing a new password signs your account out everywhere.`,
      `If you did not ask for it, ignore this e-mail: your password stays as it is. A link that expired can be asked for again at ${settings.siteUrl}${FORGOT_PASSWORD_PATH}.`,
    ],
    details: [{ label: 'Account', value: message.recipient }],
    action: { label: 'Choose a new password', url: resetUrl },
  };
}

/** The mail of a stored message, with its reset link. */
export async function composeAccountMessage(message: StoredAccountMessage, settings: MailSettings, resetUrl: string): Promise<ComposedMail> {
  const content = passwordResetContent(message, settings, resetUrl);
  return {
    from: settings.from,
    to: message.recipient,
    subject: content.subject,
    messageId: messageIdOf(message.id, settings.siteUrl),
    text: renderText(content, settings.siteUrl, 'your account'),
    html: await renderHtml(content, settings.siteUrl, 'your account'),
    invitation: null,
  };
}

/**
 * The reset link a stored message carries, while it can still be used (sealed until then); null afterwards.
 * SealedSecretError when the sealed link does not open (a fault of the service, e.g. a lost server secret).
 */
export async function openResetLink(em: EntityManager, sealedLink: string | null, expiresAt: string, siteUrl: string, now: Date): Promise<string | null> {
  if (!sealedLink || Date.parse(expiresAt) <= now.getTime()) return null;
  return passwordResetUrl(siteUrl, await openSecret(em, 'password-reset-link', sealedLink));
}

export interface AccountMessageSummary {
  id: string;
  kind: AccountMessageKind;
  recipient: string;
  status: string;
  createdAt: string;
  sentAt: string | null;
  lastError: string | null;
  serverReply: string | null;
}

interface AccountMessageRow {
  id: string;
  kind: AccountMessageKind;
  recipient: string;
  status: string;
  created_at: SqlTimestamp;
  sent_at: SqlTimestamp | null;
  last_error: string | null;
  server_reply: string | null;
  facts: AccountMessageFacts;
  sealed_link: string | null;
}

const SUMMARY_COLUMNS = 'id, kind, recipient, status, created_at, sent_at, last_error, server_reply, facts, sealed_link';

function toSummary(row: AccountMessageRow): AccountMessageSummary {
  return {
    id: row.id,
    kind: row.kind,
    recipient: row.recipient,
    status: row.status,
    createdAt: toIsoString(row.created_at),
    sentAt: toIsoStringOrNull(row.sent_at),
    lastError: row.last_error,
    serverReply: row.server_reply,
  };
}

/** The latest account mail, newest first (of one address, compared case-insensitively, when given). */
export async function listAccountMessages(em: EntityManager, options: { email?: string | undefined; limit: number }): Promise<AccountMessageSummary[]> {
  const rows = await em.execute<AccountMessageRow[]>(
    `select ${SUMMARY_COLUMNS} from account_message
      where (?::text is null or lower(recipient) = lower(?::text))
      order by created_at desc, id desc limit ?`,
    [options.email ?? null, options.email ?? null, options.limit],
  );
  return rows.map(toSummary);
}

/** One message as it goes (or would have gone) out, its link in clear while it still works; undefined if unknown. */
export async function showAccountMessage(
  em: EntityManager,
  id: string,
  settings: MailSettings,
  now: Date,
): Promise<{ message: AccountMessageSummary; mail: ComposedMail; linkWorks: boolean } | undefined> {
  const [row] = await em.execute<AccountMessageRow[]>(`select ${SUMMARY_COLUMNS} from account_message where id = ?`, [id]);
  if (!row) return undefined;
  const link = await openResetLink(em, row.sealed_link, row.facts.expiresAt, settings.siteUrl, now).catch((error: unknown) => {
    if (error instanceof SealedSecretError) return null;
    throw error;
  });
  const mail = await composeAccountMessage(row, settings, link ?? passwordResetUrl(settings.siteUrl, LINK_NOT_KEPT));
  return { message: toSummary(row), mail, linkWorks: link !== null };
}
