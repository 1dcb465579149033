/**
 * A schedule (weekly hours + date overrides, in an IANA zone) as intervals of epoch minutes. A date
 * override replaces its day's weekly hours; each edge becomes an instant by wall-clock.ts's rule. Dates are day
 * numbers (days since 1970-01-01), so a day costs integer arithmetic rather than Date objects or Intl calls: the
 * zone enters only through `offsetMinutes`, twice per day.
 */
import { type Intervals, mergeOverlaps, MINUTE_MS, normalizeIntervals } from './intervals.ts';
import { type DateOverride, WEEKDAYS, type WeeklyHours } from './schedule.ts';
import { offsetMinutes, wallClockToInstant } from './wall-clock.ts';

const DAY_MIN = 1440;
const DAY_MS = 86_400_000;

export interface Schedule {
  weekly: WeeklyHours;
  overrides: readonly DateOverride[];
  /** IANA zone the wall-clock intervals are read in. */
  timeZone: string;
}

/** Minutes after midnight of "HH:mm" (24:00 = 1440). */
export function parseWallClock(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** A schedule's hours over a window, epoch minutes. */
export interface ScheduleHours {
  /** Normalized: a slot lies inside one of these (hours that run on through midnight join the next day's). */
  windows: Intervals;
  /**
   * Each local date's own hours, never joined across midnight (sorted and disjoint, so they may touch): the slot
   * grid starts at each one's start, wherever the window asked for begins.
   */
  anchors: Intervals;
}

/**
 * The schedule's hours for every local date that can touch [fromMs, toMs] (one date of margin on each side, so a
 * window never depends on where the query starts).
 */
export function scheduleHours(schedule: Schedule, fromMs: number, toMs: number): ScheduleHours {
  const hours = dateHours(schedule, fromMs, toMs);
  // Hours overlap only where a daylight-saving gap moved an edge forward: those merge.
  return { windows: normalizeIntervals(hours), anchors: mergeOverlaps(hours) };
}

/** Each local date's hours as instants, date by date (not normalized across dates). */
function dateHours(schedule: Schedule, fromMs: number, toMs: number): Intervals {
  const zone = schedule.timeZone;
  const weekly = WEEKDAYS.map((day) => dayMinutes(schedule.weekly[day] ?? []));
  const overrides = new Map<number, Intervals>();
  for (const override of schedule.overrides) overrides.set(dayNumber(override.date), dayMinutes(override.intervals));
  const first = localDay(fromMs - DAY_MS, zone);
  const last = localDay(toMs + DAY_MS, zone);
  const out: Intervals = [];
  for (let day = first; day <= last; day++) {
    const hours = overrides.get(day) ?? weekly[isoWeekday(day)]!;
    if (hours.length === 0) continue;
    const midnight = day * DAY_MIN;
    // Every edge of this day lies within a day of [midnight, midnight + 1 day]: with the same offset at both
    // ends of that span there is no change inside it (zones never change twice within three days), so an
    // edge is its local minute minus that offset. Otherwise each edge goes through the gap/overlap rule.
    const offset = offsetMinutes((midnight - DAY_MIN) * MINUTE_MS, zone);
    const steady = offset === offsetMinutes((midnight + 2 * DAY_MIN) * MINUTE_MS, zone);
    for (let i = 0; i < hours.length; i += 2) {
      const start = steady ? midnight + hours[i]! - offset : edgeInstant(midnight + hours[i]!, zone);
      const end = steady ? midnight + hours[i + 1]! - offset : edgeInstant(midnight + hours[i + 1]!, zone);
      if (end > start) out.push(start, end);
    }
  }
  return out;
}

/** One local minute (minutes since 1970-01-01 on the wall clock) as an instant, in epoch minutes. */
function edgeInstant(localMinute: number, zone: string): number {
  const day = Math.floor(localMinute / DAY_MIN);
  const date = new Date(day * DAY_MS);
  const calendar = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
  return wallClockToInstant(calendar, localMinute - day * DAY_MIN, zone) / MINUTE_MS;
}

/** A day's wall-clock intervals as sorted, merged minute pairs. */
function dayMinutes(intervals: readonly { start: string; end: string }[]): Intervals {
  const flat: number[] = [];
  for (const interval of intervals) flat.push(parseWallClock(interval.start), parseWallClock(interval.end));
  return normalizeIntervals(flat);
}

/** The local date of an instant, as a day number. */
function localDay(epochMs: number, zone: string): number {
  return Math.floor((epochMs + offsetMinutes(epochMs, zone) * MINUTE_MS) / DAY_MS);
}

/** "YYYY-MM-DD" as a day number. */
function dayNumber(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** 0 = Monday … 6 = Sunday (day 0, 1970-01-01, was a Thursday). */
function isoWeekday(day: number): number {
  return (((day + 3) % 7) + 7) % 7;
}
