/**
 * A VTIMEZONE for an IANA zone, built from the runtime's own time zone data (the data every other time of the
 * service comes from): the zone's offset changes from a year before to a year after an instant, each as an
 * observance with a single onset. RFC 5545 wants one for every TZID an invitation names; Outlook needs it.
 */
import { offsetMinutes } from '../availability/wall-clock.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;
const YEAR = 366 * DAY;

interface Transition {
  /** The first instant of the new offset. */
  at: number;
  from: number;
  to: number;
}

/** The zone's offset changes within [from, to], found day by day and then to the minute. */
export function offsetTransitions(zone: string, from: number, to: number): Transition[] {
  const transitions: Transition[] = [];
  let previous = offsetMinutes(from, zone);
  for (let day = from + DAY; day <= to; day += DAY) {
    const offset = offsetMinutes(day, zone);
    if (offset === previous) continue;
    let low = day - DAY;
    let high = day;
    while (high - low > MINUTE) {
      const middle = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE;
      if (offsetMinutes(middle, zone) === previous) low = middle;
      else high = middle;
    }
    transitions.push({ at: high, from: previous, to: offset });
    previous = offset;
  }
  return transitions;
}

/**
 * Each zone's changes per UTC calendar year, found once: an invitation needs two years of them, and finding them
 * (a look-up per day, and Intl calls to the minute around each change) cost more than the rest of the invitation.
 */
const yearTransitions = new Map<string, Transition[]>();

function transitionsOfYear(zone: string, year: number): Transition[] {
  const key = `${zone}|${year}`;
  let transitions = yearTransitions.get(key);
  if (!transitions) {
    if (yearTransitions.size > 10_000) yearTransitions.clear();
    // Days from midnight UTC, a whole number of them: the changes in (1 January, 1 January of the next year].
    transitions = offsetTransitions(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
    yearTransitions.set(key, transitions);
  }
  return transitions;
}

/** The zone's changes in (from, to], from the years' kept lists: offsetTransitions' for a whole number of days. */
export function cachedTransitions(zone: string, from: number, to: number): Transition[] {
  const first = new Date(from).getUTCFullYear();
  const last = new Date(to).getUTCFullYear();
  const transitions: Transition[] = [];
  for (let year = first; year <= last; year++) {
    for (const change of transitionsOfYear(zone, year)) if (change.at > from && change.at <= to) transitions.push(change);
  }
  return transitions;
}

/** `+0100`, `-0430`. */
function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}${String(absolute % 60).padStart(2, '0')}`;
}

/** The local time an instant shows at an offset, as a DATE-TIME without zone (`20261025T030000`). */
function localText(epochMs: number, offset: number): string {
  return new Date(epochMs + offset * MINUTE).toISOString().slice(0, 19).replace(/[-:]/g, '');
}

function observance(kind: 'STANDARD' | 'DAYLIGHT', start: number, from: number, to: number): string[] {
  return [`BEGIN:${kind}`, `DTSTART:${localText(start, from)}`, `TZOFFSETFROM:${offsetText(from)}`, `TZOFFSETTO:${offsetText(to)}`, `END:${kind}`];
}

/**
 * The VTIMEZONE component of `zone` valid from a year before `around` to a year after `until` (a series' last
 * occurrence; `around` itself by default), CRLF line ends.
 */
export function vtimezone(zone: string, around: Date, until: Date = around): string {
  const from = around.getTime() - YEAR;
  const initial = offsetMinutes(from, zone);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`, ...observance('STANDARD', from, initial, initial)];
  for (const change of cachedTransitions(zone, from, until.getTime() + YEAR)) {
    lines.push(...observance(change.to > change.from ? 'DAYLIGHT' : 'STANDARD', change.at, change.from, change.to));
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}
