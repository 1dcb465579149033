/**
 * An iCalendar document (a feed's body, or the calendar objects a CalDAV REPORT returns) turned into the busy
 * intervals it implies over a window. Pure: no I/O, no clock. ical.js parses and expands recurrences (RRULE,
 * RDATE, EXDATE), from close to the window, and only through two periods of a rule that repeats every period on
 * the wall clock (expandRule); instants come from the runtime's tz database (see time-zones.ts).
 */
import ICAL from 'ical.js';
import { DomainError } from '../../lib/errors.ts';
import { isValidTimeZone } from '../../lib/time.ts';
import { civilFromDays } from '../availability/wall-clock.ts';
import { eventsWithZones, IanaZone, wallClockInstant, zonedInstant } from './time-zones.ts';

/** One busy stretch; `uid` names the source event for debugging (never its title or any other detail). */
export interface BusyInterval {
  start: Date;
  end: Date;
  uid: string;
}

export interface BusyWindow {
  start: Date;
  end: Date;
}

/** The document is not iCalendar, or is malformed; the message is safe to show its owner (no event details). */
export class InvalidCalendarError extends DomainError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unprocessable', message);
    this.name = 'InvalidCalendarError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** A series yielding more instances than this before the window's end is refused rather than expanded. */
const MAX_INSTANCES_PER_SERIES = 50_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Every busy instance overlapping the window, whole, sorted by start then end, not merged (each keeps its UID).
 * Floating times and all-day dates are read in `hostTimeZone` (all-day: local midnight to midnight after the last
 * day). Transparent, free (X-MICROSOFT-CDO-BUSYSTATUS:FREE), cancelled and zero-length ones are not busy.
 * Throws InvalidCalendarError when the text is not iCalendar or an event cannot be read.
 */
export function expandBusy(ics: string, window: BusyWindow, hostTimeZone: string): BusyInterval[] {
  if (!isValidTimeZone(hostTimeZone)) throw new RangeError(`Unknown time zone: ${hostTimeZone}`);
  if (!(window.start.getTime() < window.end.getTime())) throw new RangeError('The window must end after it starts');
  const context: Context = { hostZone: hostTimeZone, from: window.start.getTime(), to: window.end.getTime() };
  const busy: Instances = { starts: [], ends: [], uids: [] };
  for (const events of parseEvents(ics)) {
    for (const series of seriesOf(events)) expandSeries(series, context, busy);
  }
  return sortedIntervals(busy);
}

/** The instances found, as epoch milliseconds: tens of thousands for a year of a large feed. */
interface Instances {
  starts: number[];
  ends: number[];
  uids: string[];
}

function addBusy(busy: Instances, startMs: number, endMs: number, uid: string): void {
  busy.starts.push(startMs);
  busy.ends.push(endMs);
  busy.uids.push(uid);
}

/** By start, then end; the Dates made once, in order (sorting the intervals themselves read each Date many times). */
function sortedIntervals({ starts, ends, uids }: Instances): BusyInterval[] {
  const order = Array.from(starts.keys()).sort((a, b) => starts[a]! - starts[b]! || ends[a]! - ends[b]!);
  return order.map((i) => ({ start: new Date(starts[i]!), end: new Date(ends[i]!), uid: uids[i]! }));
}

interface Context {
  hostZone: string;
  from: number;
  to: number;
}

/** A recurring event's master (absent when only overrides were sent) and its overridden instances. */
interface Series {
  uid: string;
  master: ICAL.Component | undefined;
  overrides: ICAL.Component[];
}

/** The VEVENTs of every calendar object in the text. */
function parseEvents(ics: string): ICAL.Component[][] {
  const text = ics.replace(/^\uFEFF/, '').trimStart();
  if (!/^BEGIN:VCALENDAR\r?\n/i.test(text)) {
    throw new InvalidCalendarError('Not an iCalendar document: it does not start with BEGIN:VCALENDAR');
  }
  let parsed: unknown[];
  try {
    parsed = ICAL.parse(text);
  } catch (error) {
    throw new InvalidCalendarError('Malformed iCalendar: the document could not be parsed', { cause: error });
  }
  // One calendar parses to its jCal, several (a CalDAV REPORT's objects, concatenated) to a list of them.
  const jcals = (Array.isArray(parsed[0]) ? parsed : [parsed]) as unknown[][];
  return jcals.map((jcal) => {
    const calendar = new ICAL.Component(jcal);
    if (calendar.name !== 'vcalendar') throw new InvalidCalendarError(`Malformed iCalendar: a ${calendar.name} outside any VCALENDAR`);
    return eventsWithZones(calendar);
  });
}

function seriesOf(events: ICAL.Component[]): Series[] {
  const byKey = new Map<string, Series>();
  for (const [index, event] of events.entries()) {
    const uid = String(jcalProperty(event, 'uid')?.[3] ?? '');
    // An event without a UID (against RFC 5545, but seen in exports) is a series of its own.
    const key = uid || `\u0000${index}`;
    let series = byKey.get(key);
    if (!series) {
      series = { uid, master: undefined, overrides: [] };
      byKey.set(key, series);
    }
    if (jcalProperty(event, 'recurrence-id')) series.overrides.push(event);
    else if (!series.master) series.master = event;
  }
  return [...byKey.values()];
}

function expandSeries(series: Series, context: Context, busy: Instances): void {
  try {
    const overridden = new Set<number | string>();
    for (const override of series.overrides) {
      overridden.add(occurrenceKey(timeOf(override, 'recurrence-id'), context));
      if (isBusy(override)) addInstance(timeOf(override, 'dtstart'), lengthOf(override, context), series.uid, context, busy);
    }
    if (series.master && !clearlyOutside(series.master, context) && isBusy(series.master)) {
      expandMaster(series.master, overridden, series.uid, context, busy);
    }
  } catch (error) {
    // ical.js's own messages may quote the event's text, so only ours are passed on.
    const reason = error instanceof InvalidCalendarError ? error.message : 'its content is malformed';
    throw new InvalidCalendarError(`Event ${JSON.stringify(series.uid)} cannot be read: ${reason}`, { cause: error });
  }
}

/**
 * An event none of whose instances can reach the window, seen from the jCal text of DTSTART and DTEND alone: it
 * starts a day after the window's end on the wall clock, or, with no RRULE, RDATE or DURATION, ends a day before
 * its start. Most of a long feed's events are such (past years, mostly), and ical.js need not read their times.
 */
function clearlyOutside(master: ICAL.Component, context: Context): boolean {
  const start = jcalWallClock(master, 'dtstart');
  if (start === undefined) return false;
  if (start.ms - WIDEST_OFFSET_MS >= context.to) return true;
  if (jcalProperty(master, 'rrule') || jcalProperty(master, 'rdate') || jcalProperty(master, 'duration')) return false;
  const end = jcalProperty(master, 'dtend') ? jcalWallClock(master, 'dtend')?.ms : start.ms + (start.isDate ? DAY : 0);
  return end !== undefined && end + WIDEST_OFFSET_MS <= context.from;
}

/** An event's first property of a name as jCal ([name, parameters, type, value…]): ical.js would wrap it. */
function jcalProperty(event: ICAL.Component, name: string): unknown[] | undefined {
  for (const property of event.jCal[1] as unknown[][]) if (property[0] === name) return property;
  return undefined;
}

/** A DATE ("2026-11-26") or DATE-TIME ("2026-11-26T07:00:00", "Z" for UTC) in jCal as milliseconds read as UTC. */
function jcalWallClock(event: ICAL.Component, name: string): { ms: number; isDate: boolean } | undefined {
  const value = jcalProperty(event, name)?.[3];
  const match = typeof value === 'string' ? JCAL_TIME.exec(value) : null;
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  return { ms: Date.UTC(year!, month! - 1, day!, hour || 0, minute || 0, second || 0), isDate: match[4] === undefined };
}

const JCAL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z?)?$/;

/** No zone is more than this away from UTC (with room to spare), nor has a day longer than this. */
const WIDEST_OFFSET_MS = 26 * HOUR;
const LONGEST_DAY_MS = 26 * HOUR;

function expandMaster(master: ICAL.Component, overridden: Set<number | string>, uid: string, context: Context, busy: Instances): void {
  const dtstart = timeOf(master, 'dtstart');
  // Instances are read on the wall clock first: one ending well before the window, or starting well after its
  // end (which ends the expansion), needs no time-zone look-up.
  if (wallClockMs(dtstart) - WIDEST_OFFSET_MS >= context.to) return;
  addPeriodInstances(master, overridden, uid, context, busy);
  const series: Expansion = { uid, length: lengthOf(master, context), longest: 0, overridden, context, busy };
  series.longest = series.length.days * LONGEST_DAY_MS + Math.abs(series.length.exactMs);
  const rules = master.getAllProperties('rrule');
  const rdates = master.hasProperty('rdate');
  if (rules.length === 0 && !rdates) {
    if (!outsideWindow(wallClockMs(dtstart), series)) addOccurrence(dtstart, series);
    return;
  }
  const rule = rules.length === 1 && !rdates ? rules[0]!.getValues() : [];
  const exdates = master.getAllProperties('exdate').flatMap((property) => property.getValues() as ICAL.Time[]);
  if (rule.length === 1 && rule[0] instanceof ICAL.Recur && exdates.every((time) => time.isDate || !dtstart.isDate)) {
    for (const time of exdates) {
      if (time.isDate && !dtstart.isDate) (series.excludedDates ??= new Set()).add(dateKey(time));
      else (series.excluded ??= new Set()).add(occurrenceKey(time, context));
    }
    expandRule(rule[0], dtstart, series);
    return;
  }
  // Several rules, or RDATEs: ical.js merges them (and applies EXDATE) in RecurExpansion.
  const expansion = new ICAL.RecurExpansion({ component: withDtstartInstance(master), dtstart });
  let previous: ICAL.Time | undefined;
  for (let count = 0; ; count += 1) {
    const occurrence = expansion.next();
    if (!occurrence) return;
    const wallClock = wallClockMs(occurrence);
    if (wallClock - WIDEST_OFFSET_MS >= context.to) return;
    guardCount(count);
    // An RDATE that repeats an RRULE instance is the same instance (the recurrence set is a set), and comes next.
    const repeated = previous !== undefined && occurrence.compare(previous) === 0;
    previous = occurrence;
    if (!repeated && !outsideWindow(wallClock, series)) addOccurrence(occurrence, series);
  }
}

/** One series' expansion: what each instance needs, and where instances go. */
interface Expansion {
  uid: string;
  length: Length;
  /** The most an instance lasts, at least (see LONGEST_DAY_MS). */
  longest: number;
  overridden: Set<number | string>;
  /** EXDATEs a single rule's instances are checked against (by occurrence key, and DATEs on date-times by date). */
  excluded?: Set<number | string>;
  excludedDates?: Set<string>;
  context: Context;
  busy: Instances;
}

function guardCount(count: number): void {
  if (count >= MAX_INSTANCES_PER_SERIES) {
    throw new InvalidCalendarError(`it repeats more than ${MAX_INSTANCES_PER_SERIES} times before the window ends`);
  }
}

/** An instance starting at this wall-clock time ends before the window on any zone's clock. */
function outsideWindow(wallClock: number, series: Expansion): boolean {
  return wallClock + series.longest + WIDEST_OFFSET_MS <= series.context.from;
}

function addOccurrence(occurrence: ICAL.Time, series: Expansion): void {
  const key = occurrenceKey(occurrence, series.context);
  if (series.excluded?.has(key) || series.overridden.has(key)) return;
  if (series.excludedDates?.has(dateKey(occurrence))) return;
  addInstance(occurrence, series.length, series.uid, series.context, series.busy);
}

/**
 * One RRULE without RDATE, read straight from ical.js's rule iterator (RecurExpansion clones every instance, and
 * compares each with the next EXDATE only, so an EXDATE naming no instance hid the next one it named). The rule
 * starts close to the window when that is exact (fastForwarded). A rule that repeats the same instances every
 * period on the wall clock (periodOf) is iterated by ical.js through its first two periods only: the second's
 * instances, moved by whole periods, are all the later ones; each moved instance is checked against the one
 * ical.js gives next, and ical.js iterates on should they ever differ.
 */
function expandRule(rule: ICAL.Recur, dtstart: ICAL.Time, series: Expansion): void {
  const { context } = series;
  const start = rule.count ? dtstart : fastForwarded(rule, dtstart, context.from - series.longest - 2 * WIDEST_OFFSET_MS);
  const iterator = rule.iterator(start);
  const zone = numericZone(dtstart, context);
  let period = zone ? periodOf(rule) : 0;
  const patternFrom = wallClockMs(start) + period;
  const pattern: number[] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (let count = 0; ; count += 1) {
    const occurrence = iterator.next();
    if (!occurrence) return;
    const wallClock = wallClockMs(occurrence);
    if (wallClock - WIDEST_OFFSET_MS >= context.to) return;
    // ical.js yields a day's times in BYHOUR's (BYMINUTE's…) order as written: the moved pattern needs them in order.
    if (wallClock < previous) period = 0;
    previous = wallClock;
    if (period > 0 && wallClock >= patternFrom + period && pattern.length > 0 && wallClock === patternFrom + period + pattern[0]!) {
      repeatPattern(rule, pattern, patternFrom, period, count, zone!, series);
      return;
    }
    guardCount(count);
    if (period > 0 && wallClock >= patternFrom && wallClock < patternFrom + period) pattern.push(wallClock - patternFrom);
    if (!outsideWindow(wallClock, series)) addOccurrence(occurrence, series);
  }
}

/** How a series' wall-clock times become instants without ical.js: all but zones only a VTIMEZONE describes. */
interface NumericZone {
  /** The zone this library reads the times in (the host's for floating times and dates), or undefined for UTC. */
  instants: string | undefined;
  /** The zone ical.js compares them with UNTIL in: its IANA zone, or undefined when it reads them as UTC. */
  untilZone: string | undefined;
  isDate: boolean;
}

function numericZone(dtstart: ICAL.Time, context: Context): NumericZone | undefined {
  const untilZone = dtstart.zone instanceof IanaZone ? dtstart.zone.iana : undefined;
  const isDate = dtstart.isDate;
  if (isDate || dtstart.zone === ICAL.Timezone.localTimezone) return { instants: context.hostZone, untilZone, isDate };
  if (dtstart.zone instanceof IanaZone) return { instants: dtstart.zone.iana, untilZone, isDate };
  if (dtstart.zone === ICAL.Timezone.utcTimezone) return { instants: undefined, untilZone, isDate };
  return undefined;
}

const WEEKDAY_CODES = new Set(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);

/**
 * The period (ms) after which a rule's instances repeat on the wall clock, or 0: DAILY and WEEKLY rules with at
 * most BYDAY (plain weekdays), BYHOUR, BYMINUTE and BYSECOND repeat every INTERVAL days or weeks (with BYDAY, a
 * DAILY rule every common multiple of INTERVAL and 7 days). COUNT and UNTIL are applied to the moved instances.
 */
function periodOf(rule: ICAL.Recur): number {
  const interval = rule.interval > 0 ? rule.interval : 1;
  const parts = Object.keys(rule.parts);
  if (!parts.every((part) => part === 'BYDAY' || part === 'BYHOUR' || part === 'BYMINUTE' || part === 'BYSECOND')) return 0;
  const byday = rule.parts.BYDAY;
  if (byday && !byday.every((day) => WEEKDAY_CODES.has(String(day)))) return 0;
  if (rule.freq === 'WEEKLY') return 7 * interval * DAY;
  if (rule.freq === 'DAILY') return (byday ? (interval % 7 === 0 ? interval : 7 * interval) : interval) * DAY;
  return 0;
}

/**
 * The instances after ical.js's first two periods: the second period's (`pattern`, wall-clock offsets from
 * `patternFrom`, in order) moved by whole periods, counted on from `count` for COUNT, and ended by UNTIL as
 * ical.js compares it (see NumericZone).
 */
function repeatPattern(rule: ICAL.Recur, pattern: number[], patternFrom: number, period: number, count: number, zone: NumericZone, series: Expansion): void {
  const { context } = series;
  const until = rule.until ? rule.until.toUnixTime() * 1000 : Number.POSITIVE_INFINITY;
  const limit = rule.count ? rule.count : Number.POSITIVE_INFINITY;
  for (let repeat = patternFrom + period; ; repeat += period) {
    for (const offset of pattern) {
      const wallClock = repeat + offset;
      if (wallClock - WIDEST_OFFSET_MS >= context.to || count >= limit) return;
      if (until !== Number.POSITIVE_INFINITY && (zone.untilZone ? wallClockInstant(wallClock, zone.untilZone) : wallClock) > until) return;
      guardCount(count);
      count += 1;
      if (!outsideWindow(wallClock, series)) addWallClockInstance(wallClock, zone, series);
    }
  }
}

/** addOccurrence for a wall-clock time in a NumericZone. */
function addWallClockInstance(wallClock: number, zone: NumericZone, series: Expansion): void {
  const instantOfWallClock = (ms: number) => (zone.instants ? wallClockInstant(ms, zone.instants) : ms);
  const startMs = instantOfWallClock(wallClock);
  const date = zone.isDate || series.excludedDates ? dateKeyOf(wallClock) : '';
  const key = zone.isDate ? date : startMs;
  if (series.excluded?.has(key) || series.overridden.has(key) || series.excludedDates?.has(date)) return;
  const { length, context } = series;
  const endMs = (length.days === 0 ? startMs : instantOfWallClock(wallClock + length.days * DAY)) + length.exactMs;
  if (endMs > startMs && endMs > context.from && startMs < context.to) {
    addBusy(series.busy, startMs, endMs, series.uid);
  }
}

/**
 * Where a rule without COUNT may start instead of DTSTART when instances before `before` (wall clock) do not
 * matter: DTSTART moved by whole periods of the rule (INTERVAL days, weeks or months) to the last such place not
 * after `before`. Each period then holds the same instances as before, since what the rule takes from DTSTART
 * (time of day, weekday, day of month, week alignment) is unchanged, and only instances before `before` differ.
 * Monthly rules starting after the 28th, and other frequencies, are expanded from DTSTART.
 */
function fastForwarded(rule: ICAL.Recur, dtstart: ICAL.Time, before: number): ICAL.Time {
  const start = wallClockMs(dtstart);
  const interval = rule.interval > 0 ? rule.interval : 1;
  if (!(before > start)) return dtstart;
  if (rule.freq === 'DAILY' || rule.freq === 'WEEKLY') {
    const days = (rule.freq === 'DAILY' ? 1 : 7) * interval;
    const periods = Math.floor((before - start) / (days * DAY));
    if (periods < 1) return dtstart;
    const moved = dtstart.clone();
    moved.adjust(periods * days, 0, 0, 0);
    return moved;
  }
  if (rule.freq === 'MONTHLY' && dtstart.day <= 28) {
    const limit = new Date(before);
    // Whole months from DTSTART's month to the one before `before`'s: the moved start lies before that month.
    const months = (limit.getUTCFullYear() - dtstart.year) * 12 + limit.getUTCMonth() + 1 - dtstart.month - 1;
    const periods = Math.floor(months / interval);
    if (periods < 1) return dtstart;
    const month = dtstart.month - 1 + periods * interval;
    const moved = dtstart.clone();
    moved.year = dtstart.year + Math.floor(month / 12);
    moved.month = (month % 12) + 1;
    return moved;
  }
  return dtstart;
}

/**
 * ical.js leaves DTSTART out of the instances of a series given by RDATE alone (it counts it only through an
 * RRULE's first instance), so such a series gets a one-instance rule for DTSTART (in this call's own parsed
 * copy of the document), and EXDATE still applies to it.
 */
function withDtstartInstance(master: ICAL.Component): ICAL.Component {
  if (!master.hasProperty('rrule')) master.addPropertyWithValue('rrule', ICAL.Recur.fromString('FREQ=DAILY;COUNT=1'));
  return master;
}

/**
 * RDATE;VALUE=PERIOD instances carry their own end, and ical.js cannot order them among the others: they are
 * taken out of the master (this call's own parsed copy) and added here, unless an EXDATE or override names them.
 */
function addPeriodInstances(master: ICAL.Component, overridden: Set<number | string>, uid: string, context: Context, busy: Instances): void {
  const periods: ICAL.Period[] = [];
  for (const property of master.getAllProperties('rdate')) {
    const values = property.getValues();
    if (!values.some((value) => value instanceof ICAL.Period)) continue;
    for (const value of values) if (value instanceof ICAL.Period) periods.push(value);
    master.removeProperty(property);
  }
  if (periods.length === 0) return;
  const excluded = new Set(master.getAllProperties('exdate').flatMap((property) => property.getValues().map((time) => occurrenceKey(time as ICAL.Time, context))));
  for (const period of periods) {
    const key = occurrenceKey(period.start, context);
    if (excluded.has(key) || overridden.has(key)) continue;
    const exactMs = instantOf(period.getEnd(), context) - instantOf(period.start, context);
    addInstance(period.start, { days: 0, exactMs }, uid, context, busy);
  }
}

/** An instance's length: whole days on the wall clock, then exact milliseconds. */
interface Length {
  days: number;
  exactMs: number;
}

/**
 * How long each instance of an event lasts: DTEND's exact distance from DTSTART (the same for every instance, as
 * RFC 5545 says), or DURATION (days and weeks on the wall clock, the rest exact), or, with neither, one day for a
 * date and nothing for a date-time.
 */
function lengthOf(event: ICAL.Component, context: Context): Length {
  const dtstart = timeOf(event, 'dtstart');
  const duration = event.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) {
    const sign = duration.isNegative ? -1 : 1;
    const exactMs = sign * (duration.hours * 3600 + duration.minutes * 60 + duration.seconds) * 1000;
    return { days: sign * (duration.weeks * 7 + duration.days), exactMs: dtstart.isDate ? 0 : exactMs };
  }
  if (event.hasProperty('dtend')) {
    const dtend = timeOf(event, 'dtend');
    if (dtstart.isDate) return { days: dayNumber(dtend) - dayNumber(dtstart), exactMs: 0 };
    return { days: 0, exactMs: instantOf(dtend, context) - instantOf(dtstart, context) };
  }
  return { days: dtstart.isDate ? 1 : 0, exactMs: 0 };
}

/** Adds the instance starting at `start` when it is busy for a while inside the window. */
function addInstance(start: ICAL.Time, length: Length, uid: string, context: Context, busy: Instances): void {
  const startMs = instantOf(start, context);
  let endMs = startMs + length.exactMs;
  if (length.days !== 0) {
    const endDay = start.clone();
    endDay.adjust(length.days, 0, 0, 0);
    endMs = instantOf(endDay, context) + length.exactMs;
  }
  if (endMs > startMs && endMs > context.from && startMs < context.to) {
    addBusy(busy, startMs, endMs, uid);
  }
}

function isBusy(event: ICAL.Component): boolean {
  const upper = (name: string) => String(event.getFirstPropertyValue(name) ?? '').toUpperCase();
  return upper('status') !== 'CANCELLED' && upper('transp') !== 'TRANSPARENT' && upper('x-microsoft-cdo-busystatus') !== 'FREE';
}

function timeOf(event: ICAL.Component, name: string): ICAL.Time {
  const value = event.getFirstPropertyValue(name);
  if (!(value instanceof ICAL.Time)) throw new InvalidCalendarError(`it has no valid ${name.toUpperCase()}`);
  return value;
}

/** The instant of a time: UTC, a zone's (IANA or the document's VTIMEZONE), or the host's for floating times and dates. */
function instantOf(time: ICAL.Time, context: Context): number {
  if (time.isDate || time.zone === ICAL.Timezone.localTimezone) return zonedInstant(time, context.hostZone);
  if (time.zone instanceof IanaZone) return zonedInstant(time, time.zone.iana);
  return time.toUnixTime() * 1000;
}

/** Which instance a RECURRENCE-ID (or an EXDATE) names: a date for all-day series, the instant otherwise. */
function occurrenceKey(time: ICAL.Time, context: Context): number | string {
  return time.isDate ? dateKey(time) : instantOf(time, context);
}

function dateKey(time: ICAL.Time): string {
  return `${time.year}-${time.month}-${time.day}`;
}

/** dateKey of a wall-clock time in milliseconds. */
function dateKeyOf(wallClock: number): string {
  const date = civilFromDays(Math.floor(wallClock / DAY));
  return `${date.year}-${date.month}-${date.day}`;
}

function dayNumber(time: ICAL.Time): number {
  return Math.floor(Date.UTC(time.year, time.month - 1, time.day) / DAY);
}

/** A time's wall-clock fields read as if they were UTC. */
function wallClockMs(time: ICAL.Time): number {
  return time.isDate ? Date.UTC(time.year, time.month - 1, time.day) : Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}
