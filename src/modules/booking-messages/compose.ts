/**
 * A queued message as it goes out: headers, the text and HTML parts from its kind's template, and for the
 * invitee's side of a confirmation, update or cancellation the invitation (not while the booking is a request).
 * Pure apart from MJML's one-time compilation: the same stored message always composes to the same mail (the
 * dashboard shows it so).
 */
import { locationSentence, meetingLink } from '../bookings/booking-location-text.ts';
import type { MessageAudience, MessageKind } from './booking-messages.schemas.ts';
import { bookingUid, invitationFile } from './invitation.ts';
import { renderHtml, renderText } from './mail-layout.ts';
import type { MessageFacts, SeriesOccurrence } from './message-facts.ts';
import { attendeesOf } from './message-plan.ts';
import { cancellation } from './templates/cancellation.ts';
import { confirmation } from './templates/confirmation.ts';
import { decline } from './templates/decline.ts';
import { reminder } from './templates/reminder.ts';
import { request } from './templates/request.ts';
import type { Template } from './templates/template.ts';
import { update } from './templates/update.ts';

const TEMPLATES: Record<MessageKind, Template> = { confirmation, update, cancellation, reminder, request, decline };

/** A message as stored in the outbox (what composing needs of it). */
export interface StoredMessage {
  id: string;
  kind: MessageKind;
  audience: MessageAudience;
  recipient: string;
  time_zone: string;
  offset_min: number | null;
  sequence: number;
  facts: MessageFacts;
  created_at: Date | string;
}

export interface MailSettings {
  siteUrl: string;
  /** The From header (MAIL_FROM). */
  from: string;
}

export interface ComposedMail {
  from: string;
  to: string;
  subject: string;
  /** Without angle brackets, as nodemailer takes it. */
  messageId: string;
  text: string;
  html: string;
  invitation: { method: 'REQUEST' | 'CANCEL'; content: string } | null;
}

export function mailSettingsOf(env: { SITE_URL: string; MAIL_FROM: string }): MailSettings {
  return { siteUrl: env.SITE_URL, from: env.MAIL_FROM };
}

/** The invitee's manage page for a manage token. */
export function manageUrlOf(siteUrl: string, token: string): string {
  return `${siteUrl}/book/manage/${token}`;
}

/** The invitee's manage links of a message: its booking's, and in a series' message each occurrence's. */
export interface ManageLinks {
  url: string | null;
  /** By booking id (a series' confirmation or request only). */
  occurrences: Readonly<Record<string, string>>;
}

/**
 * Whether a message's sealed link holds its series' manage tokens (a JSON object by booking id) rather than one:
 * a series' message (its confirmation or request; its cancellation and decline carry no link).
 */
export function holdsSeriesLinks(message: Pick<StoredMessage, 'kind' | 'facts'>): boolean {
  return Boolean(message.facts.series);
}

/** The links of a message from its opened manage secret (see holdsSeriesLinks); the button is its booking's. */
export function manageLinksOf(siteUrl: string, message: Pick<StoredMessage, 'kind' | 'facts'>, opened: string | null): ManageLinks {
  if (!opened) return { url: null, occurrences: {} };
  if (!holdsSeriesLinks(message) || !opened.startsWith('{')) return { url: manageUrlOf(siteUrl, opened), occurrences: {} };
  const tokens = JSON.parse(opened) as Record<string, string>;
  const occurrences = Object.fromEntries(Object.entries(tokens).map(([bookingId, token]) => [bookingId, manageUrlOf(siteUrl, token)]));
  return { url: occurrences[message.facts.bookingId] ?? null, occurrences };
}

/** The Message-ID of a message: the same on every attempt, so a repeat after a crash is recognisably the same mail. */
export function messageIdOf(id: string, siteUrl: string): string {
  return `${id}@${new URL(siteUrl).hostname}`;
}

/**
 * Whether the message carries the invitation: the invitee's and guests' confirmations, updates and cancellations,
 * except while the booking is a request (an invitation comes with its confirmation; a request's decline or
 * cancellation has none to withdraw). The host is the event's organizer and gets none.
 */
function carriesInvitation(message: StoredMessage): boolean {
  if (message.audience === 'host') return false;
  if (message.kind === 'confirmation') return true;
  if (message.kind === 'update' || message.kind === 'cancellation') return message.facts.approval !== 'pending';
  return false;
}

/** Where (said to the reader) and, in the invitee's copy, the manage link (of that event, in a series' invitation). */
function invitationDescription(message: StoredMessage, manageUrl: string | null | undefined): string {
  const { facts } = message;
  const reader = { audience: message.audience, hostName: facts.host.name, inviteeName: facts.invitee.name };
  const where = facts.place ? [`Where: ${locationSentence(facts.place, reader)}`] : [];
  const manage = manageUrl ? [`To cancel or reschedule: ${manageUrl}`] : [];
  return [...where, ...manage].join('\n\n') || `${facts.eventTypeName} with ${facts.host.name}`;
}

/**
 * The bookings a message's invitation holds: a series' message tells of every occurrence concerned, except, in a
 * cancellation, those that were still requests (they had no invitation to withdraw).
 */
function bookingsOf(message: StoredMessage): SeriesOccurrence[] {
  const { facts } = message;
  if (facts.series) return facts.series.occurrences.filter((occurrence) => !(message.kind === 'cancellation' && occurrence.request));
  return [{ bookingId: facts.bookingId, startAt: facts.startAt, endAt: facts.endAt }];
}

function invitationOf(message: StoredMessage, settings: MailSettings, links: ManageLinks): ComposedMail['invitation'] {
  if (!carriesInvitation(message)) return null;
  const { facts } = message;
  const method = message.kind === 'cancellation' ? 'CANCEL' : 'REQUEST';
  const bookings = bookingsOf(message);
  if (bookings.length === 0) return null;
  const content = invitationFile({
    method,
    events: bookings.map((booking) => ({
      uid: bookingUid(booking.bookingId, settings.siteUrl),
      start: new Date(booking.startAt),
      end: new Date(booking.endAt),
      description: invitationDescription(message, holdsSeriesLinks(message) && links.occurrences[booking.bookingId] ? links.occurrences[booking.bookingId] : links.url),
      // A series' change lists each occurrence's own; a new series' occurrences share the first one's (new) sequence.
      sequence: booking.sequence ?? message.sequence,
    })),
    stamp: new Date(message.created_at),
    zone: message.time_zone,
    summary: `${facts.eventTypeName} with ${facts.host.name}`,
    location: facts.location,
    url: meetingLink(facts.place ?? null),
    organizer: { name: facts.host.name, email: facts.host.email },
    attendees: attendeesOf(facts).map(({ audience, email }) => (audience === 'invitee' ? { name: facts.invitee.name, email } : { email })),
  });
  return { method, content };
}

/**
 * The mail of a stored message; `manageUrl` is the invitee's manage link, `occurrenceManageUrls` in a series'
 * confirmation each occurrence's (their messages only).
 */
export async function composeMessage(
  message: StoredMessage,
  settings: MailSettings,
  manageUrl: string | null,
  occurrenceManageUrls: Readonly<Record<string, string>> = {},
): Promise<ComposedMail> {
  const invitee = message.audience === 'invitee';
  const links: ManageLinks = invitee ? { url: manageUrl, occurrences: occurrenceManageUrls } : { url: null, occurrences: {} };
  const link = links.url;
  const content = TEMPLATES[message.kind]({
    facts: message.facts,
    audience: message.audience,
    zone: message.time_zone,
    manageUrl: link,
    occurrenceManageUrls: links.occurrences,
    offsetMin: message.offset_min,
    dashboardUrl: `${settings.siteUrl}/app/bookings`,
  });
  return {
    from: settings.from,
    to: message.recipient,
    subject: content.subject,
    messageId: messageIdOf(message.id, settings.siteUrl),
    text: renderText(content, settings.siteUrl),
    html: await renderHtml(content, settings.siteUrl),
    invitation: invitationOf(message, settings, links),
  };
}
