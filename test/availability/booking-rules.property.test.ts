/**
 * The booking window and the limits against an independent reference, over random schedules, hosts in zones
 * with daylight-saving changes (on the very days of the change), booked seats and both kinds of team: the engine
 * offers exactly the slots it offers without the rules whose start's local date (read with Intl, not with the
 * engine's own zone arithmetic) is inside the host's window and in no day, Monday-to-Sunday week or calendar
 * month already holding the limit's number of seats. Pure: no database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/modules/availability/intervals.ts';
import { WEEKDAYS, type WeeklyHours } from '../../src/modules/availability/schedule.ts';
import { type CalendarHost, computeSlotStarts, type SlotRules } from '../../src/modules/availability/slots.ts';
import type { BookingLimits, BookingWindow } from '../../src/modules/event-types/event-type.rows.ts';

const DAY = 86_400_000;
const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'Pacific/Auckland', 'America/Santiago', 'Asia/Kolkata', 'UTC'];
/** Around the 2026 changes of those zones (March, April, September, October) and a quiet month. */
const BASES = ['2026-03-07', '2026-03-27', '2026-04-03', '2026-09-04', '2026-09-25', '2026-10-23', '2026-06-10'].map((d) => Date.parse(`${d}T00:00:00Z`));

// --- The reference: local dates from Intl, calendar arithmetic on date strings. ---

const formatters = new Map<string, Intl.DateTimeFormat>();
function localDate(epochMs: number, zone: string): string {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(zone, formatter);
  }
  return formatter.format(epochMs);
}
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const mondayOf = (date: string) => plusDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));

interface ReferenceHost {
  zone: string;
  /** [start ms, seats] of the host's counted bookings. */
  booked: [number, number][];
}

function referenceAllows(host: ReferenceHost, rules: { now: number; bookingWindow: BookingWindow | null; limits: BookingLimits | null }, startMs: number): boolean {
  const date = localDate(startMs, host.zone);
  const window = rules.bookingWindow;
  if (window?.type === 'rolling') {
    const today = localDate(rules.now, host.zone);
    if (date < today || date > plusDays(today, window.days - 1)) return false;
  }
  if (window?.type === 'range' && (date < window.start || date > window.end)) return false;
  const limits = rules.limits ?? {};
  const periods: [number | undefined, (d: string) => string][] = [
    [limits.perDay, (d) => d],
    [limits.perWeek, mondayOf],
    [limits.perMonth, (d) => d.slice(0, 7)],
  ];
  for (const [limit, key] of periods) {
    if (limit === undefined) continue;
    const seats = host.booked.filter(([at]) => key(localDate(at, host.zone)) === key(date)).reduce((sum, [, n]) => sum + n, 0);
    if (seats >= limit) return false;
  }
  return true;
}

// --- Random cases. ---

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const intervalArb = fc
  .tuple(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 12, max: 288 }))
  .map(([start, length]) => ({ start: hhmm(start * 5), end: hhmm(Math.min(288, start + length) * 5) }));
const weeklyArb = fc
  .tuple(...WEEKDAYS.map(() => fc.array(intervalArb, { maxLength: 2 })))
  .map((days) => Object.fromEntries(WEEKDAYS.map((day, i) => [day, days[i]])) as WeeklyHours);

function hostArb(base: number, id: string) {
  return fc.record({
    hostId: fc.constant(id),
    zone: fc.constantFrom(...ZONES),
    weekly: weeklyArb,
    booked: fc.array(
      fc.tuple(fc.integer({ min: -10 * 24 * 4, max: 12 * 24 * 4 }).map((q) => base + q * 15 * MINUTE_MS), fc.constantFrom(1, 1, 2)),
      { maxLength: 14 },
    ),
  });
}

function windowArb(base: number): fc.Arbitrary<BookingWindow | null> {
  return fc.oneof(
    fc.constant(null),
    fc.integer({ min: 1, max: 4 }).map((days): BookingWindow => ({ type: 'rolling', days })),
    fc
      .tuple(fc.integer({ min: -1, max: 3 }), fc.integer({ min: 0, max: 3 }))
      .map(([offset, length]): BookingWindow => {
        const start = new Date(base + offset * DAY).toISOString().slice(0, 10);
        return { type: 'range', start, end: plusDays(start, length) };
      }),
  );
}

const limitsArb: fc.Arbitrary<BookingLimits | null> = fc.oneof(
  fc.constant(null),
  fc
    .record({ perDay: fc.integer({ min: 1, max: 3 }), perWeek: fc.integer({ min: 1, max: 8 }), perMonth: fc.integer({ min: 1, max: 14 }) }, { requiredKeys: [] })
    .map((limits) => limits as BookingLimits),
);

const caseArb = fc.constantFrom(...BASES).chain((base) =>
  fc.record({
    base: fc.constant(base),
    now: fc.integer({ min: -DAY / MINUTE_MS, max: DAY / MINUTE_MS }).map((m) => base + m * MINUTE_MS),
    from: fc.integer({ min: -DAY / MINUTE_MS, max: DAY / MINUTE_MS }).map((m) => base + m * MINUTE_MS),
    days: fc.integer({ min: 1, max: 4 }),
    durationMin: fc.constantFrom(15, 30, 60),
    stepMin: fc.constantFrom(15, 30, 60),
    bookingWindow: windowArb(base),
    limits: limitsArb,
    hosts: fc.integer({ min: 1, max: 2 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => hostArb(base, `h${i}`)))),
    mode: fc.constantFrom('any' as const, 'all' as const),
  }),
);

describe('booking window and limits', () => {
  it('offer exactly the slots whose local date the window allows and no limit has filled, host by host', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const base: SlotRules = {
          durationMin: c.durationMin,
          stepMin: c.stepMin,
          bufferBeforeMin: 0,
          bufferAfterMin: 0,
          minNoticeMin: 0,
          now: c.now,
          from: c.from,
          to: c.from + c.days * DAY,
        };
        const ruled: SlotRules = { ...base, bookingWindow: c.bookingWindow, limits: c.limits };
        const calendars: CalendarHost[] = c.hosts.map((host) => ({
          hostId: host.hostId,
          schedule: { weekly: host.weekly, overrides: [], timeZone: host.zone },
          busy: [],
          counted: host.booked.flatMap(([at, seats]) => [at / MINUTE_MS, seats]),
        }));
        const reference = { now: c.now, bookingWindow: c.bookingWindow, limits: c.limits };
        const allows = (i: number, start: number) => referenceAllows(c.hosts[i]!, reference, start * MINUTE_MS);
        let expected: number[];
        if (c.mode === 'all') {
          expected = computeSlotStarts(base, calendars, 'all').filter((start) => c.hosts.every((_, i) => allows(i, start)));
        } else {
          const union = new Set<number>();
          calendars.forEach((calendar, i) => {
            for (const start of computeSlotStarts(base, [calendar], 'any')) if (allows(i, start)) union.add(start);
          });
          expected = [...union].sort((a, b) => a - b);
        }
        expect(computeSlotStarts(ruled, calendars, c.mode)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
