/**
 * Times as a message writes them: in the recipient's zone, with the zone named, so nobody has to guess whose
 * 10:00 it is ("Tuesday, 1 December 2026, 10:00–10:30 (Europe/Berlin)").
 */

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const timeFormats = new Map<string, Intl.DateTimeFormat>();

function cached(cache: Map<string, Intl.DateTimeFormat>, zone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { ...options, timeZone: zone });
    cache.set(zone, format);
  }
  return format;
}

function day(epochMs: number, zone: string): string {
  return cached(dayFormats, zone, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(epochMs);
}

function time(epochMs: number, zone: string): string {
  return cached(timeFormats, zone, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(epochMs);
}

/** A meeting's time in `zone`; the end's day is written too when it is another day. */
export function formatMeetingTime(startIso: string, endIso: string, zone: string): string {
  const start = Date.parse(startIso);
  const end = Date.parse(endIso);
  const startDay = day(start, zone);
  const endDay = day(end, zone);
  const until = endDay === startDay ? time(end, zone) : `${endDay}, ${time(end, zone)}`;
  return `${startDay}, ${time(start, zone)}–${until} (${zone})`;
}

/** How long before the meeting a reminder comes: "in 1 day", "in 2 hours 30 minutes", "now". */
export function formatLeadTime(offsetMin: number): string {
  if (offsetMin <= 0) return 'now';
  const units: [number, string][] = [
    [1440, 'day'],
    [60, 'hour'],
    [1, 'minute'],
  ];
  const parts: string[] = [];
  let rest = offsetMin;
  for (const [size, name] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${name}${count === 1 ? '' : 's'}`);
  }
  return `in ${parts.join(' ')}`;
}

const UNITS = { daily: 'day', weekly: 'week', monthly: 'month' } as const;

/** How often a series repeats: "Every week, 3 times", "Every 2 weeks, 6 times". */
export function formatRepeat(frequency: keyof typeof UNITS, interval: number, count: number): string {
  const every = interval === 1 ? `Every ${UNITS[frequency]}` : `Every ${interval} ${UNITS[frequency]}s`;
  return `${every}, ${count} times`;
}
