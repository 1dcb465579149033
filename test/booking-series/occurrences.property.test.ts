/**
 * seriesStarts against an independent reference: rrule expands the series on the wall clock (a monthly series on
 * the 29th to 31st as BYMONTHDAY=28..d;BYSETPOS=-1, the last of those days each month), and dayjs's time-zone plugin
 * places each local time in its zone. Series cross DST changes in several zones; start times avoid the night hours
 * of the changes (times inside a gap or an overlap are tested in src/modules/booking-series/occurrences.test.ts).
 */
import fc from 'fast-check';
import rrule from 'rrule';
import { describe, expect, it } from 'vitest';
import { dayjs } from '../../src/lib/time.ts';
import { seriesStarts } from '../../src/modules/booking-series/occurrences.ts';

const { RRule } = rrule;

const MINUTE = 60_000;
const DAY = 86_400_000;
const ZONES = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Auckland', 'UTC'];
const ORIGIN = Date.UTC(2026, 0, 1);

const caseArbitrary = fc.record({
  zone: fc.constantFrom(...ZONES),
  day: fc.integer({ min: 0, max: 3 * 366 }),
  // 05:00 to 22:45: clear of every change of these zones (at 00:00 to 03:00 local).
  minute: fc.integer({ min: 5 * 4, max: 22 * 4 + 3 }).map((quarter) => quarter * 15),
  frequency: fc.constantFrom('daily' as const, 'weekly' as const, 'monthly' as const),
  interval: fc.integer({ min: 1, max: 4 }),
  count: fc.integer({ min: 2, max: 52 }),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The reference: the wall-clock times from rrule (written as UTC dates), each placed in the zone by dayjs. */
function reference(c: Case): string[] {
  const dtstart = new Date(ORIGIN + c.day * DAY + c.minute * MINUTE);
  const dayOfMonth = dtstart.getUTCDate();
  const freq = { daily: RRule.DAILY, weekly: RRule.WEEKLY, monthly: RRule.MONTHLY }[c.frequency];
  const monthly =
    c.frequency === 'monthly' && dayOfMonth > 28
      ? { bymonthday: Array.from({ length: dayOfMonth - 27 }, (_, i) => 28 + i), bysetpos: [-1] }
      : {};
  const wallClock = new RRule({ freq, interval: c.interval, count: c.count, dtstart, ...monthly }).all();
  return wallClock.map((date) => new Date(dayjs.tz(date.toISOString().slice(0, 19), c.zone).valueOf()).toISOString());
}

function underTest(c: Case): string[] {
  const wallClock = new Date(ORIGIN + c.day * DAY + c.minute * MINUTE).toISOString().slice(0, 19);
  const first = dayjs.tz(wallClock, c.zone).valueOf();
  return seriesStarts(first, c.zone, c).map((start) => new Date(start).toISOString());
}

describe('series occurrences against rrule and dayjs', () => {
  it('agree on every occurrence, in eight zones across their DST changes', () => {
    fc.assert(
      fc.property(caseArbitrary, (c) => {
        expect(underTest(c)).toEqual(reference(c));
      }),
      { numRuns: 400 },
    );
  });

  it('a monthly series on the 31st lands on each month once, on its last day when it is shorter', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 36 }), fc.integer({ min: 1, max: 4 }), (zone, month, interval) => {
        const first = new Date(Date.UTC(2026, month, 1));
        const lastDay = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
        if (lastDay !== 31) return;
        const c: Case = { zone, day: (Date.UTC(2026, month, 31) - ORIGIN) / DAY, minute: 10 * 60, frequency: 'monthly', interval, count: 24 };
        const dates = underTest(c).map((start) => dayjs(start).tz(zone));
        dates.forEach((date, i) => {
          const expectedMonth = dayjs.utc(Date.UTC(2026, month + i * interval, 1));
          expect(date.format('YYYY-MM')).toBe(expectedMonth.format('YYYY-MM'));
          expect(date.date()).toBe(Math.min(31, expectedMonth.daysInMonth()));
          expect(date.format('HH:mm')).toBe('10:00');
        });
      }),
      { numRuns: 60 },
    );
  });
});
