/**
 * An iCalendar document (a feed's body, or the calendar objects a CalDAV REPORT returns) turned into the busy
 * intervals it implies over a window. Pure: no I/O, no clock. ical.js parses and expands recurrences (RRULE,
 * RDATE, EXDATE); instants come from the runtime's tz database (see time-zones.ts).
 */
import ICAL from 'ical.js';
import { DomainError } from '../../lib/errors.ts';
import { isValidTimeZone } from '../../lib/time.ts';
import { eventsWithZones, IanaZone, zonedInstant } from './time-zones.ts';

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
  const busy: BusyInterval[] = [];
  for (const events of parseEvents(ics)) {
    for (const series of seriesOf(events)) expandSeries(series, context, busy);
  }
  return busy.sort((a, b) => a.start.getTime() - b.start.getTime() || a.end.getTime() - b.end.getTime());
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
    const uid = String(event.getFirstPropertyValue('uid') ?? '');
    // An event without a UID (against RFC 5545, but seen in exports) is a series of its own.
    const key = uid || `\u0000${index}`;
    let series = byKey.get(key);
    if (!series) {
      series = { uid, master: undefined, overrides: [] };
      byKey.set(key, series);
    }
    if (event.hasProperty('recurrence-id')) series.overrides.push(event);
    else if (!series.master) series.master = event;
  }
  return [...byKey.values()];
}

function expandSeries(series: Series, context: Context, busy: BusyInterval[]): void {
  try {
    const overridden = new Set<string>();
    for (const override of series.overrides) {
      overridden.add(occurrenceKey(timeOf(override, 'recurrence-id'), context));
      if (isBusy(override)) addInstance(timeOf(override, 'dtstart'), lengthOf(override, context), series.uid, context, busy);
    }
    if (series.master && isBusy(series.master)) expandMaster(series.master, overridden, series.uid, context, busy);
  } catch (error) {
    // ical.js's own messages may quote the event's text, so only ours are passed on.
    const reason = error instanceof InvalidCalendarError ? error.message : 'its content is malformed';
    throw new InvalidCalendarError(`Event ${JSON.stringify(series.uid)} cannot be read: ${reason}`, { cause: error });
  }
}

/** No zone is more than this away from UTC (with room to spare), nor has a day longer than this. */
const WIDEST_OFFSET_MS = 26 * HOUR;
const LONGEST_DAY_MS = 26 * HOUR;

function expandMaster(master: ICAL.Component, overridden: Set<string>, uid: string, context: Context, busy: BusyInterval[]): void {
  const dtstart = timeOf(master, 'dtstart');
  // Instances are read on the wall clock first: one ending well before the window, or starting well after its
  // end (which ends the expansion), needs no time-zone look-up.
  if (wallClockMs(dtstart) - WIDEST_OFFSET_MS >= context.to) return;
  addPeriodInstances(master, overridden, uid, context, busy);
  const length = lengthOf(master, context);
  const longest = length.days * LONGEST_DAY_MS + Math.abs(length.exactMs);
  const recurring = master.hasProperty('rrule') || master.hasProperty('rdate');
  const expansion = recurring ? new ICAL.RecurExpansion({ component: withDtstartInstance(master), dtstart }) : undefined;
  let previous: ICAL.Time | undefined;
  for (let count = 0; ; count += 1) {
    const occurrence = expansion ? expansion.next() : count === 0 ? dtstart : undefined;
    if (!occurrence) return;
    const wallClock = wallClockMs(occurrence);
    if (wallClock - WIDEST_OFFSET_MS >= context.to) return;
    if (count >= MAX_INSTANCES_PER_SERIES) {
      throw new InvalidCalendarError(`it repeats more than ${MAX_INSTANCES_PER_SERIES} times before the window ends`);
    }
    // An RDATE that repeats an RRULE instance is the same instance (the recurrence set is a set), and comes next.
    const repeated = previous !== undefined && occurrence.compare(previous) === 0;
    previous = occurrence;
    if (repeated || wallClock + longest + WIDEST_OFFSET_MS <= context.from) continue;
    if (overridden.size === 0 || !overridden.has(occurrenceKey(occurrence, context))) addInstance(occurrence, length, uid, context, busy);
  }
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
function addPeriodInstances(master: ICAL.Component, overridden: Set<string>, uid: string, context: Context, busy: BusyInterval[]): void {
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
function addInstance(start: ICAL.Time, length: Length, uid: string, context: Context, busy: BusyInterval[]): void {
  const startMs = instantOf(start, context);
  let endMs = startMs + length.exactMs;
  if (length.days !== 0) {
    const endDay = start.clone();
    endDay.adjust(length.days, 0, 0, 0);
    endMs = instantOf(endDay, context) + length.exactMs;
  }
  if (endMs > startMs && endMs > context.from && startMs < context.to) {
    busy.push({ start: new Date(startMs), end: new Date(endMs), uid });
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

/** Which instance a RECURRENCE-ID names: a date for all-day series, the instant otherwise. */
function occurrenceKey(time: ICAL.Time, context: Context): string {
  return time.isDate ? `${time.year}-${time.month}-${time.day}` : String(instantOf(time, context));
}

function dayNumber(time: ICAL.Time): number {
  return Math.floor(Date.UTC(time.year, time.month - 1, time.day) / DAY);
}

/** A time's wall-clock fields read as if they were UTC. */
function wallClockMs(time: ICAL.Time): number {
  return time.isDate ? Date.UTC(time.year, time.month - 1, time.day) : Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
}
