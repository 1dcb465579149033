/**
 * Why one slot is or is not offered. The verdict is the slot engine's own (slots.ts, for the slot's window, as
 * booking creation decides it); the reasons come from a list of producers, one per rule, each built on the
 * engine's own pieces (its grid, windows, buffer test and seat rule). A new rule is one more producer.
 */
import { type Intervals, MINUTE_MS, normalizeIntervals } from './intervals.ts';
import {
  type CalendarHost,
  computeSlotStarts,
  type Grid,
  gridOf,
  hostHours,
  joinsOpenSeat,
  keepsClear,
  noticeEdge,
  type Schedule,
  type SlotRules,
  teamHours,
} from './slots.ts';
import type { ScheduleHours } from './schedule-intervals.ts';
import { formatDay, localDay, type RuleRefusal, RuleBooks, ruleRefusals } from './booking-rules.ts';

/** One reason a slot is not offered; `hostId` says whose time it is (absent when it concerns the whole team). */
export type SlotReason =
  | { kind: 'inactive' }
  | { kind: 'minimum_notice'; minNoticeMin: number; earliestStart: string }
  | { kind: 'outside_working_hours'; hostId: string }
  | { kind: 'date_override'; hostId: string; date: string }
  | { kind: 'slot_interval'; stepMin: number; hostId?: string }
  | { kind: 'booked'; hostId: string; bookingId?: string }
  | { kind: 'buffer'; hostId: string; bookingId?: string }
  | { kind: 'seats_full'; hostId: string }
  | { kind: 'calendar_busy'; hostId: string; connectionId?: string; connectionName?: string }
  | { kind: 'pending'; hostId: string; bookingId?: string }
  | { kind: 'held'; hostId: string }
  | { kind: 'booking_window'; hostId: string; firstDate: string; lastDate: string }
  | { kind: 'daily_limit' | 'weekly_limit' | 'monthly_limit'; hostId: string; limit: number; firstDate: string; lastDate: string };

/** One busy block of a host as the explanation reads it: epoch minutes, with the bookings the caller may see. */
export interface BusyEntry {
  /** Busy time, both events' buffers included, rounded outward to minutes as the engine reads it. */
  busy: readonly [number, number];
  /** The booked meeting itself (may be fractional minutes). */
  meeting: readonly [number, number];
  /** Ids of the block's bookings that the caller may read (none for another user's booking). */
  bookingIds: readonly string[];
  /** A group block of this event type: whether it still has seats. */
  seats?: 'open' | 'full';
  /** Every booking on the block is the caller's and waits for the host's confirmation. */
  pending?: boolean;
  /** The block is a live slot hold's (never whose). */
  held?: boolean;
}

/** Busy time from one of the host's connected calendars, epoch minutes rounded outward as the engine reads it. */
export interface CalendarBusyEntry {
  busy: readonly [number, number];
  /** The connection, when the caller owns it (a team host's calendars stay anonymous). */
  connection?: { id: string; name: string };
}

export interface ExplainHost {
  hostId: string;
  schedule: Schedule;
  busy: readonly BusyEntry[];
  calendarBusy: readonly CalendarBusyEntry[];
  /** Pairs (start minute, seats) of the host's busy blocks of this event type, when it has limits. */
  counted?: ArrayLike<number>;
}

export interface SlotQuestionFacts {
  /** The engine's rules for the slot's own window: `from` = the slot's start, `to` = its end. */
  rules: SlotRules;
  mode: 'any' | 'all';
  active: boolean;
  hosts: readonly ExplainHost[];
}

export interface SlotExplanation {
  available: boolean;
  hosts: { hostId: string; available: boolean }[];
  reasons: SlotReason[];
}

interface HostContext extends ExplainHost {
  calendar: CalendarHost;
  hours: ScheduleHours;
}

/** What every producer reads, computed once per question. */
export interface SlotContext {
  rules: SlotRules;
  grid: Grid;
  /** Slot start and end, epoch minutes (fractional when the start is not on a whole minute). */
  start: number;
  end: number;
  mode: 'any' | 'all';
  active: boolean;
  hosts: readonly HostContext[];
}

export type ReasonProducer = (slot: SlotContext) => SlotReason[];

const inactive: ReasonProducer = (slot) => (slot.active ? [] : [{ kind: 'inactive' }]);

/** No slot starts before now plus the minimum notice (0 notice: nothing in the past). */
const minimumNotice: ReasonProducer = ({ rules, start }) => {
  const earliest = noticeEdge(rules);
  if (start >= earliest) return [];
  return [{ kind: 'minimum_notice', minNoticeMin: rules.minNoticeMin, earliestStart: new Date(earliest * MINUTE_MS).toISOString() }];
};

/** Each host's own hours (a date override replaces its day's weekly hours). */
const workingHours: ReasonProducer = ({ hosts, start, end }) =>
  hosts.filter((host) => !fits(host.hours, start, end)).map((host) => outsideHours(host, start, end));

function outsideHours(host: ExplainHost, start: number, end: number): SlotReason {
  const { timeZone, overrides } = host.schedule;
  // The engine's cached offsets (an Intl call per date was a fifth of the explain property test).
  const dates = new Set([formatDay(localDay(start * MINUTE_MS, timeZone)), formatDay(localDay(end * MINUTE_MS - 1, timeZone))]);
  const override = overrides.find((candidate) => dates.has(candidate.date));
  return override ? { kind: 'date_override', hostId: host.hostId, date: override.date } : { kind: 'outside_working_hours', hostId: host.hostId };
}

/**
 * Slots start at the start of a local date's hours and every step after it, on whole minutes; for a team
 * (collective) the hours all hosts share. Hosts outside their hours are left to workingHours.
 */
const slotInterval: ReasonProducer = ({ rules, hosts, start, end, grid, mode }) => {
  if (!Number.isInteger(start)) return [{ kind: 'slot_interval', stepMin: grid.step }];
  const offGrid = (hours: ScheduleHours) => {
    const anchor = anchorOf(hours.anchors, start);
    return fits(hours, start, end) && anchor !== undefined && (start - anchor) % grid.step !== 0;
  };
  if (mode === 'all') {
    const everyoneWorks = hosts.every((host) => fits(host.hours, start, end));
    return everyoneWorks && offGrid(teamHours(rules, hosts.map((host) => host.calendar)))
      ? [{ kind: 'slot_interval', stepMin: grid.step }]
      : [];
  }
  return hosts.filter((host) => offGrid(host.hours)).map((host) => ({ kind: 'slot_interval', stepMin: grid.step, hostId: host.hostId }));
};

/**
 * Busy blocks the slot (with the buffers) runs into: the meeting itself (`booked`), only the buffers around it
 * (`buffer`), or a full group slot (`seats_full`). Joining a group slot with seats left overrides them all.
 */
const bookedTime: ReasonProducer = ({ hosts, start, end, grid, mode }) =>
  hosts.flatMap((host) => {
    if (mode === 'any' && joinsOpenSeat(host.calendar.openSeats, start, grid)) return [];
    return host.busy
      .filter((entry) => !keepsClear(entry.busy[0], entry.busy[1], start, grid))
      .flatMap((entry) => busyReasons(host.hostId, entry, start, end));
  });

function busyReasons(hostId: string, entry: BusyEntry, start: number, end: number): SlotReason[] {
  const [meetingStart, meetingEnd] = entry.meeting;
  if (entry.seats === 'full' && meetingStart === start && meetingEnd === end) return [{ kind: 'seats_full', hostId }];
  const meetingKind = entry.held ? 'held' : entry.pending ? 'pending' : 'booked';
  const kind = meetingStart < end && meetingEnd > start ? meetingKind : 'buffer';
  if (entry.bookingIds.length === 0 || kind === 'held') return [{ kind, hostId }];
  return entry.bookingIds.map((bookingId) => ({ kind, hostId, bookingId }));
}

/** Busy time in a connected calendar that the slot (with its buffers) runs into; an open group seat overrides it. */
const calendarBusyTime: ReasonProducer = ({ hosts, start, grid, mode }) =>
  hosts.flatMap((host) => {
    if (mode === 'any' && joinsOpenSeat(host.calendar.openSeats, start, grid)) return [];
    return host.calendarBusy
      .filter((entry) => !keepsClear(entry.busy[0], entry.busy[1], start, grid))
      .map((entry): SlotReason => ({
        kind: 'calendar_busy',
        hostId: host.hostId,
        ...(entry.connection ? { connectionId: entry.connection.id, connectionName: entry.connection.name } : {}),
      }));
  });

/** The booking window and the limits, in each host's zone (booking-rules.ts, as the engine applies them). */
const bookingRules: ReasonProducer = ({ rules, hosts, start }) =>
  hosts.flatMap((host) => ruleRefusals(rules, host.schedule.timeZone, host.counted, start).map((refusal) => ruleReason(host.hostId, refusal)));

function ruleReason(hostId: string, refusal: RuleRefusal): SlotReason {
  const dates = { firstDate: formatDay(refusal.first), lastDate: formatDay(refusal.last) };
  return refusal.kind === 'booking_window' ? { kind: refusal.kind, hostId, ...dates } : { kind: refusal.kind, hostId, limit: refusal.limit, ...dates };
}

/** Every rule, in the order its reasons are listed. A new rule adds one. */
export const REASON_PRODUCERS: readonly ReasonProducer[] = [
  inactive,
  minimumNotice,
  bookingRules,
  workingHours,
  slotInterval,
  bookedTime,
  calendarBusyTime,
];

/** The engine's verdict on one slot, per host and overall, with every reason it is not offered. */
export function explainSlot(facts: SlotQuestionFacts): SlotExplanation {
  const { mode } = facts;
  // The engine is asked about each host more than once below: each host's window and limits are worked out once.
  const rules = facts.rules.ruleBooks ? facts.rules : { ...facts.rules, ruleBooks: new RuleBooks() };
  const hosts = facts.hosts.map((host): HostContext => {
    const calendar = toEngineHost(host);
    return { ...host, calendar, hours: hostHours(rules, calendar) };
  });
  const slot: SlotContext = {
    rules,
    grid: gridOf(rules)!,
    start: rules.from / MINUTE_MS,
    end: rules.from / MINUTE_MS + rules.durationMin,
    mode,
    active: facts.active,
    hosts,
  };
  const offers = (calendars: CalendarHost[]) => facts.active && computeSlotStarts(rules, calendars, mode).includes(slot.start);
  const team = mode === 'all' && offers(hosts.map((host) => host.calendar));
  const perHost = hosts.map((host) => ({ hostId: host.hostId, available: mode === 'all' ? team : offers([host.calendar]) }));
  return {
    available: perHost.length > 0 && (mode === 'all' ? perHost.every((h) => h.available) : perHost.some((h) => h.available)),
    hosts: perHost,
    reasons: REASON_PRODUCERS.flatMap((produce) => produce(slot)),
  };
}

/** A host as the engine takes it, from the same blocks the reasons read. */
export function toEngineHost(host: ExplainHost): CalendarHost {
  const busy: number[] = [];
  const openSeats = new Map<number, number>();
  for (const entry of host.busy) {
    busy.push(entry.busy[0], entry.busy[1]);
    if (entry.seats === 'open') openSeats.set(entry.meeting[0], entry.meeting[1]);
  }
  for (const entry of host.calendarBusy) busy.push(entry.busy[0], entry.busy[1]);
  return { hostId: host.hostId, schedule: host.schedule, busy: normalizeIntervals(busy), openSeats, counted: host.counted };
}

/** Whether one of the windows holds [start, end). */
function fits(hours: ScheduleHours, start: number, end: number): boolean {
  const { windows } = hours;
  for (let i = 0; i < windows.length; i += 2) if (windows[i]! <= start && end <= windows[i + 1]!) return true;
  return false;
}

/** The start of the anchor holding `start`, if one does: the grid a start there lies on. */
function anchorOf(anchors: Intervals, start: number): number | undefined {
  for (let i = 0; i < anchors.length; i += 2) if (anchors[i]! <= start && start < anchors[i + 1]!) return anchors[i];
  return undefined;
}
