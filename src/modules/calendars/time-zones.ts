import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { isValidTimeZone } from '../../lib/time.ts';
import { civilFromDays, wallClockToInstant } from '../availability/wall-clock.ts';

/**
 * The IANA zone a TZID names, if any: an IANA name itself, a Windows zone name as Outlook and Exchange write it
 * ("W. Europe Standard Time", mapped through CLDR's windowsZones table), or an IANA name at the end of a
 * path-like TZID ("/mozilla.org/20050126_1/Europe/Berlin"). Undefined for anything else (a custom zone only its
 * VTIMEZONE describes).
 */
export function ianaZoneFor(tzid: string): string | undefined {
  const name = tzid.trim();
  if (isValidTimeZone(name)) return name;
  const windows = findIana(name)[0];
  if (windows) return windows;
  const segments = name.split('/').filter(Boolean);
  for (let take = Math.min(3, segments.length - 1); take >= 2; take -= 1) {
    const suffix = segments.slice(-take).join('/');
    if (isValidTimeZone(suffix)) return suffix;
  }
  return undefined;
}

/** Milliseconds since the epoch of a wall-clock time in an IANA zone (a repeated time is the earlier instant). */
export function zonedInstant(time: ICAL.Time, zone: string): number {
  const wallClock = time.isDate
    ? Date.UTC(time.year, time.month - 1, time.day)
    : Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  return wallClockInstant(wallClock, zone);
}

/** The same for a wall-clock time given as milliseconds read as if UTC (whole seconds). */
export function wallClockInstant(wallClockMs: number, zone: string): number {
  const day = Math.floor(wallClockMs / DAY);
  const offset = dayOffset(zone, day);
  if (!Number.isNaN(offset)) return wallClockMs - offset;
  const ms = wallClockMs - day * DAY;
  return wallClockToInstant(civilFromDays(day), Math.floor(ms / MINUTE), zone) + (ms % MINUTE);
}

/**
 * A zone's UTC offset (ms) on a local date (a day number) when it holds all day, NaN when it changes that day;
 * cached, so that a sync's tens of thousands of wall-clock times (and ical.js's offset look-ups while it iterates
 * a rule) cost a Map read each. Zones change their offset at most once within a day either side of any instant
 * (wall-clock.ts), so the same offset at the date's midnight and at the next one means no change between.
 */
function dayOffset(zone: string, day: number): number {
  let offsets = dayOffsets.get(zone);
  if (!offsets) {
    offsets = new Map();
    dayOffsets.set(zone, offsets);
  }
  let offset = offsets.get(day);
  if (offset === undefined) {
    if (offsets.size > 100_000) offsets.clear();
    const date = civilFromDays(day);
    const start = day * DAY - wallClockToInstant(date, 0, zone);
    offset = start === (day + 1) * DAY - wallClockToInstant(date, 1440, zone) ? start : Number.NaN;
    offsets.set(day, offset);
  }
  return offset;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const dayOffsets = new Map<string, Map<number, number>>();

/**
 * An ical.js zone backed by the runtime's tz database instead of a VTIMEZONE: exact for every year, where the
 * VTIMEZONE a feed ships often holds only the current rules (or is missing, as in a CalDAV REPORT's VEVENTs).
 */
export class IanaZone extends ICAL.Timezone {
  readonly iana: string;

  constructor(tzid: string, iana: string) {
    super({ tzid });
    this.iana = iana;
  }

  override utcOffset(time: ICAL.Time): number {
    const wallClockAsUtc = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
    return Math.round((wallClockAsUtc - zonedInstant(time, this.iana)) / 1000);
  }
}

const DATE_PROPERTIES = new Set(['dtstart', 'dtend', 'rdate', 'exdate', 'recurrence-id']);

/**
 * The calendar's VEVENTs, each re-parented under a root holding only the VTIMEZONEs still needed, so that ical.js
 * reads every TZID that names an IANA zone through that zone, and looks a TZID up among a few VTIMEZONEs rather
 * than among all the calendar's components (a scan ical.js repeats for each date it reads, unless it finds one).
 * An IANA zone is registered in ical.js's shared registry (the same TZID always maps to the same zone, so sharing
 * it is safe); a TZID naming no known zone keeps its VTIMEZONE and, without one, ical.js reads it as floating.
 */
export function eventsWithZones(calendar: ICAL.Component): ICAL.Component[] {
  const events = calendar.getAllSubcomponents('vevent');
  const mapped = new Set<string>();
  for (const tzid of tzidsUsed(events)) {
    const iana = ianaZoneFor(tzid);
    if (!iana) continue;
    mapped.add(tzid);
    const registered = ICAL.TimezoneService.get(tzid);
    if (registered === ICAL.Timezone.utcTimezone) continue;
    if (!(registered instanceof IanaZone && registered.iana === iana)) {
      ICAL.TimezoneService.register(new IanaZone(tzid, iana), tzid);
    }
  }
  const zones = new ICAL.Component('vcalendar');
  for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
    if (!mapped.has(String(vtimezone.getFirstPropertyValue('tzid')))) zones.addSubcomponent(vtimezone);
  }
  for (const event of events) event.parent = zones;
  return events;
}

/** Read from the events' jCal: ical.js would wrap every property it looks at, for thousands of events. */
function tzidsUsed(events: ICAL.Component[]): Set<string> {
  const tzids = new Set<string>();
  for (const event of events) {
    for (const [name, parameters] of event.jCal[1] as [string, Record<string, unknown>][]) {
      const tzid = DATE_PROPERTIES.has(name) ? parameters.tzid : undefined;
      if (typeof tzid === 'string') tzids.add(tzid);
    }
  }
  return tzids;
}
