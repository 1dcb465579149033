/**
 * Dates and times, for the dashboard and the invitee pages alike: calendar arithmetic on instants in an IANA zone,
 * and the one way the app writes a date or a time. Writing follows the browser's locale (its words, its order, its
 * hour cycle: 24-hour where the locale says so); the zone is always named by the caller.
 */

export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = partsFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partsFormatters.set(timeZone, formatter);
  }
  return formatter;
}

function wallClock(instant: number, timeZone: string): Record<string, number> {
  const result: Record<string, number> = {};
  for (const part of partsFormatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') result[part.type] = Number(part.value);
  }
  return result;
}

/** The calendar date an instant falls on in a zone. */
export function localDateOf(instant: number, timeZone: string): LocalDate {
  const wall = wallClock(instant, timeZone);
  return { year: wall.year ?? 1970, month: wall.month ?? 1, day: wall.day ?? 1 };
}

export function dateKey(date: LocalDate): string {
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

export function addDays(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** The zone's offset from UTC at an instant, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  const wall = wallClock(instant, timeZone);
  const asUtc = Date.UTC(wall.year ?? 1970, (wall.month ?? 1) - 1, wall.day ?? 1, wall.hour ?? 0, wall.minute ?? 0, wall.second ?? 0);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant a local date starts in a zone (its first existing minute, should midnight be skipped by DST). */
export function startOfLocalDate(date: LocalDate, timeZone: string): number {
  return localInstant(date, 0, timeZone);
}

/** The instant of a wall-clock minute of a local date in a zone (a minute skipped by DST moves forward by the gap). */
export function localInstant(date: LocalDate, minuteOfDay: number, timeZone: string): number {
  const naive = Date.UTC(date.year, date.month - 1, date.day) + minuteOfDay * 60_000;
  let guess = naive - offsetAt(naive, timeZone);
  guess = naive - offsetAt(guess, timeZone);
  return guess;
}

/** The wall-clock minute of the day (0–1439) an instant falls on in a zone. */
export function minuteOfDay(instant: number, timeZone: string): number {
  const wall = wallClock(instant, timeZone);
  return (wall.hour ?? 0) * 60 + (wall.minute ?? 0);
}

/** Monday = 0 … Sunday = 6. */
export function weekdayIndex(date: LocalDate): number {
  return (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
}

/** The visitor's zone as the browser reports it. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Every zone the browser knows, with the given one included. */
export function timeZoneChoices(current: string): string[] {
  let zones: string[];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  const all = new Set([...zones, 'UTC', current]);
  return [...all].sort((a, b) => a.localeCompare(b));
}

// What follows writes dates and times; nothing else in the app formats one.

const displayFormatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter in the browser's locale (`undefined`), made once per set of options. */
function display(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let found = displayFormatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(undefined, options);
    displayFormatters.set(key, found);
  }
  return found;
}

const TIME: Intl.DateTimeFormatOptions = { hour: 'numeric', minute: '2-digit' };
const DATE: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric' };
const LONG_DAY: Intl.DateTimeFormatOptions = { weekday: 'long', day: 'numeric', month: 'long' };

/** "Tue, Nov 24, 2026, 9:00 AM" in en-US, "Tue, 24 Nov 2026, 09:00" in en-GB. */
export function formatDateTime(iso: string, timeZone: string): string {
  return display({ timeZone, weekday: 'short', ...DATE, ...TIME }).format(new Date(iso));
}

/** "9:00 AM" in en-US, "09:00" in en-GB. */
export function formatTime(iso: string, timeZone: string): string {
  return display({ timeZone, ...TIME }).format(new Date(iso));
}

/** "Nov 24, 2026"; `full`: "Tuesday, November 24, 2026". */
export function formatDate(iso: string, timeZone: string, style: 'medium' | 'full' = 'medium'): string {
  return display({ timeZone, dateStyle: style }).format(new Date(iso));
}

/** "Tuesday, November 24, 9:00 AM": one time on the booking pages. */
export function formatDayTime(iso: string, timeZone: string): string {
  return display({ timeZone, ...LONG_DAY, ...TIME }).format(new Date(iso));
}

/** "Tuesday, November 24, 9:00 – 9:30 AM": a booked or offered time on the booking pages. */
export function formatSlot(slot: { start: string; end: string }, timeZone: string): string {
  const start = new Date(slot.start);
  return `${display({ timeZone, ...LONG_DAY }).format(start)}, ${display({ timeZone, ...TIME }).formatRange(start, new Date(slot.end))}`;
}

/** A local date is written at noon UTC of that date, which is that same date in a UTC formatter. */
const utcNoon = (date: LocalDate) => new Date(Date.UTC(date.year, date.month - 1, date.day, 12));

/** "Tue". */
export function formatWeekday(date: LocalDate): string {
  return display({ timeZone: 'UTC', weekday: 'short' }).format(utcNoon(date));
}

/** "Nov 24". */
export function formatDayMonth(date: LocalDate): string {
  return display({ timeZone: 'UTC', day: 'numeric', month: 'short' }).format(utcNoon(date));
}

/** "Tuesday, November 24". */
export function formatDayLong(date: LocalDate): string {
  return display({ timeZone: 'UTC', ...LONG_DAY }).format(utcNoon(date));
}

/** "Wed, Dec 24, 2031": a date of its own, such as a date override, with its weekday. */
export function formatLocalDate(date: LocalDate): string {
  return display({ timeZone: 'UTC', weekday: 'short', ...DATE }).format(utcNoon(date));
}

/** "Dec 24, 2026": a calendar date without its weekday. */
export function formatCalendarDate(date: LocalDate): string {
  return display({ timeZone: 'UTC', ...DATE }).format(utcNoon(date));
}

/** "Tuesday, Nov 24": a day of a week view. */
export function formatWeekDay(date: LocalDate): string {
  return display({ timeZone: 'UTC', weekday: 'long', month: 'short', day: 'numeric' }).format(utcNoon(date));
}

/** "9 AM" in en-US, "09" in en-GB: an hour on a week view's axis. */
export function formatHour(minuteOfDay: number): string {
  return display({ timeZone: 'UTC', hour: 'numeric' }).format(Date.UTC(2000, 0, 1, minuteOfDay / 60));
}

/** "November 23 – 29, 2026". */
export function formatDayRange(first: LocalDate, last: LocalDate): string {
  return display({ timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' }).formatRange(utcNoon(first), utcNoon(last));
}

/** `2026-11-24` (an <input type="date"> value, or an override's date) as a local date. */
export function parseDateInput(value: string): LocalDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return match ? { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) } : null;
}

/** The instant a date input's day starts in a zone, as ISO. */
export function dayStartIso(value: string, timeZone: string): string | undefined {
  const date = parseDateInput(value);
  return date ? new Date(startOfLocalDate(date, timeZone)).toISOString() : undefined;
}
