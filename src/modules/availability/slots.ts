/**
 * The slot engine: pure functions from a schedule, the event type's rules and the hosts' busy time to the
 * bookable slots of a window, so the same function decides what /availability offers and what POST /bookings
 * accepts. The grid starts at each local date's own hours, never where the window asked for begins, so windows
 * agree where they overlap. Time is whole epoch minutes over normalized interval lists (intervals.ts): a call is
 * linear in days + busy intervals + slots. The rules: docs/decisions.md, "Schedules and availability".
 */
import {
  busyMinutes,
  type Intervals,
  intersectIntervals,
  MINUTE_MS,
  normalizeIntervals,
  unionIntervals,
} from './intervals.ts';
import { type Schedule, scheduleHours, type ScheduleHours } from './schedule-intervals.ts';
import type { BookingLimits, BookingWindow } from '../event-types/event-type.rows.ts';
import { type RuleBooks, startAllowance, teamAllowance } from './booking-rules.ts';

export type { Schedule } from './schedule-intervals.ts';

/** A half-open range of instants [start, end), epoch milliseconds. */
export interface TimeRange {
  start: number;
  end: number;
}

export interface SlotRules {
  durationMin: number;
  /** Distance between two slot starts of one window, minutes. */
  stepMin: number;
  bufferBeforeMin: number;
  bufferAfterMin: number;
  minNoticeMin: number;
  /** Epoch milliseconds, like `from` and `to`. */
  now: number;
  from: number;
  to: number;
  /** The dates a slot may start on, in each host's zone (booking-rules.ts); absent or null: any. */
  bookingWindow?: BookingWindow | null;
  /** Bookings per host per day, week, month; a full period offers nothing. Needs each host's `counted`. */
  limits?: BookingLimits | null;
  /** The hosts' window and limits worked out once per request (booking-rules.ts); copies of the rules share it. */
  ruleBooks?: RuleBooks;
}

/** One host as the engine takes it: busy time already in minutes and normalized. */
export interface CalendarHost {
  hostId: string;
  schedule: Schedule;
  /** Normalized busy intervals, epoch minutes, buffers included. */
  busy: Intervals;
  /** Start minute -> end minute of group blocks of this event type that still have seats. */
  openSeats?: ReadonlyMap<number, number>;
  /** Pairs (start minute, seats taken) of the host's busy blocks of this event type, for the limits. */
  counted?: ArrayLike<number>;
}

/**
 * Start minutes (increasing) of the slots for one or several hosts; every slot lasts `rules.durationMin`.
 * `any`: a slot is offered when at least one host is free (round robin); `all`: only when every host is free
 * (collective). Linear in days, busy intervals and slots of all hosts together.
 */
export function computeSlotStarts(rules: SlotRules, hosts: readonly CalendarHost[], mode: 'any' | 'all'): number[] {
  const grid = gridOf(rules);
  if (hosts.length === 0 || !grid) return [];
  if (mode === 'all') return collectiveStarts(rules, hosts, grid);
  if (hosts.length === 1) return hostStarts(rules, hosts[0]!, grid);
  // The union of the hosts' sorted starts: marks over the window's minutes, read back in order.
  const span = Math.max(0, grid.latestEnd - grid.earliest + 1);
  const offered = new Uint8Array(span);
  for (const host of hosts) for (const start of hostStarts(rules, host, grid)) offered[start - grid.earliest] = 1;
  const starts: number[] = [];
  for (let i = 0; i < span; i++) if (offered[i] === 1) starts.push(grid.earliest + i);
  return starts;
}

function hostStarts(rules: SlotRules, host: CalendarHost, grid: Grid): number[] {
  return gridStarts(hostHours(rules, host), host.busy, host.openSeats, grid, hostAllowance(rules, host));
}

/** Collective: the grid over the intersection of the hosts' availability, with everyone's busy time. */
function collectiveStarts(rules: SlotRules, hosts: readonly CalendarHost[], grid: Grid): number[] {
  const allowance = teamAllowance(hosts.map((host) => hostAllowance(rules, host)));
  return gridStarts(teamHours(rules, hosts), unionIntervals(hosts.map((host) => host.busy)), undefined, grid, allowance);
}

/** Where the host's slots may start under the booking window and limits; undefined when there are none. */
export function hostAllowance(rules: SlotRules, host: CalendarHost): Intervals | undefined {
  return startAllowance(rules, host.schedule.timeZone, host.counted);
}

/** A host's hours for the rules' window: where its slots may lie, and where its grid starts. */
export function hostHours(rules: SlotRules, host: CalendarHost): ScheduleHours {
  return scheduleHours(host.schedule, rules.from, rules.to);
}

/**
 * Collective: where every host is available, and the grid's anchors there (the hosts' anchors intersected: the
 * grid starts again where any host's local date does).
 */
export function teamHours(rules: SlotRules, hosts: readonly CalendarHost[]): ScheduleHours {
  let { windows, anchors } = hostHours(rules, hosts[0]!);
  for (const host of hosts.slice(1)) {
    const own = hostHours(rules, host);
    windows = intersectIntervals(windows, own.windows);
    anchors = intersectIntervals(anchors, own.anchors);
  }
  return { windows, anchors };
}

/** Busy time [busyStart, busyEnd) (minutes) stays clear of the slot at `start` with the event type's buffers. */
export function keepsClear(busyStart: number, busyEnd: number, start: number, grid: Grid): boolean {
  return busyEnd <= start - grid.before || busyStart >= start + grid.duration + grid.after;
}

/** A group block of this event type with seats left at exactly this slot: joining it is allowed whatever else is busy. */
export function joinsOpenSeat(openSeats: ReadonlyMap<number, number> | undefined, start: number, grid: Grid): boolean {
  return openSeats?.get(start) === start + grid.duration;
}

/** The rules in whole minutes; undefined when no slot can exist (a duration or step that is not positive). */
export interface Grid {
  duration: number;
  step: number;
  before: number;
  after: number;
  /** First allowed start: from and now + notice, rounded up to a minute. */
  earliest: number;
  /** Last allowed end: `to` rounded down to a minute. */
  latestEnd: number;
}

/** The earliest start the minimum notice allows: now plus the notice, rounded up to a minute. */
export function noticeEdge(rules: SlotRules): number {
  return Math.ceil((rules.now + rules.minNoticeMin * MINUTE_MS) / MINUTE_MS);
}

export function gridOf(rules: SlotRules): Grid | undefined {
  if (!(rules.durationMin > 0) || !(rules.stepMin > 0)) return undefined;
  return {
    duration: rules.durationMin,
    step: rules.stepMin,
    before: rules.bufferBeforeMin,
    after: rules.bufferAfterMin,
    earliest: Math.max(Math.ceil(rules.from / MINUTE_MS), noticeEdge(rules)),
    latestEnd: Math.floor(rules.to / MINUTE_MS),
  };
}

/**
 * The grid from each anchor's start, while it is inside the anchor, for slots that fit the window holding it;
 * filtered by notice, window, busy time and the booking rules' allowance in one sweep: starts come out in
 * increasing order, so one pointer walks the normalized busy intervals and another the allowance.
 */
function gridStarts(
  hours: ScheduleHours,
  busy: Intervals,
  openSeats: ReadonlyMap<number, number> | undefined,
  grid: Grid,
  allowed?: Intervals,
): number[] {
  const { windows, anchors } = hours;
  const { duration, step, before, earliest, latestEnd } = grid;
  const starts: number[] = [];
  let b = 0;
  let w = 0;
  let l = 0;
  for (let a = 0; a < anchors.length; a += 2) {
    const anchor = anchors[a]!;
    if (anchor + duration > latestEnd) break;
    while (windows[w + 1]! <= anchor) w += 2;
    // Jump to the first grid point at or after `earliest` without walking the ones before it.
    const skip = earliest > anchor ? Math.ceil((earliest - anchor) / step) : 0;
    const lastStart = Math.min(anchors[a + 1]! - 1, Math.min(windows[w + 1]!, latestEnd) - duration);
    for (let start = anchor + skip * step; start <= lastStart; start += step) {
      if (allowed) {
        while (l < allowed.length && allowed[l + 1]! <= start) l += 2;
        if (l >= allowed.length || allowed[l]! > start) continue;
      }
      const bufferedStart = start - before;
      while (b < busy.length && busy[b + 1]! <= bufferedStart) b += 2;
      if (b >= busy.length || keepsClear(busy[b]!, busy[b + 1]!, start, grid) || joinsOpenSeat(openSeats, start, grid)) {
        starts.push(start);
      }
    }
  }
  return starts;
}

// --- The same engine for callers that hold milliseconds (booking creation, tests). ---

export interface HostAvailability {
  hostId: string;
  schedule: Schedule;
  /** Busy ranges, buffers included (in any order, may overlap). */
  busy: readonly TimeRange[];
  /** Exact slots [start, end) of group blocks of this event type that still have seats. */
  openSeats?: readonly TimeRange[];
  /** As CalendarHost's. */
  counted?: ArrayLike<number>;
  /** Whether the host's calendar receives bookings (a CalDAV booking target); undefined when not read. */
  writesBack?: boolean;
}

export interface HostSlot extends TimeRange {
  /** The hosts free for this slot (every host for `all`). */
  hostIds: string[];
}

/** Single-host convenience: the bookable slots of one schedule. */
export function computeSlots(
  input: SlotRules & Schedule & { busy: readonly TimeRange[]; openSeats?: readonly TimeRange[] },
): TimeRange[] {
  const host = { hostId: '', schedule: input, busy: input.busy, openSeats: input.openSeats };
  return computeHostSlots(input, [host], 'any').map(({ start, end }) => ({ start, end }));
}

/**
 * Slots with the hosts free for each (booking creation picks among them), for hosts whose busy time is in
 * milliseconds; ordered by start.
 */
export function computeHostSlots(rules: SlotRules, hosts: readonly HostAvailability[], mode: 'any' | 'all'): HostSlot[] {
  const calendars = hosts.map(toCalendarHost);
  const grid = gridOf(rules);
  if (calendars.length === 0 || !grid) return [];
  const free = new Map<number, string[]>();
  if (mode === 'all') {
    const ids = calendars.map((host) => host.hostId);
    for (const start of collectiveStarts(rules, calendars, grid)) free.set(start, [...ids]);
  } else {
    for (const host of calendars) {
      for (const start of hostStarts(rules, host, grid)) {
        const ids = free.get(start);
        if (ids) ids.push(host.hostId);
        else free.set(start, [host.hostId]);
      }
    }
  }
  const duration = rules.durationMin * MINUTE_MS;
  return [...free.keys()]
    .sort((a, b) => a - b)
    .map((start) => ({ start: start * MINUTE_MS, end: start * MINUTE_MS + duration, hostIds: free.get(start)! }));
}

/**
 * The one-slot decision of booking creation: the hosts free for exactly [start, start + duration) when the engine
 * is asked for that slot's own window (undefined when it does not offer it). The grid does not depend on the
 * window, so this agrees with every list that holds the slot.
 */
export function hostsFreeForSlot(rules: SlotRules, hosts: readonly HostAvailability[], mode: 'any' | 'all', start: number): string[] | undefined {
  const own = { ...rules, from: start, to: start + rules.durationMin * MINUTE_MS };
  return computeHostSlots(own, hosts, mode).find((slot) => slot.start === start)?.hostIds;
}

/** A schedule's availability windows as instants (sorted, disjoint), for every local date touching [from, to]. */
export function availabilityWindows(schedule: Schedule, from: number, to: number): TimeRange[] {
  const { windows } = scheduleHours(schedule, from, to);
  const ranges: TimeRange[] = [];
  for (let i = 0; i < windows.length; i += 2) ranges.push({ start: windows[i]! * MINUTE_MS, end: windows[i + 1]! * MINUTE_MS });
  return ranges;
}

/** A host whose busy time is in milliseconds, as the engine takes it. */
export function toCalendarHost(host: HostAvailability): CalendarHost {
  const busy: number[] = [];
  for (const range of host.busy) if (range.end > range.start) busy.push(...busyMinutes(range.start, range.end));
  const openSeats = new Map<number, number>();
  // A seat matches a slot only exactly, and slots lie on whole minutes.
  for (const seat of host.openSeats ?? []) {
    if (seat.start % MINUTE_MS === 0 && seat.end % MINUTE_MS === 0) openSeats.set(seat.start / MINUTE_MS, seat.end / MINUTE_MS);
  }
  return { hostId: host.hostId, schedule: host.schedule, busy: normalizeIntervals(busy), openSeats, counted: host.counted };
}
