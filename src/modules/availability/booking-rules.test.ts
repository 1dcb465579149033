import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  countingRange,
  dayNumber,
  daysAsInterval,
  formatDay,
  fullPeriods,
  hostRuleBook,
  localDay,
  midnight,
  RuleBooks,
  ruleRefusals,
  startAllowance,
  windowDays,
} from './booking-rules.ts';
import { MINUTE_MS, subtractIntervals } from './intervals.ts';

const minuteOf = (iso: string) => Date.parse(iso) / MINUTE_MS;
const day = (date: string) => dayNumber(date);

describe('subtractIntervals', () => {
  it('cuts holes, trims edges and drops covered intervals', () => {
    expect(subtractIntervals([0, 100], [10, 20, 30, 40])).toEqual([0, 10, 20, 30, 40, 100]);
    expect(subtractIntervals([0, 10, 20, 30], [5, 25])).toEqual([0, 5, 25, 30]);
    expect(subtractIntervals([0, 10], [0, 10])).toEqual([]);
    expect(subtractIntervals([0, 10, 20, 30], [])).toEqual([0, 10, 20, 30]);
    expect(subtractIntervals([10, 20], [0, 5, 25, 30])).toEqual([10, 20]);
  });
});

describe('the booking window', () => {
  it('rolls from the host’s today: New York is still on the previous day at 03:00 UTC', () => {
    const now = Date.parse('2026-12-02T03:00:00Z');
    expect(windowDays({ type: 'rolling', days: 1 }, now, 'America/New_York')).toEqual({ first: day('2026-12-01'), last: day('2026-12-01') });
    expect(windowDays({ type: 'rolling', days: 3 }, now, 'Asia/Tokyo')).toEqual({ first: day('2026-12-02'), last: day('2026-12-04') });
    expect(windowDays({ type: 'range', start: '2026-12-24', end: '2026-12-26' }, now, 'UTC')).toEqual({
      first: day('2026-12-24'),
      last: day('2026-12-26'),
    });
  });

  it('covers whole local days, also when midnight falls in a daylight-saving gap', () => {
    // Santiago moved its clocks from 24:00 to 01:00 on 2026-09-06: that day starts at 04:00 UTC.
    expect(new Date(midnight(day('2026-09-06'), 'America/Santiago') * MINUTE_MS).toISOString()).toBe('2026-09-06T04:00:00.000Z');
    const allowed = startAllowance(
      { now: Date.parse('2026-03-29T00:30:00Z'), bookingWindow: { type: 'rolling', days: 1 } },
      'Europe/Berlin',
      undefined,
    );
    // Berlin's 29 March 2026 has 23 hours.
    expect(allowed).toEqual([minuteOf('2026-03-28T23:00:00Z'), minuteOf('2026-03-29T22:00:00Z')]);
  });

  it('names the window it refuses a slot for', () => {
    const rules = { now: Date.parse('2026-12-01T12:00:00Z'), bookingWindow: { type: 'rolling', days: 2 } as const };
    expect(ruleRefusals(rules, 'UTC', undefined, minuteOf('2026-12-02T23:59:00Z'))).toEqual([]);
    const [refusal] = ruleRefusals(rules, 'UTC', undefined, minuteOf('2026-12-03T00:00:00Z'));
    expect(refusal).toMatchObject({ kind: 'booking_window' });
    expect([formatDay(refusal!.first), formatDay(refusal!.last)]).toEqual(['2026-12-01', '2026-12-02']);
  });
});

describe('the limits', () => {
  // Two bookings of one seat on Monday 30 November and one of three seats on Sunday 6 December 2026 (UTC).
  const counted = [minuteOf('2026-11-30T09:00:00Z'), 1, minuteOf('2026-11-30T15:00:00Z'), 1, minuteOf('2026-12-06T10:00:00Z'), 3];

  it('fills a day, a Monday-to-Sunday week and a calendar month with the seats counted', () => {
    const full = fullPeriods({ perDay: 2, perWeek: 5, perMonth: 4 }, counted, 'UTC').map((p) => [p.kind, formatDay(p.first), formatDay(p.last)]);
    expect(full).toEqual([
      ['daily_limit', '2026-11-30', '2026-11-30'],
      ['daily_limit', '2026-12-06', '2026-12-06'],
      ['weekly_limit', '2026-11-30', '2026-12-06'],
    ]);
    // November has two, December three: neither reaches 4.
    expect(fullPeriods({ perMonth: 3 }, counted, 'UTC').map((p) => formatDay(p.first))).toEqual(['2026-12-01']);
  });

  it('counts in the host’s zone: 15:00 UTC is already the next day in Auckland', () => {
    const auckland = fullPeriods({ perDay: 1 }, counted, 'Pacific/Auckland').map((p) => formatDay(p.first));
    expect(auckland).toEqual(['2026-11-30', '2026-12-01', '2026-12-06']);
  });

  it('blocks the full periods out of the allowance', () => {
    const allowed = startAllowance({ now: 0, limits: { perDay: 2 } }, 'UTC', counted)!;
    const slot = (iso: string) => ruleRefusals({ now: 0, limits: { perDay: 2 } }, 'UTC', counted, minuteOf(iso)).map((r) => r.kind);
    expect(allowed).toContain(minuteOf('2026-11-30T00:00:00Z'));
    expect(slot('2026-11-30T12:00:00Z')).toEqual(['daily_limit']);
    expect(slot('2026-12-01T00:00:00Z')).toEqual([]);
    expect(startAllowance({ now: 0 }, 'UTC', counted)).toBeUndefined();
  });
});

describe('the counting range', () => {
  const ZONES = ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'Asia/Kathmandu', 'Europe/Berlin', 'America/Santiago'];
  const weekOf = (d: number) => d - ((((d + 3) % 7) + 7) % 7);

  it('holds every period around the window in any zone, and only the periods of the limits given', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2028-12-31T00:00:00Z') }),
        fc.integer({ min: 0, max: 40 * 86_400_000 }),
        fc.constantFrom(...ZONES),
        fc.subarray(['perDay', 'perWeek', 'perMonth'] as const, { minLength: 1 }),
        (from, length, zone, keys) => {
          const to = from + length;
          const limits = Object.fromEntries(keys.map((key) => [key, 1]));
          const range = countingRange(limits, from, to);
          const first = localDay(from, zone);
          const last = localDay(to, zone);
          const firstDate = formatDay(first);
          const lastDate = formatDay(last);
          const periods = [
            { first, last },
            ...(keys.includes('perWeek') ? [{ first: weekOf(first), last: weekOf(last) + 6 }] : []),
            ...(keys.includes('perMonth')
              ? [{ first: dayNumber(`${firstDate.slice(0, 8)}01`), last: dayNumber(nextMonth(lastDate)) - 1 }]
              : []),
          ];
          for (const period of periods) {
            const [start, end] = daysAsInterval(period, zone);
            expect(start! * MINUTE_MS).toBeGreaterThanOrEqual(range.from);
            expect(end! * MINUTE_MS).toBeLessThanOrEqual(range.to);
          }
          expect(range.to - range.from).toBeLessThanOrEqual(to - from + (keys.includes('perMonth') ? 70 : keys.includes('perWeek') ? 21 : 7) * 86_400_000);
        },
      ),
    );
  });

  it('reads all three periods while the limits are not known yet', () => {
    const from = Date.parse('2026-12-15T12:00:00Z');
    expect(countingRange(undefined, from, from)).toEqual(countingRange({ perDay: 1, perWeek: 1, perMonth: 1 }, from, from));
    expect(countingRange({ perDay: 1 }, from, from)).toEqual({ from: Date.parse('2026-12-13T00:00:00Z'), to: Date.parse('2026-12-18T00:00:00Z') });
  });
});

function nextMonth(date: string): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

describe('the rule books of a request', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  const counted = [minuteOf('2026-12-02T09:00:00Z'), 1];
  const rules = { now, bookingWindow: { type: 'rolling', days: 5 } as const, limits: { perDay: 2 }, ruleBooks: new RuleBooks() };

  it('work a host out once: every copy of the rules gets the same book', () => {
    const book = hostRuleBook(rules, 'Europe/Berlin', counted);
    expect(hostRuleBook({ ...rules }, 'Europe/Berlin', counted)).toBe(book);
    expect(hostRuleBook({ ...rules, ruleBooks: undefined }, 'Europe/Berlin', counted)).not.toBe(book);
    expect(hostRuleBook({ ...rules, ruleBooks: undefined }, 'Europe/Berlin', counted)).toEqual(book);
  });

  it('never serve a book to other inputs: counts read again, another zone, clock, window or no rules at all', () => {
    const books = { ...rules, ruleBooks: new RuleBooks() };
    const at = minuteOf('2026-12-02T15:00:00Z');
    expect(ruleRefusals(books, 'UTC', counted, at)).toEqual([]);
    // The same host's counts read again under its lock: one more booking fills 2 December.
    const reread = [...counted, minuteOf('2026-12-02T10:00:00Z'), 1];
    expect(ruleRefusals(books, 'UTC', reread, at).map((refusal) => refusal.kind)).toEqual(['daily_limit']);
    expect(ruleRefusals(books, 'UTC', counted, at)).toEqual([]);
    // Another zone is worked out for itself.
    expect(hostRuleBook(books, 'Pacific/Auckland', reread)).toEqual(hostRuleBook({ ...books, ruleBooks: undefined }, 'Pacific/Auckland', reread));
    const later = { ...books, now: Date.parse('2026-12-05T12:00:00Z') };
    expect(hostRuleBook(later, 'UTC', counted)!.window!.range).toEqual({ first: day('2026-12-05'), last: day('2026-12-09') });
    expect(hostRuleBook({ ...books, bookingWindow: { type: 'rolling', days: 1 } }, 'UTC', counted)!.window!.range.last).toBe(day('2026-12-01'));
    expect(hostRuleBook({ ...books, bookingWindow: null, limits: null }, 'UTC', counted)).toBeUndefined();
  });

  it('give what a fresh computation gives, whatever is asked in between', () => {
    const zone = fc.constantFrom('UTC', 'Europe/Berlin', 'America/Santiago', 'Pacific/Auckland');
    const base = minuteOf('2026-03-25T00:00:00Z');
    const countedArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 60 * 24 * 20 }), fc.constantFrom(1, 2)), { maxLength: 8 }).map((pairs) => pairs.flatMap(([m, seats]) => [base + m, seats]));
    const question = fc.record({ zone, counted: countedArb, start: fc.integer({ min: -1440, max: 60 * 24 * 21 }).map((m) => base + m) });
    fc.assert(
      fc.property(
        fc.record({
          window: fc.constantFrom(null, { type: 'rolling' as const, days: 3 }, { type: 'range' as const, start: '2026-03-27', end: '2026-04-02' }),
          limits: fc.constantFrom(null, { perDay: 1 }, { perDay: 2, perWeek: 3 }, { perMonth: 4 }),
          questions: fc.array(question, { minLength: 1, maxLength: 12 }),
        }),
        ({ window, limits, questions }) => {
          const shared = { now: base * MINUTE_MS, bookingWindow: window, limits, ruleBooks: new RuleBooks() };
          const fresh = { ...shared, ruleBooks: undefined };
          // Each host's counts are asked about twice, as explain does, in between the others'.
          for (const { zone: z, counted: c, start } of [...questions, ...questions]) {
            expect(ruleRefusals(shared, z, c, start)).toEqual(ruleRefusals(fresh, z, c, start));
            expect(startAllowance(shared, z, c)).toEqual(startAllowance(fresh, z, c));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
