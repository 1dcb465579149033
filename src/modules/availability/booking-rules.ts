/**
 * The booking window and the booking limits as the slot engine applies them: per host, in the host's own zone, as
 * the instants where a slot may start. A slot belongs to the local date its start falls on; weeks start on Monday.
 * Pure functions of the rules, the clock and the host's counted bookings (start minute and seats of each busy block
 * of the event type), so availability, booking and explain decide alike.
 */
import type { BookingLimits, BookingWindow } from '../event-types/event-type.rows.ts';
import { type Intervals, intersectIntervals, MINUTE_MS, normalizeIntervals, subtractIntervals } from './intervals.ts';
import { civilFromDays, offsetMinutes, wallClockToInstant } from './wall-clock.ts';

const DAY_MS = 86_400_000;
/** The whole timeline, in epoch minutes, as an interval: no restriction. */
const EVERYWHEN: Intervals = [-(2 ** 40), 2 ** 40];

export interface BookingRuleSettings {
  /** Epoch milliseconds. */
  now: number;
  bookingWindow?: BookingWindow | null;
  limits?: BookingLimits | null;
  /** The hosts' rule books of this request, each worked out once (RuleBooks); absent: worked out at every call. */
  ruleBooks?: RuleBooks;
}

export type LimitKind = 'daily_limit' | 'weekly_limit' | 'monthly_limit';

/** Local dates as day numbers (days since 1970-01-01), both included. */
export interface DayRange {
  first: number;
  last: number;
}

export interface FullPeriod extends DayRange {
  kind: LimitKind;
  limit: number;
}

/** The local date of an instant (epoch milliseconds) as a day number. */
export function localDay(epochMs: number, zone: string): number {
  return Math.floor((epochMs + offsetMinutes(epochMs, zone) * MINUTE_MS) / DAY_MS);
}

/** "YYYY-MM-DD" as a day number. */
export function dayNumber(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** The first instant of a local date, in epoch minutes (a midnight in a gap is the gap's end). */
export function midnight(day: number, zone: string): number {
  return wallClockToInstant(civilFromDays(day), 0, zone) / MINUTE_MS;
}

/** The dates the window lets a host book: a rolling window starts on the host's today. */
export function windowDays(window: BookingWindow, now: number, zone: string): DayRange {
  if (window.type === 'range') return { first: dayNumber(window.start), last: dayNumber(window.end) };
  const today = localDay(now, zone);
  return { first: today, last: today + window.days - 1 };
}

/** Monday of the week of a day (day 0, 1970-01-01, was a Thursday). */
function weekOf(day: number): DayRange {
  const first = day - ((((day + 3) % 7) + 7) % 7);
  return { first, last: first + 6 };
}

function monthOf(day: number): DayRange {
  const { year, month } = civilFromDays(day);
  return { first: Date.UTC(year, month - 1, 1) / DAY_MS, last: Date.UTC(year, month, 1) / DAY_MS - 1 };
}

const PERIODS: readonly { kind: LimitKind; key: keyof BookingLimits; range: (day: number) => DayRange }[] = [
  { kind: 'daily_limit', key: 'perDay', range: (day) => ({ first: day, last: day }) },
  { kind: 'weekly_limit', key: 'perWeek', range: weekOf },
  { kind: 'monthly_limit', key: 'perMonth', range: monthOf },
];

/**
 * The instants whose bookings decide the limits for slots starting in [from, to], in any zone: every period (of
 * the limits given; all three when they are not known yet) holding a local date of the window. A local date lies
 * within a day of the UTC date of the same instant, and a local midnight within a day of the UTC one.
 */
export function countingRange(limits: BookingLimits | null | undefined, from: number, to: number): { from: number; to: number } {
  const firstDay = Math.floor(from / DAY_MS) - 1;
  const lastDay = Math.floor(to / DAY_MS) + 1;
  let first = firstDay;
  let last = lastDay;
  for (const { key, range } of PERIODS) {
    if (limits && limits[key] === undefined) continue;
    first = Math.min(first, range(firstDay).first);
    last = Math.max(last, range(lastDay).last);
  }
  return { from: (first - 1) * DAY_MS, to: (last + 2) * DAY_MS };
}

/**
 * The periods whose bookings reached a limit. `counted` holds pairs (start minute, seats) of the host's busy blocks
 * of the event type; the caller reads every block of the periods it asks about (countingRange).
 */
export function fullPeriods(limits: BookingLimits, counted: ArrayLike<number>, zone: string): FullPeriod[] {
  const full: FullPeriod[] = [];
  // Seats per local date first (a month of 500 bookings is 30 dates), the dates in the order they first occur, so
  // each period comes out where its first booking is, as when counting booking by booking.
  const seatsByDay = new Map<number, number>();
  for (let i = 0; i + 1 < counted.length; i += 2) {
    const day = localDay(counted[i]! * MINUTE_MS, zone);
    seatsByDay.set(day, (seatsByDay.get(day) ?? 0) + counted[i + 1]!);
  }
  for (const { kind, key, range } of PERIODS) {
    const limit = limits[key];
    if (limit === undefined) continue;
    const counts = new Map<number, { range: DayRange; n: number }>();
    for (const [day, seats] of seatsByDay) {
      const period = range(day);
      const entry = counts.get(period.first);
      if (entry) entry.n += seats;
      else counts.set(period.first, { range: period, n: seats });
    }
    for (const { range: period, n } of counts.values()) if (n >= limit) full.push({ kind, limit, ...period });
  }
  return full;
}

/** A range of local dates as the instants they cover, epoch minutes. */
export function daysAsInterval(range: DayRange, zone: string): Intervals {
  return [midnight(range.first, zone), midnight(range.last + 1, zone)];
}

/** What the window and the limits decide for one host, in its zone: the dates and the instants they cover. */
export interface HostRuleBook {
  /** The window's dates and the instants they cover; absent without a window. */
  window?: { range: DayRange; instants: Intervals };
  /** The full periods, in fullPeriods' order, each with the instants it covers. */
  full: { period: FullPeriod; instants: Intervals }[];
  /** Where a slot may start (normalized epoch minutes). */
  allowance: Intervals;
}

interface RuleBookEntry {
  zone: string;
  counted: ArrayLike<number> | undefined;
  now: number;
  bookingWindow: BookingWindow | null | undefined;
  limits: BookingLimits | null | undefined;
  book: HostRuleBook;
}

/**
 * The rule books of one request's hosts. Explaining a slot asks the engine about each host several times, and
 * the explain property test thousands of times, while a host's book depends only on its zone, its counted
 * bookings and the rules: so it is worked out once. An entry serves only the very inputs it was made from (the
 * same counted pairs, zone, clock, window and limits objects), so counts re-read under the hosts' locks, or the
 * rules copied without window and limits, never meet a stale book.
 */
export class RuleBooks {
  readonly #entries = new Map<ArrayLike<number> | string, RuleBookEntry>();

  /** The book for exactly these inputs, if one was kept. */
  find(rules: BookingRuleSettings, zone: string, counted: ArrayLike<number> | undefined): HostRuleBook | undefined {
    const entry = this.#entries.get(counted ?? zone);
    if (!entry || entry.zone !== zone || entry.counted !== counted || entry.now !== rules.now) return undefined;
    return entry.bookingWindow === rules.bookingWindow && entry.limits === rules.limits ? entry.book : undefined;
  }

  keep(rules: BookingRuleSettings, zone: string, counted: ArrayLike<number> | undefined, book: HostRuleBook): void {
    this.#entries.set(counted ?? zone, { zone, counted, now: rules.now, bookingWindow: rules.bookingWindow, limits: rules.limits, book });
  }
}

/**
 * The host's rule book (from the request's RuleBooks when it has one for these inputs), or undefined when the
 * event type has neither a window nor limits: then nothing is computed at all.
 */
export function hostRuleBook(rules: BookingRuleSettings, zone: string, counted: ArrayLike<number> | undefined): HostRuleBook | undefined {
  const { bookingWindow, limits } = rules;
  if (!bookingWindow && !limits) return undefined;
  const kept = rules.ruleBooks?.find(rules, zone, counted);
  if (kept) return kept;
  const book: HostRuleBook = { full: [], allowance: EVERYWHEN };
  if (bookingWindow) {
    const range = windowDays(bookingWindow, rules.now, zone);
    book.window = { range, instants: daysAsInterval(range, zone) };
    book.allowance = book.window.instants;
  }
  if (limits && counted && counted.length > 0) {
    book.full = fullPeriods(limits, counted, zone).map((period) => ({ period, instants: daysAsInterval(period, zone) }));
    book.allowance = subtractIntervals(book.allowance, normalizeIntervals(book.full.flatMap((full) => full.instants)));
  }
  rules.ruleBooks?.keep(rules, zone, counted, book);
  return book;
}

/**
 * Where a slot of this host may start under the window and the limits (normalized epoch minutes), or undefined
 * when the event type has neither: then nothing is computed at all.
 */
export function startAllowance(rules: BookingRuleSettings, zone: string, counted: ArrayLike<number> | undefined): Intervals | undefined {
  return hostRuleBook(rules, zone, counted)?.allowance;
}

/** The allowance of a team that must all be free (collective): where every host's allows. */
export function teamAllowance(allowances: readonly (Intervals | undefined)[]): Intervals | undefined {
  let team: Intervals | undefined;
  for (const allowance of allowances) if (allowance) team = team ? intersectIntervals(team, allowance) : allowance;
  return team;
}

/** Why the window or a limit keeps a host from a slot. */
export type RuleRefusal = ({ kind: 'booking_window' } & DayRange) | FullPeriod;

/**
 * Every rule that keeps this host from a slot starting at `start` (epoch minutes), by the same instants
 * startAllowance computes: the window first, then each full period around the start.
 */
export function ruleRefusals(
  rules: BookingRuleSettings,
  zone: string,
  counted: ArrayLike<number> | undefined,
  start: number,
): RuleRefusal[] {
  const book = hostRuleBook(rules, zone, counted);
  if (!book) return [];
  const covers = ([from, to]: Intervals) => from! <= start && start < to!;
  const refusals: RuleRefusal[] = [];
  if (book.window && !covers(book.window.instants)) refusals.push({ kind: 'booking_window', ...book.window.range });
  for (const { period, instants } of book.full) if (covers(instants)) refusals.push({ ...period });
  return refusals;
}

/** The first of ruleRefusals, or undefined when both rules allow the slot. */
export function ruleRefusal(
  rules: BookingRuleSettings,
  zone: string,
  counted: ArrayLike<number> | undefined,
  start: number,
): RuleRefusal | undefined {
  return ruleRefusals(rules, zone, counted, start)[0];
}

/** A day number as "YYYY-MM-DD". */
export function formatDay(day: number): string {
  const { year, month, day: dayOfMonth } = civilFromDays(day);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(dayOfMonth).padStart(2, '0')}`;
}
