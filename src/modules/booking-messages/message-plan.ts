/**
 * Which messages a booking change queues, to whom and when: pure functions of the booking's facts, the event
 * type's reminders and the time, unit-tested without a database. Each recipient gets a message of their own (an
 * invitee never sees another's address in To or Cc); guests are told what the invitee is told, without the
 * invitee's private manage link.
 */
import type { Reminder } from '../event-types/event-type.rows.ts';
import type { MessageAudience, MessageKind } from './booking-messages.schemas.ts';
import type { FactsWithoutHost } from './message-facts.ts';

/** One row to queue, as the queueing statement reads it (jsonb_to_recordset, hence the column names). */
export interface PlannedMessage {
  kind: MessageKind;
  audience: MessageAudience;
  /** Null for the host: the statement takes the booking's host's address and zone. */
  recipient: string | null;
  time_zone: string | null;
  status: 'scheduled' | 'queued' | 'skipped';
  scheduled_for: string;
  next_attempt_at: string | null;
  offset_min: number | null;
  last_error: string | null;
  /** The invitee's manage link, sealed (a confirmation of a booking made on the public page). */
  manage_link: string | null;
  /** The invitee's later messages carry the link their booking's first messages were given. */
  inherit_link: boolean;
}

export const SKIPPED = {
  pastAtBooking: 'not sent: its time had already passed when the booking was made',
  pastAtConfirm: 'not sent: its time had already passed when the booking was confirmed',
  pastAtMove: 'not sent: its time had already passed when the booking was moved',
  canceled: 'not sent: the booking was canceled',
  declined: 'not sent: the booking was declined',
  unplanned: 'not sent: the event type no longer has this reminder',
  started: 'not sent: the meeting had already started',
  inSeries: 'not sent: announced in its series\' confirmation',
  inSeriesRequest: 'not sent: announced in its series\' request',
  inSeriesCancellation: 'not sent: announced in its series\' cancellation',
  inSeriesDecline: 'not sent: announced in its series\' decline',
} as const;

/** The kinds a series sends once for its occurrences, and what each occurrence's skipped row of that kind says. */
export type SeriesKind = 'confirmation' | 'request' | 'cancellation' | 'decline';
const IN_SERIES: Record<SeriesKind, string> = {
  confirmation: SKIPPED.inSeries,
  request: SKIPPED.inSeriesRequest,
  cancellation: SKIPPED.inSeriesCancellation,
  decline: SKIPPED.inSeriesDecline,
};

/** What an occurrence's skipped row says when its series' one message announced it (each SeriesKind's). */
export const IN_SERIES_REASONS: readonly string[] = Object.values(IN_SERIES);

/**
 * An occurrence's part in a change that its series announces once (canceling the series, confirming or declining
 * its requests): the series' messages go on the first occurrence changed (`announces`), queued once every
 * occurrence has changed; each other one (`announced`) keeps a skipped invitee row saying so.
 */
export type SeriesPart = 'announces' | 'announced';

const MINUTE = 60_000;

interface Attendee {
  audience: 'invitee' | 'guest';
  email: string;
}

/** The invitee, then each guest once (an address the invitee or an earlier guest already has is left out). */
export function attendeesOf(facts: Pick<FactsWithoutHost, 'invitee' | 'guests'>): Attendee[] {
  const seen = new Set([facts.invitee.email.toLowerCase()]);
  const attendees: Attendee[] = [{ audience: 'invitee', email: facts.invitee.email }];
  for (const guest of facts.guests) {
    if (seen.has(guest.toLowerCase())) continue;
    seen.add(guest.toLowerCase());
    attendees.push({ audience: 'guest', email: guest });
  }
  return attendees;
}

function message(
  kind: MessageKind,
  to: Attendee | 'host',
  facts: FactsWithoutHost,
  fields: Pick<PlannedMessage, 'status' | 'scheduled_for' | 'next_attempt_at'> & Partial<PlannedMessage>,
): PlannedMessage {
  const host = to === 'host';
  return {
    kind,
    audience: host ? 'host' : to.audience,
    recipient: host ? null : to.email,
    time_zone: host ? null : facts.invitee.timezone,
    offset_min: null,
    last_error: null,
    manage_link: null,
    inherit_link: false,
    ...fields,
  };
}

/** Kinds that end the booking: the invitee has nothing left to manage, so they carry no manage link. */
const ENDINGS: readonly MessageKind[] = ['cancellation', 'decline'];

/**
 * A request, confirmation, update, cancellation or decline to the invitee, each guest and the host, due now. The
 * invitee's carry their manage link, except those that end the booking.
 */
export function announcements(kind: Exclude<MessageKind, 'reminder'>, facts: FactsWithoutHost, now: Date): PlannedMessage[] {
  const due = { status: 'queued' as const, scheduled_for: now.toISOString(), next_attempt_at: now.toISOString() };
  const forAttendee = (attendee: Attendee) =>
    message(kind, attendee, facts, { ...due, inherit_link: attendee.audience === 'invitee' && !ENDINGS.includes(kind) });
  return [...attendeesOf(facts).map(forAttendee), message(kind, 'host', facts, due)];
}

/**
 * A new booking's messages: its confirmation (a request, while it waits for the host) and its reminders. An
 * occurrence of a series (`inSeries`) is confirmed (or asked for) by the series' one message (seriesAnnouncements):
 * it keeps a skipped invitee confirmation (or request) that says so and holds its own manage link, for its later
 * messages to inherit.
 */
export function planNewBooking(facts: FactsWithoutHost, reminders: readonly Reminder[], now: Date, inSeries = false): PlannedMessage[] {
  const kind = facts.approval === 'pending' ? 'request' : 'confirmation';
  const announced = inSeries ? [seriesPlaceholder(kind, facts, now)] : announcements(kind, facts, now);
  return [...announced, ...planReminders(reminders, facts, now)];
}

/** An occurrence's message of `kind`, to the invitee, not sent (never due): its series' one announces it. */
function seriesPlaceholder(kind: SeriesKind, facts: FactsWithoutHost, now: Date): PlannedMessage {
  const invitee = { audience: 'invitee' as const, email: facts.invitee.email };
  const fields = { status: 'skipped' as const, scheduled_for: now.toISOString(), next_attempt_at: null, last_error: IN_SERIES[kind] };
  return message(kind, invitee, facts, { ...fields, inherit_link: !ENDINGS.includes(kind) });
}

/** A new series' one confirmation per recipient, or for a series of requests its one request. */
export function seriesAnnouncements(facts: FactsWithoutHost, now: Date): PlannedMessage[] {
  return announcements(facts.approval === 'pending' ? 'request' : 'confirmation', facts, now);
}

/**
 * A change's messages of `kind` for one booking: to everyone (announcements), or for an occurrence whose series
 * announces the change once (`series`, see SeriesPart) none on the one the series' messages go on, a skipped
 * invitee row on each other.
 */
export function changeAnnouncements(kind: SeriesKind, facts: FactsWithoutHost, now: Date, series?: SeriesPart): PlannedMessage[] {
  if (series === undefined) return announcements(kind, facts, now);
  return series === 'announces' ? [] : [seriesPlaceholder(kind, facts, now)];
}

/** A new booking's messages that carry the manage link get it here (there is no earlier message to take it from). */
export function withManageLink(messages: PlannedMessage[], sealedLink: string | undefined): PlannedMessage[] {
  if (!sealedLink) return messages;
  return messages.map((planned) => (planned.inherit_link ? { ...planned, manage_link: sealedLink, inherit_link: false } : planned));
}

/**
 * The reminders of a booking starting at `facts.startAt`; one whose time is not after `now` is skipped with
 * `pastReason`. A request (a booking waiting for the host's confirmation) has none: they are planned when it is
 * confirmed.
 */
export function planReminders(reminders: readonly Reminder[], facts: FactsWithoutHost, now: Date, pastReason: string = SKIPPED.pastAtBooking): PlannedMessage[] {
  if (facts.approval === 'pending') return [];
  const start = Date.parse(facts.startAt);
  const planned: PlannedMessage[] = [];
  for (const reminder of reminders) {
    const at = new Date(start - reminder.offsetMin * MINUTE);
    const past = at.getTime() <= now.getTime();
    const fields = {
      status: past ? ('skipped' as const) : ('scheduled' as const),
      scheduled_for: at.toISOString(),
      next_attempt_at: past ? null : at.toISOString(),
      offset_min: reminder.offsetMin,
      last_error: past ? pastReason : null,
    };
    const to: (Attendee | 'host')[] = [];
    if (reminder.to !== 'host') to.push(...attendeesOf(facts));
    if (reminder.to !== 'invitee') to.push('host');
    for (const recipient of to) {
      const invitee = recipient !== 'host' && recipient.audience === 'invitee';
      planned.push(message('reminder', recipient, facts, { ...fields, inherit_link: invitee }));
    }
  }
  return planned;
}

/** A reminder of the booking not sent yet. */
export interface WaitingReminder {
  id: string;
  offset_min: number;
  audience: MessageAudience;
  recipient: string;
}

export interface ReminderChanges {
  /** Waiting reminders that move to the new time (the host's also to the booking's host now). */
  moves: { id: string; status: PlannedMessage['status']; scheduled_for: string; next_attempt_at: string | null; last_error: string | null }[];
  /** Waiting reminders the event type no longer plans. */
  dropped: string[];
  /** Planned reminders no waiting one stands for (the earlier one was sent, or the booking had none). */
  added: PlannedMessage[];
}

function reminderKey(offsetMin: number | null, audience: MessageAudience, recipient: string | null): string {
  return audience === 'host' ? `${offsetMin}|host` : `${offsetMin}|${audience}|${(recipient ?? '').toLowerCase()}`;
}

/**
 * A reschedule moves the booking's waiting reminders to the new time, keeping each message; a reminder planned
 * for the new time that none stands for is added (unless its time has passed), and a waiting one the event type
 * no longer plans is dropped.
 */
export function replanReminders(planned: readonly PlannedMessage[], waiting: readonly WaitingReminder[]): ReminderChanges {
  const byKey = new Map(waiting.map((row) => [reminderKey(row.offset_min, row.audience, row.recipient), row]));
  const changes: ReminderChanges = { moves: [], dropped: [], added: [] };
  for (const plan of planned) {
    const key = reminderKey(plan.offset_min, plan.audience, plan.recipient);
    const row = byKey.get(key);
    if (row) {
      byKey.delete(key);
      const { status, scheduled_for, next_attempt_at, last_error } = plan;
      changes.moves.push({ id: row.id, status, scheduled_for, next_attempt_at, last_error });
    } else if (plan.status !== 'skipped') {
      changes.added.push(plan);
    }
  }
  changes.dropped = [...byKey.values()].map((row) => row.id);
  return changes;
}
