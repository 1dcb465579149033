/**
 * Wall-clock time in an IANA zone <-> UTC instants, without dayjs: `dayjs.tz(text, zone)` guesses the offset from
 * the moment the code runs, so a fall-back overlap would resolve differently in summer and in winter. These follow
 * ECMAScript Temporal's `compatible` rule instead: a repeated local time is the earlier instant, a missing one
 * (spring-forward gap) moves forward by the gap. All arithmetic is on epoch milliseconds.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The local calendar fields of an instant in a zone. */
export interface LocalFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function localFields(epochMs: number, zone: string): LocalFields {
  const fields: LocalFields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const part of formatterFor(zone).formatToParts(epochMs)) {
    switch (part.type) {
      case 'year':
        fields.year = Number(part.value);
        break;
      case 'month':
        fields.month = Number(part.value);
        break;
      case 'day':
        fields.day = Number(part.value);
        break;
      case 'hour':
        fields.hour = Number(part.value);
        break;
      case 'minute':
        fields.minute = Number(part.value);
        break;
      case 'second':
        fields.second = Number(part.value);
        break;
    }
  }
  return fields;
}

/** The zone's UTC offset in minutes at an instant, read from Intl (e.g. -300 for New York in winter). */
function intlOffsetMinutes(epochMs: number, zone: string): number {
  const f = localFields(epochMs, zone);
  const asUtc = Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second);
  const wholeSecond = Math.floor(epochMs / 1000) * 1000;
  return Math.round((asUtc - wholeSecond) / MINUTE);
}

/**
 * Offsets cached per 6-hour bucket: when a bucket's two edges have the same offset, the offset is the same
 * inside it (no zone changes its offset twice within 6 hours), so most look-ups are one Map read instead
 * of an Intl call. Buckets holding a transition fall back to Intl for each instant.
 */
const BUCKET = 6 * 3_600_000;
const edgeOffsets = new Map<string, Map<number, number>>();

function edgeOffset(edge: number, zone: string): number {
  let edges = edgeOffsets.get(zone);
  if (!edges) {
    edges = new Map();
    edgeOffsets.set(zone, edges);
  }
  let offset = edges.get(edge);
  if (offset === undefined) {
    if (edges.size > 50_000) edges.clear();
    offset = intlOffsetMinutes(edge * BUCKET, zone);
    edges.set(edge, offset);
  }
  return offset;
}

/** The zone's UTC offset in minutes at an instant (e.g. -300 for New York in winter). */
export function offsetMinutes(epochMs: number, zone: string): number {
  const bucket = Math.floor(epochMs / BUCKET);
  const start = edgeOffset(bucket, zone);
  return start === edgeOffset(bucket + 1, zone) ? start : intlOffsetMinutes(epochMs, zone);
}

/** A calendar date, e.g. { year: 2026, month: 3, day: 8 }; months are 1-based. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/**
 * The instant at which the wall clock in `zone` shows `minutes` after midnight of `date` (minutes may be
 * 1440 for 24:00, i.e. the next day's midnight). Gap and overlap rules: see the top of this file.
 */
export function wallClockToInstant(date: CalendarDate, minutes: number, zone: string): number {
  const local = Date.UTC(date.year, date.month - 1, date.day) + minutes * MINUTE;
  // Zones change their offset at most once within a day either side of any instant.
  const before = offsetMinutes(local - DAY, zone);
  const after = offsetMinutes(local + DAY, zone);
  let earliest: number | undefined;
  for (const offset of before === after ? [before] : [before, after]) {
    const candidate = local - offset * MINUTE;
    if (offsetMinutes(candidate, zone) === offset && (earliest === undefined || candidate < earliest)) {
      earliest = candidate;
    }
  }
  // No candidate: the time falls in a gap; read it with the offset in force before the gap.
  return earliest ?? local - before * MINUTE;
}

/** The calendar date an instant falls on in a zone. */
export function localDate(epochMs: number, zone: string): CalendarDate {
  const f = localFields(epochMs, zone);
  return { year: f.year, month: f.month, day: f.day };
}

/** `date` plus `days` calendar days (pure calendar arithmetic, no zone involved). */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/** 0 = Monday … 6 = Sunday. */
export function isoWeekdayIndex(date: CalendarDate): number {
  return (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
}

export function formatDate(date: CalendarDate): string {
  return `${date.year}-${pad(date.month)}-${pad(date.day)}`;
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * An instant written as an RFC 3339 date-time in a zone's local offset, e.g. 2026-03-08T03:00:00-04:00
 * (seconds precision; the instant is unchanged).
 */
export function formatInZone(epochMs: number, zone: string): string {
  const offset = offsetMinutes(epochMs, zone);
  const local = new Date(epochMs + offset * MINUTE);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const year = String(local.getUTCFullYear()).padStart(4, '0');
  return `${year}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}T${pad(local.getUTCHours())}:${pad(
    local.getUTCMinutes(),
  )}:${pad(local.getUTCSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * An instant on a whole minute written as the API writes it: in `zone`'s offset like formatInZone
 * (2026-03-08T03:00:00-04:00), or without a zone like Date#toISOString (2026-03-08T07:00:00.000Z). Integer
 * arithmetic only (no Date object), for the hundreds of slot edges of one /availability answer.
 */
export function formatMinute(epochMinute: number, zone: string | undefined): string {
  if (!zone) {
    const day = Math.floor(epochMinute / 1440);
    return datePrefix(day) + utcTimes()[epochMinute - day * 1440]!;
  }
  const offset = offsetMinutes(epochMinute * MINUTE, zone);
  const local = epochMinute + offset;
  const day = Math.floor(local / 1440);
  return datePrefix(day) + localTimes()[local - day * 1440]! + offsetSuffix(offset);
}

/*
 * The time-of-day parts of formatMinute, built once: "T09:30:00" and "T09:30:00.000Z" for each of the 1,440
 * minutes of a day, and "-04:00" per offset met. An edge is then the date prefix plus one or two of these: one
 * or two string concatenations instead of seven (each an intermediate string; an /availability answer writes
 * hundreds of edges, and their intermediate strings were a large share of the request's allocation).
 */
let localTimeTable: string[] | undefined;
let utcTimeTable: string[] | undefined;
const offsetSuffixes = new Map<number, string>();

function localTimes(): string[] {
  localTimeTable ??= Array.from({ length: 1440 }, (_, minute) => `T${pad(Math.floor(minute / 60))}:${pad(minute % 60)}:00`);
  return localTimeTable;
}

function utcTimes(): string[] {
  utcTimeTable ??= localTimes().map((time) => `${time}.000Z`);
  return utcTimeTable;
}

function offsetSuffix(offset: number): string {
  let suffix = offsetSuffixes.get(offset);
  if (suffix === undefined) {
    const abs = Math.abs(offset);
    suffix = `${offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    offsetSuffixes.set(offset, suffix);
  }
  return suffix;
}

let lastDay = Number.NaN;
let lastPrefix = '';

/** "YYYY-MM-DD" of a day number (days since 1970-01-01); consecutive slots mostly share a day, so the last is kept. */
function datePrefix(day: number): string {
  if (day !== lastDay) {
    const { year, month, day: dayOfMonth } = civilFromDays(day);
    lastPrefix = `${String(year).padStart(4, '0')}-${pad(month)}-${pad(dayOfMonth)}`;
    lastDay = day;
  }
  return lastPrefix;
}

/** The proleptic Gregorian date of a day number (H. Hinnant's `civil_from_days`). */
export function civilFromDays(days: number): CalendarDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1,
  };
}
