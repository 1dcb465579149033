import { describe, expect, it } from 'vitest';
import { dayNumber, formatDay, fullPeriods, midnight, ruleRefusals, startAllowance, windowDays } from './booking-rules.ts';
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
