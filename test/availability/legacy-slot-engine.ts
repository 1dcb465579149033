/**
 * The slot engine as it was before the minute engine (epoch milliseconds, dates through Intl), kept as the
 * reference that test/availability/slot-engine.property.test.ts compares the new engine with. One rule changed
 * in both alike: the grid starts at each local date's own hours, not where hours running through midnight began.
 */
import type { DateOverride, WeeklyHours } from '../../src/modules/availability/schedule.ts';
import { WEEKDAYS } from '../../src/modules/availability/schedule.ts';
import {
  addDays,
  type CalendarDate,
  compareDates,
  formatDate,
  isoWeekdayIndex,
  localDate,
  wallClockToInstant,
} from '../../src/modules/availability/wall-clock.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

/** A half-open range of instants [start, end), epoch milliseconds. */
export interface TimeRange {
  start: number;
  end: number;
}

export interface Schedule {
  weekly: WeeklyHours;
  overrides: readonly DateOverride[];
  /** IANA zone the wall-clock intervals are read in. */
  timeZone: string;
}

export interface SlotRules {
  durationMin: number;
  /** Distance between two slot starts of one interval, minutes. */
  stepMin: number;
  bufferBeforeMin: number;
  bufferAfterMin: number;
  minNoticeMin: number;
  now: number;
  from: number;
  to: number;
}

export interface HostAvailability {
  hostId: string;
  schedule: Schedule;
  /** Busy ranges, buffers included (in any order, may overlap). */
  busy: readonly TimeRange[];
  /** Exact slots [start, end) of group blocks of this event type that still have seats. */
  openSeats?: readonly TimeRange[];
}

export interface HostSlot extends TimeRange {
  /** The hosts free for this slot (every host for `all`). */
  hostIds: string[];
}

/** Single-host convenience: the bookable slots of one schedule. */
export function computeSlots(
  input: SlotRules &
    Schedule & { busy: readonly TimeRange[]; openSeats?: readonly TimeRange[] },
): TimeRange[] {
  return slotsInWindows(scheduleHours(input, input.from, input.to), normalizeRanges(input.busy), seatIndex(input.openSeats), input);
}

/**
 * Slots for one or several hosts. `any`: a slot is offered when at least one host is free (round robin);
 * `all`: only when every host is free (collective). Returns slots ordered by start, then end.
 */
export function computeHostSlots(rules: SlotRules, hosts: readonly HostAvailability[], mode: 'any' | 'all'): HostSlot[] {
  if (hosts.length === 0) return [];
  if (mode === 'all') {
    let hours = scheduleHours(hosts[0]!.schedule, rules.from, rules.to);
    const busy: TimeRange[] = [...hosts[0]!.busy];
    for (const host of hosts.slice(1)) {
      const own = scheduleHours(host.schedule, rules.from, rules.to);
      hours = { windows: intersectRanges(hours.windows, own.windows), anchors: intersectRanges(hours.anchors, own.anchors) };
      busy.push(...host.busy);
    }
    const ids = hosts.map((host) => host.hostId);
    return slotsInWindows(hours, normalizeRanges(busy), new Map(), rules).map((slot) => ({ ...slot, hostIds: [...ids] }));
  }
  const byKey = new Map<string, HostSlot>();
  for (const host of hosts) {
    const hours = scheduleHours(host.schedule, rules.from, rules.to);
    for (const slot of slotsInWindows(hours, normalizeRanges(host.busy), seatIndex(host.openSeats), rules)) {
      const key = `${slot.start}/${slot.end}`;
      const existing = byKey.get(key);
      if (existing) existing.hostIds.push(host.hostId);
      else byKey.set(key, { start: slot.start, end: slot.end, hostIds: [host.hostId] });
    }
  }
  return [...byKey.values()].sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * A schedule's availability as instants, for every local date that can touch [from, to] (one date of
 * margin on each side, so a window never depends on where the query starts). Sorted, non-overlapping.
 */
export function availabilityWindows(schedule: Schedule, from: number, to: number): TimeRange[] {
  return normalizeRanges(dateRanges(schedule, from, to));
}

interface Hours {
  /** Where slots may lie (normalized). */
  windows: TimeRange[];
  /** Each local date's hours, overlapping ones merged, touching ones apart: where the grid starts. */
  anchors: TimeRange[];
}

function scheduleHours(schedule: Schedule, from: number, to: number): Hours {
  const ranges = dateRanges(schedule, from, to);
  return { windows: normalizeRanges(ranges), anchors: normalizeRanges(ranges, false) };
}

/** Each local date's merged hours as instants, date by date. */
function dateRanges(schedule: Schedule, from: number, to: number): TimeRange[] {
  const overrides = new Map<string, DateOverride['intervals']>();
  for (const override of schedule.overrides) overrides.set(override.date, override.intervals);
  const first = localDate(from - DAY, schedule.timeZone);
  const last = localDate(to + DAY, schedule.timeZone);
  const windows: TimeRange[] = [];
  for (let date: CalendarDate = first; compareDates(date, last) <= 0; date = addDays(date, 1)) {
    const intervals = overrides.get(formatDate(date)) ?? schedule.weekly[WEEKDAYS[isoWeekdayIndex(date)]!] ?? [];
    for (const [startMin, endMin] of mergeMinuteIntervals(intervals)) {
      const start = wallClockToInstant(date, startMin, schedule.timeZone);
      const end = wallClockToInstant(date, endMin, schedule.timeZone);
      if (end > start) windows.push({ start, end });
    }
  }
  return windows;
}

/** Minutes after midnight of "HH:mm" (24:00 = 1440). */
export function parseWallClock(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

function mergeMinuteIntervals(intervals: readonly { start: string; end: string }[]): [number, number][] {
  const parsed = intervals
    .map((interval): [number, number] => [parseWallClock(interval.start), parseWallClock(interval.end)])
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const interval of parsed) {
    const previous = merged[merged.length - 1];
    if (previous && interval[0] <= previous[1]) previous[1] = Math.max(previous[1], interval[1]);
    else merged.push([interval[0], interval[1]]);
  }
  return merged;
}

/** Sorted by start, overlapping (and, unless told not to, touching) ranges merged. */
export function normalizeRanges(ranges: readonly TimeRange[], mergeTouching = true): TimeRange[] {
  const sorted = ranges.filter((range) => range.end > range.start).sort((a, b) => a.start - b.start);
  const merged: TimeRange[] = [];
  for (const range of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && (range.start < previous.end || (mergeTouching && range.start === previous.end))) previous.end = Math.max(previous.end, range.end);
    else merged.push({ start: range.start, end: range.end });
  }
  return merged;
}

/** Intersection of two sorted, non-overlapping range lists (linear merge). */
export function intersectRanges(a: readonly TimeRange[], b: readonly TimeRange[]): TimeRange[] {
  const result: TimeRange[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const start = Math.max(x.start, y.start);
    const end = Math.min(x.end, y.end);
    if (end > start) result.push({ start, end });
    if (x.end < y.end) i++;
    else j++;
  }
  return result;
}

function seatIndex(openSeats: readonly TimeRange[] | undefined): Map<number, number> {
  const index = new Map<number, number>();
  for (const seat of openSeats ?? []) index.set(seat.start, seat.end);
  return index;
}

/**
 * The grid from each anchor's start while inside it, for slots inside the window holding the anchor, filtered by
 * notice, window and busy time in one sweep: candidates come out in increasing order, so one pointer walks the
 * sorted, merged busy ranges.
 */
function slotsInWindows(
  { windows, anchors }: Hours,
  busy: readonly TimeRange[],
  openSeats: ReadonlyMap<number, number>,
  rules: SlotRules,
): TimeRange[] {
  const duration = rules.durationMin * MINUTE;
  const step = rules.stepMin * MINUTE;
  const before = rules.bufferBeforeMin * MINUTE;
  const after = rules.bufferAfterMin * MINUTE;
  if (!(duration > 0) || !(step > 0)) return [];
  const earliest = Math.max(rules.from, rules.now + rules.minNoticeMin * MINUTE);
  const slots: TimeRange[] = [];
  let b = 0;
  for (const anchor of anchors) {
    const window = windows.find((w) => w.start <= anchor.start && anchor.end <= w.end)!;
    if (window.end <= earliest || window.start >= rules.to) continue;
    // Jump to the first grid point at or after `earliest` without walking the ones before it.
    const skip = earliest > anchor.start ? Math.ceil((earliest - anchor.start) / step) : 0;
    for (let start = anchor.start + skip * step; start < anchor.end && start + duration <= window.end; start += step) {
      const end = start + duration;
      if (end > rules.to) break;
      const bufferedStart = start - before;
      const bufferedEnd = end + after;
      while (b < busy.length && busy[b]!.end <= bufferedStart) b++;
      const free = b >= busy.length || busy[b]!.start >= bufferedEnd;
      if (free || openSeats.get(start) === end) slots.push({ start, end });
    }
  }
  return slots;
}
