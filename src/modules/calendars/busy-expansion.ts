/**
 * An iCalendar document (a feed's body, or the calendar objects a CalDAV REPORT returns) turned into the busy
 * intervals it implies over a window. Pure: no I/O, no clock. ical.js parses and expands recurrences (RRULE,
 * RDATE, EXDATE); instants come from the runtime's tz database (see time-zones.ts).
 */
import ICAL from 'ical.js';
import { DomainError } from '../../lib/errors.ts';
import { isValidTimeZone } from '../../lib/time.ts';
import { IanaZone, useIanaZones, zonedInstant } from './time-zones.ts';

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
export const MAX_INSTANCES_PER_SERIES = 50_000;

const DATE_PROPERTIES = ['dtstart', 'dtend', 'rdate', 'exdate', 'recurrence-id'];

/**
 * Every busy instance of the document's events that overlaps the window, whole (not clipped), sorted by start
 * then end, and not merged (overlapping events stay separate intervals, each with its UID).
 * Floating times and all-day dates are read in `hostTimeZone`; an all-day event is busy from the host's local
 * midnight of its first day to that of the day after its last. Transparent, free (Outlook's
 * X-MICROSOFT-CDO-BUSYSTATUS:FREE) and cancelled events or instances are not busy, nor are zero-length ones.
 * Throws InvalidCalendarError when the text is not iCalendar or an event cannot be read.
 */
export function expandBusy(ics: string, window: BusyWindow, hostTimeZone: string): BusyInterval[] {
  if (!isValidTimeZone(hostTimeZone)) throw new RangeError(`Unknown time zone: ${hostTimeZone}`);
  if (!(window.start.getTime() < window.end.getTime())) throw new RangeError('The window must end after it starts');
  const context: Context = { hostZone: hostTimeZone, from: window.start.getTime(), to: window.end.getTime() };
  const busy: BusyInterval[] = [];
  for (const calendar of parseCalendars(ics)) {
    for (const series of seriesOf(calendar)) expandSeries(series, context, busy);
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

function parseCalendars(ics: string): ICAL.Component[] {
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
    useIanaZones(calendar, tzidsIn(calendar));
    return calendar;
  });
}

function tzidsIn(calendar: ICAL.Component): Set<string> {
  const tzids = new Set<string>();
  for (const event of calendar.getAllSubcomponents('vevent')) {
    for (const name of DATE_PROPERTIES) {
      for (const property of event.getAllProperties(name)) {
        const tzid = property.getParameter('tzid');
        if (typeof tzid === 'string') tzids.add(tzid);
      }
    }
  }
  return tzids;
}

function seriesOf(calendar: ICAL.Component): Series[] {
  const byUid = new Map<string, Series>();
  for (const event of calendar.getAllSubcomponents('vevent')) {
    const uid = String(event.getFirstPropertyValue('uid') ?? '');
    let series = byUid.get(uid);
    if (!series) {
      series = { uid, master: undefined, overrides: [] };
      byUid.set(uid, series);
    }
    if (event.hasProperty('recurrence-id')) series.overrides.push(event);
    else if (!series.master) series.master = event;
  }
  return [...byUid.values()];
}

function expandSeries(series: Series, context: Context, busy: BusyInterval[]): void {
  try {
    const overridden = new Set<string>();
    for (const override of series.overrides) {
      overridden.add(occurrenceKey(timeOf(override, 'recurrence-id'), context));
      if (isBusy(override)) addInstance(override, timeOf(override, 'dtstart'), series.uid, context, busy);
    }
    if (series.master && isBusy(series.master)) expandMaster(series.master, overridden, series.uid, context, busy);
  } catch (error) {
    if (error instanceof InvalidCalendarError) throw error;
    throw new InvalidCalendarError(`Malformed iCalendar: event ${JSON.stringify(series.uid)} could not be read`, { cause: error });
  }
}

function expandMaster(master: ICAL.Component, overridden: Set<string>, uid: string, context: Context, busy: BusyInterval[]): void {
  const dtstart = timeOf(master, 'dtstart');
  if (!master.hasProperty('rrule') && !master.hasProperty('rdate')) {
    if (!overridden.has(occurrenceKey(dtstart, context))) addInstance(master, dtstart, uid, context, busy);
    return;
  }
  const expansion = new ICAL.RecurExpansion({ component: withDtstartInstance(master), dtstart });
  for (let count = 0; ; count += 1) {
    const occurrence = expansion.next();
    if (!occurrence || instantOf(occurrence, context) >= context.to) return;
    if (count >= MAX_INSTANCES_PER_SERIES) {
      throw new InvalidCalendarError(`Event ${JSON.stringify(uid)} repeats more than ${MAX_INSTANCES_PER_SERIES} times before the window ends`);
    }
    if (overridden.size === 0 || !overridden.has(occurrenceKey(occurrence, context))) addInstance(master, occurrence, uid, context, busy);
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

/** Adds the instance of `event` starting at `start` when it is busy for a while inside the window. */
function addInstance(event: ICAL.Component, start: ICAL.Time, uid: string, context: Context, busy: BusyInterval[]): void {
  const startMs = instantOf(start, context);
  const endMs = endOf(event, start, startMs, context);
  if (endMs > startMs && endMs > context.from && startMs < context.to) {
    busy.push({ start: new Date(startMs), end: new Date(endMs), uid });
  }
}

/**
 * Where an instance ends: DTEND's exact distance from DTSTART (the same for every instance, as RFC 5545 says),
 * or DURATION (days and weeks on the wall clock, the rest exact), or, with neither, one day for a date and
 * nothing for a date-time.
 */
function endOf(event: ICAL.Component, start: ICAL.Time, startMs: number, context: Context): number {
  const duration = event.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) {
    const sign = duration.isNegative ? -1 : 1;
    const days = sign * (duration.weeks * 7 + duration.days);
    const exactMs = sign * (duration.hours * 3600 + duration.minutes * 60 + duration.seconds) * 1000;
    const end = start.clone();
    end.adjust(days, 0, 0, 0);
    return instantOf(end, context) + (start.isDate ? 0 : exactMs);
  }
  if (event.hasProperty('dtend')) {
    const dtstart = timeOf(event, 'dtstart');
    const dtend = timeOf(event, 'dtend');
    if (start.isDate) {
      const end = start.clone();
      end.adjust(dayNumber(dtend) - dayNumber(dtstart), 0, 0, 0);
      return instantOf(end, context);
    }
    return startMs + (instantOf(dtend, context) - instantOf(dtstart, context));
  }
  if (!start.isDate) return startMs;
  const end = start.clone();
  end.adjust(1, 0, 0, 0);
  return instantOf(end, context);
}

function isBusy(event: ICAL.Component): boolean {
  const upper = (name: string) => String(event.getFirstPropertyValue(name) ?? '').toUpperCase();
  return upper('status') !== 'CANCELLED' && upper('transp') !== 'TRANSPARENT' && upper('x-microsoft-cdo-busystatus') !== 'FREE';
}

function timeOf(event: ICAL.Component, name: string): ICAL.Time {
  const value = event.getFirstPropertyValue(name);
  if (!(value instanceof ICAL.Time)) throw new InvalidCalendarError(`Malformed iCalendar: an event without a valid ${name.toUpperCase()}`);
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
  return Math.floor(Date.UTC(time.year, time.month - 1, time.day) / 86_400_000);
}
