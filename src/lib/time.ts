import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone.js';
import utc from 'dayjs/plugin/utc.js';
import { z } from 'zod';

dayjs.extend(utc);
dayjs.extend(timezone);

export { dayjs };

const IANA_NAME = /^(?:[A-Za-z][A-Za-z0-9_+-]*)(?:\/[A-Za-z0-9_+-]+)*$/;
const validity = new Map<string, boolean>();

/** True for IANA time zone names the runtime knows (e.g. Europe/Berlin, UTC); offsets like +01:00 are not zones. */
export function isValidTimeZone(name: string): boolean {
  const known = validity.get(name);
  if (known !== undefined) return known;
  let valid = IANA_NAME.test(name) && name.length <= 64;
  if (valid) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name });
    } catch {
      valid = false;
    }
  }
  if (validity.size < 10_000) validity.set(name, valid);
  return valid;
}

/** The shape of every IANA (tz database) zone name; which names exist is checked against the runtime's tz data. */
const IANA_ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export const TimeZoneSchema = z
  .string()
  .max(64)
  .regex(IANA_ZONE_NAME, { message: 'must be an IANA time zone name, e.g. Europe/Berlin', abort: true })
  .refine(isValidTimeZone, { message: 'must be an IANA time zone name, e.g. Europe/Berlin' })
  .meta({
    description: 'IANA time zone name (tz database), e.g. `Europe/Berlin`, `America/New_York` or `UTC`; unknown names are a 400.',
    examples: ['Europe/Berlin'],
  });

/** An RFC 3339 date-time with an explicit offset or Z, as every instant on the API is written. */
export const DateTimeSchema = z.iso.datetime({ offset: true });

export function toIso(date: Date): string {
  return date.toISOString();
}

/** The same instant written in a time zone's local offset, e.g. 2026-03-08T03:00:00-04:00. */
export function toZonedIso(date: Date, zone: string): string {
  return dayjs(date).tz(zone).format('YYYY-MM-DDTHH:mm:ssZ');
}
