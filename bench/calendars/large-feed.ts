/**
 * A feed the size of a busy host's calendar: `events` VEVENTs, `series` of them recurring (daily, weekly on
 * weekdays, monthly by weekday, with COUNT, UNTIL, EXDATEs and moved instances), across three zones, with
 * all-day events, written the way Google writes a feed. Deterministic for a given size and anchor.
 */
const ZONES = ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata'];
const DAY = 86_400_000;

export function largeFeed(events: number, series: number, anchor: Date): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//large feed//EN'];
  for (let i = 0; i < events; i += 1) {
    const zone = ZONES[i % ZONES.length]!;
    // Spread over a year either side of the anchor; recurring series start up to two years before it.
    const start = i < series ? anchor.getTime() - (i % 730) * DAY : anchor.getTime() + ((i * 7919) % 730 - 365) * DAY;
    const day = local(new Date(start));
    const hour = 7 + (i % 11);
    lines.push('BEGIN:VEVENT', `UID:bench-${i}@example.com`, 'DTSTAMP:20260101T000000Z', `SUMMARY:Event ${i}`);
    if (i >= series && i % 25 === 0) {
      lines.push(`DTSTART;VALUE=DATE:${day}`, `DTEND;VALUE=DATE:${local(new Date(start + DAY))}`);
    } else {
      lines.push(`DTSTART;TZID=${zone}:${day}T${pad(hour)}0000`, `DTEND;TZID=${zone}:${day}T${pad(hour)}4500`);
    }
    if (i < series) lines.push(...recurrence(i, zone, hour, start));
    lines.push('END:VEVENT');
    if (i < series && i % 4 === 0) {
      // Move the series' instance of about a week after the anchor.
      const moved = local(new Date(start + 7 * DAY * Math.ceil((anchor.getTime() - start) / (7 * DAY) + 1)));
      lines.push(
        'BEGIN:VEVENT',
        `UID:bench-${i}@example.com`,
        'DTSTAMP:20260101T000000Z',
        `RECURRENCE-ID;TZID=${zone}:${moved}T${pad(hour)}0000`,
        `DTSTART;TZID=${zone}:${moved}T${pad(hour + 1)}3000`,
        `DTEND;TZID=${zone}:${moved}T${pad(hour + 2)}0000`,
        'END:VEVENT',
      );
    }
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

function recurrence(i: number, zone: string, hour: number, start: number): string[] {
  const rules = [
    'RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
    'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH',
    'RRULE:FREQ=DAILY;COUNT=800',
    'RRULE:FREQ=MONTHLY;BYDAY=2WE',
    `RRULE:FREQ=WEEKLY;UNTIL=${local(new Date(start + 900 * DAY))}T235959Z`,
  ];
  const exdates = [1, 2, 3].map((week) => `EXDATE;TZID=${zone}:${local(new Date(start + week * 7 * DAY))}T${pad(hour)}0000`);
  return [rules[i % rules.length]!, ...exdates];
}

function local(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
