/**
 * What every message template gives: its words, as plain text, laid out by mail-layout.ts into the HTML part
 * (MJML) and the text part. One template per kind of message (confirmation.ts, update.ts, cancellation.ts,
 * reminder.ts, request.ts, decline.ts), which hands a series' one message to its series template (series-*.ts);
 * each writes for the invitee, a guest or the host.
 */
import { locationSentence } from '../../bookings/booking-location-text.ts';
import type { MessageAudience } from '../booking-messages.schemas.ts';
import type { MessageFacts } from '../message-facts.ts';
import { formatMeetingTime } from '../message-time.ts';

export interface MailContent {
  subject: string;
  heading: string;
  paragraphs: string[];
  /** Label and value rows (the time, the place, the answers…); a row may end with a link of its own. */
  details: { label: string; value: string; link?: { label: string; url: string } }[];
  /** The one button, e.g. the invitee's manage link. */
  action: { label: string; url: string } | null;
}

export interface TemplateInput {
  facts: MessageFacts;
  audience: MessageAudience;
  /** The recipient's time zone: every time in the message is written in it. */
  zone: string;
  /** The invitee's private manage link (their own messages only). */
  manageUrl: string | null;
  /** A series' confirmation or request to the invitee: each occurrence's own manage link, by booking id. */
  occurrenceManageUrls?: Readonly<Record<string, string>>;
  /** A reminder's minutes before the start. */
  offsetMin: number | null;
  /** The host's dashboard, where requests are confirmed or declined. */
  dashboardUrl: string;
}

export type Template = (input: TemplateInput) => MailContent;

/** The meeting's time in the recipient's zone. */
export function when(input: TemplateInput): string {
  return formatMeetingTime(input.facts.startAt, input.facts.endAt, input.zone);
}

/** The meeting's title as the invitee's side sees it. */
export function meetingWithHost(facts: MessageFacts): string {
  return `${facts.eventTypeName} with ${facts.host.name}`;
}

/** Where the meeting happens, said to the reader (who calls whom); messages queued before `place` say the line. */
export function whereRow(input: TemplateInput): MailContent['details'] {
  const { facts } = input;
  const reader = { audience: input.audience, hostName: facts.host.name, inviteeName: facts.invitee.name };
  const text = facts.place ? locationSentence(facts.place, reader) : facts.location;
  return text ? [{ label: 'Where', value: text }] : [];
}

/** The invitee, their guests, notes and answers: what the host needs to know about who is coming. */
export function inviteeRows(facts: MessageFacts): MailContent['details'] {
  const rows = [{ label: 'Invitee', value: `${facts.invitee.name} <${facts.invitee.email}>` }];
  rows.push({ label: 'Invitee’s time zone', value: facts.invitee.timezone });
  if (facts.guests.length > 0) rows.push({ label: 'Guests', value: facts.guests.join(', ') });
  if (facts.notes) rows.push({ label: 'Notes', value: facts.notes });
  for (const answer of facts.answers) rows.push({ label: answer.questionId, value: answer.value });
  return rows;
}

/** The invitee's button to their manage page, when they have one. */
export function manageAction(input: TemplateInput): MailContent['action'] {
  return input.audience === 'invitee' && input.manageUrl ? { label: 'Reschedule or cancel', url: input.manageUrl } : null;
}

/** The host's button to the dashboard, on messages about a request that waits for them. */
export function confirmAction(input: TemplateInput): MailContent['action'] {
  return input.audience === 'host' ? { label: 'Confirm or decline', url: input.dashboardUrl } : null;
}

/** Who canceled, in the recipient's words. */
export function canceledBy(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  if (input.audience === 'host') return byHost ? 'You canceled' : `${facts.invitee.name} canceled`;
  if (byHost) return `${facts.host.name} canceled`;
  return input.audience === 'invitee' ? 'You canceled' : `${facts.invitee.name} canceled`;
}

/** Whose request, in the recipient's words. */
export function whoseRequest(input: TemplateInput): string {
  return input.audience === 'invitee' ? 'your' : `${input.facts.invitee.name}’s`;
}

/** Whose request was canceled, in the recipient's words. */
export function whoseCanceledRequest(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  if (input.audience === 'host') return byHost ? `${facts.invitee.name}’s` : 'their';
  if (byHost) return whoseRequest(input);
  return input.audience === 'invitee' ? 'your' : 'their';
}
