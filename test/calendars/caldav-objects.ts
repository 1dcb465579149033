/** Calendar objects as CalDAV clients PUT them: one VCALENDAR per event (with its overrides), zones described. */

export const BERLIN = `BEGIN:VTIMEZONE\r
TZID:Europe/Berlin\r
BEGIN:DAYLIGHT\r
TZOFFSETFROM:+0100\r
TZOFFSETTO:+0200\r
TZNAME:CEST\r
DTSTART:19700329T020000\r
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
END:DAYLIGHT\r
BEGIN:STANDARD\r
TZOFFSETFROM:+0200\r
TZOFFSETTO:+0100\r
TZNAME:CET\r
DTSTART:19701025T030000\r
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
END:STANDARD\r
END:VTIMEZONE\r
`;

export const NEW_YORK = `BEGIN:VTIMEZONE\r
TZID:America/New_York\r
BEGIN:DAYLIGHT\r
TZOFFSETFROM:-0500\r
TZOFFSETTO:-0400\r
TZNAME:EDT\r
DTSTART:19700308T020000\r
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r
END:DAYLIGHT\r
BEGIN:STANDARD\r
TZOFFSETFROM:-0400\r
TZOFFSETTO:-0500\r
TZNAME:EST\r
DTSTART:19701101T020000\r
RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r
END:STANDARD\r
END:VTIMEZONE\r
`;

/** A day as iCalendar writes a date (`20261201`). */
export function icsDate(day: Date): string {
  return day.toISOString().slice(0, 10).replace(/-/g, '');
}

/** A wall-clock time on a day (`20261201T110000`), for a TZID property. */
export function icsLocal(day: Date, hour: number): string {
  return `${icsDate(day)}T${String(hour).padStart(2, '0')}0000`;
}

/** An instant in UTC (`20261201T100000Z`). */
export function icsUtc(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

export function vcalendar(...parts: string[]): string {
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//caldav//EN\r\n${parts.join('')}END:VCALENDAR\r\n`;
}

export function vevent(lines: string[]): string {
  return `BEGIN:VEVENT\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Private\r\n${lines.map((line) => `${line}\r\n`).join('')}END:VEVENT\r\n`;
}
