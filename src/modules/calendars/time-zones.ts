import ICAL from 'ical.js';
import { findIana } from 'windows-iana';
import { isValidTimeZone } from '../../lib/time.ts';
import { wallClockToInstant } from '../availability/wall-clock.ts';

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
  const date = { year: time.year, month: time.month, day: time.day };
  const minutes = time.isDate ? 0 : time.hour * 60 + time.minute;
  return wallClockToInstant(date, minutes, zone) + (time.isDate ? 0 : time.second * 1000);
}

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

/**
 * Makes ical.js read every TZID the document uses that names an IANA zone through that zone: the document's own
 * VTIMEZONE for it is dropped (ical.js prefers it) and the zone is registered in ical.js's shared registry (the
 * same TZID always maps to the same zone, so sharing it between documents is safe). TZIDs naming no known zone
 * keep their VTIMEZONE; with none, ical.js reads them as floating times.
 */
export function useIanaZones(calendar: ICAL.Component, tzids: Iterable<string>): void {
  for (const tzid of tzids) {
    const iana = ianaZoneFor(tzid);
    if (!iana) continue;
    for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
      if (vtimezone.getFirstPropertyValue('tzid') === tzid) calendar.removeSubcomponent(vtimezone);
    }
    const registered = ICAL.TimezoneService.get(tzid);
    if (registered === ICAL.Timezone.utcTimezone) continue;
    if (!(registered instanceof IanaZone && registered.iana === iana)) {
      ICAL.TimezoneService.register(new IanaZone(tzid, iana), tzid);
    }
  }
}
