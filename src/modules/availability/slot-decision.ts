/**
 * What the booking code asks availability, and all it asks: the event type with its hosts' calendars for one
 * slot, and whether those hosts may take that interval. The decision is the slot engine's, for exactly that
 * slot, so a slot is bookable if and only if /availability offers it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import {
  availabilityParams,
  type AvailabilityRow,
  bookingLookSql,
  type CalendarRow,
  calendarsParams,
  calendarsSql,
  findEventType,
  type Host,
  hostMode,
  loadHostAvailability,
  readAvailabilityRows,
  slotRules,
  toCalendarHosts,
  toHostAvailability,
} from './availability.service.ts';
import { formatDay, type RuleRefusal, ruleRefusal } from './booking-rules.ts';
import { type CalendarHost, computeHostSlots, type HostAvailability, hostsFreeForSlot, type SlotRules } from './slots.ts';

const MINUTE = 60_000;

export interface SlotQuestion {
  eventType: EventTypeRecord;
  start: number;
  durationMin: number;
  now: Date;
  /** The hosts' calendars for the slot, read with the event type for a first look (without the limits' counts). */
  calendars?: CalendarHost[];
}

/**
 * Granted: the hosts free for the slot (every host, for a collective event type) and, when the decision read it,
 * which of them have a calendar that receives bookings. Refused: the 409 that says why.
 */
export type SlotDecision = { granted: true; hostIds: string[]; writeBackHostIds?: string[] } | { granted: false; refusal: DomainError };

export interface EventTypeForSlot {
  eventType: EventTypeRecord;
  /** The hosts' calendars for the slot, for a first look only: read without the hosts' locks or the limits' counts. */
  calendars?: CalendarHost[];
}

/** Takes the hosts' calendar locks: from then on, their busy time cannot change until the transaction ends. */
export type LockHosts = (hostIds: string[]) => Promise<void>;

/**
 * May these hosts take this interval? With `lockHosts`, a slot still offered is decided again under the hosts'
 * locks, from their busy time as it stands once the locks are held; a slot already gone is refused at once,
 * without queueing for the locks (most of a burst's losers). Without it, the caller holds the locks already.
 */
export async function decideSlot(tx: EntityManager, question: SlotQuestion, lockHosts?: LockHosts): Promise<SlotDecision> {
  const { eventType, start, durationMin, now } = question;
  const end = start + durationMin * MINUTE;
  const rules = slotRules(eventType, durationMin, now, start, end);
  const decide = (availability: readonly HostAvailability[]) => decideOn(eventType, rules, start, availability);
  // The hosts and their busy time in one statement (the one /availability reads), unless the caller has them;
  // a first look (lockHosts) goes without the limits' counts, read again under the locks.
  const counting = lockHosts ? 'no-counts' : 'counts';
  const calendars =
    question.calendars ??
    toCalendarHosts(
      await executePrepared<CalendarRow>(tx, 'booking.calendars', calendarsSql(eventType, counting), calendarsParams(eventType, start, end, now, counting)),
    );
  const first = decide(calendars.map(toHostAvailability));
  if (!first.granted || !lockHosts) return first;
  const hosts: Host[] = calendars.map(({ hostId, schedule }) => ({
    id: hostId,
    timeZone: schedule.timeZone,
    weekly: schedule.weekly,
    overrides: [...schedule.overrides],
  }));
  await lockHosts(hosts.map((host) => host.id));
  return decide(await loadHostAvailability(tx, eventType, hosts, start, end, now));
}

/**
 * The same decision on busy time the caller read itself under the hosts' locks (`loadHostAvailability`): a series
 * reads its hosts' time once for all its occurrences, and each is decided as decideSlot decides a single booking.
 */
export function decideOnAvailability(
  eventType: EventTypeRecord,
  start: number,
  durationMin: number,
  now: Date,
  availability: readonly HostAvailability[],
): SlotDecision {
  return decideOn(eventType, slotRules(eventType, durationMin, now, start, start + durationMin * MINUTE), start, availability);
}

/**
 * The event type to book (undefined when unknown, or not the owner's) and, for an owner, its hosts' calendars for
 * the slot in the same statement GET /availability runs (none when it is inactive: it is refused next). The
 * public page's has no owner to match, so its calendars are read with the decision.
 */
export async function readEventTypeForSlot(
  em: EntityManager,
  eventTypeId: string,
  ownerId: string | undefined,
  start: number,
  end: number,
  now: Date,
): Promise<EventTypeForSlot | undefined> {
  if (ownerId === undefined) {
    const eventType = await findEventType(em, eventTypeId);
    return eventType && { eventType };
  }
  const rows = await executePrepared<AvailabilityRow>(
    em,
    'booking.event-type-calendars',
    bookingLookSql,
    availabilityParams(eventTypeId, ownerId, start, end, now, 'no-counts'),
  );
  const read = readAvailabilityRows(rows);
  return read && { eventType: read.eventType, calendars: read.hosts };
}

/**
 * A refusal that does not depend on anyone else's bookings or holds: the time is in the past or within the
 * minimum notice, outside the booking window, or not a start the event type offers. Still a 409 for a booking (as
 * the API has always answered); a hold answers it as bad input (400 on its `startAt`).
 */
export class SlotNotOffered extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export function slotTaken(): DomainError {
  return new DomainError('conflict', 'That slot was just taken. Pick another slot from /availability.');
}

function decideOn(eventType: EventTypeRecord, rules: SlotRules, start: number, availability: readonly HostAvailability[]): SlotDecision {
  const hostIds = hostsFreeForSlot(rules, availability, hostMode(eventType.kind), start);
  if (!hostIds) return { granted: false, refusal: explainUnavailable(eventType, availability, rules, start) };
  const known = availability.every((host) => host.writesBack !== undefined);
  return known ? { granted: true, hostIds, writeBackHostIds: availability.filter((host) => host.writesBack).map((host) => host.hostId) } : { granted: true, hostIds };
}

/** Why the engine would not offer this slot, in the caller's terms (all 409). */
function explainUnavailable(
  eventType: EventTypeRecord,
  availability: readonly HostAvailability[],
  rules: SlotRules,
  start: number,
): DomainError {
  if (start < rules.now + rules.minNoticeMin * MINUTE) {
    return new SlotNotOffered(
      eventType.minNoticeMin > 0
        ? `That time is in the past or less than ${eventType.minNoticeMin} minutes from now (the event type's minimum notice).`
        : 'That time is in the past.',
    );
  }
  const ruled = ruleRefusalOf(eventType, availability, rules, start);
  if (ruled) return ruled.kind === 'booking_window' ? new SlotNotOffered(ruleMessage(ruled)) : new DomainError('conflict', ruleMessage(ruled));
  const unbooked = availability.map((host) => ({ ...host, busy: [], openSeats: [], counted: undefined }));
  const unruled = { ...rules, bookingWindow: null, limits: null };
  const onGrid = computeHostSlots(unruled, unbooked, hostMode(eventType.kind)).some((slot) => slot.start === start);
  if (!onGrid) {
    return new SlotNotOffered(
      `That time is not a start time this event type offers: outside the available hours or off its ${rules.stepMin}-minute grid. Pick a slot from /availability.`,
    );
  }
  return eventType.kind === 'group'
    ? new DomainError('conflict', 'That slot is full or overlaps another booking. Pick another slot from /availability.')
    : slotTaken();
}

/**
 * The window or limit that refuses the slot: for a team that must all be free, any host's; otherwise only when
 * every host is refused (the first one's reason is given).
 */
function ruleRefusalOf(
  eventType: EventTypeRecord,
  availability: readonly HostAvailability[],
  rules: SlotRules,
  start: number,
): RuleRefusal | undefined {
  const refusals = availability.map((host) => ruleRefusal(rules, host.schedule.timeZone, host.counted, start / MINUTE));
  if (hostMode(eventType.kind) === 'all') return refusals.find((refusal) => refusal !== undefined);
  return refusals.every((refusal) => refusal !== undefined) ? refusals[0] : undefined;
}

const PERIOD_WORDS = { daily_limit: 'a day', weekly_limit: 'a week', monthly_limit: 'a month' } as const;

function ruleMessage(refusal: RuleRefusal): string {
  const dates = refusal.first === refusal.last ? `on ${formatDay(refusal.first)}` : `from ${formatDay(refusal.first)} to ${formatDay(refusal.last)}`;
  if (refusal.kind === 'booking_window') {
    return `That date is outside this event type's booking window: it takes bookings only ${dates} (in the host's time zone). Pick a slot from /availability.`;
  }
  return `This event type takes at most ${refusal.limit} booking${refusal.limit === 1 ? '' : 's'} ${PERIOD_WORDS[refusal.kind]} per host, and ${dates} is full (in the host's time zone). Pick a slot from /availability.`;
}
