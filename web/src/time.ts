/** Calendar helpers for the booking page: everything is computed on instants and shown in a chosen IANA zone. */

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
