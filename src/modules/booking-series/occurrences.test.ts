import { describe, expect, it } from 'vitest';
import { daysInMonth, occurrenceDate, seriesStarts } from './occurrences.ts';

const starts = (first: string, zone: string, frequency: 'daily' | 'weekly' | 'monthly', interval: number, count: number) =>
  seriesStarts(Date.parse(first), zone, { frequency, interval, count }).map((start) => new Date(start).toISOString());

describe('series occurrences', () => {
  it('keep the wall-clock time across a DST change: 09:00 in Berlin is 07:00 UTC in October, 08:00 after it', () => {
    expect(starts('2026-10-20T07:00:00Z', 'Europe/Berlin', 'weekly', 1, 2)).toEqual(['2026-10-20T07:00:00.000Z', '2026-10-27T08:00:00.000Z']);
  });

  it('daily in New York over the spring change', () => {
    expect(starts('2027-03-12T14:00:00Z', 'America/New_York', 'daily', 1, 4)).toEqual([
      '2027-03-12T14:00:00.000Z',
      '2027-03-13T14:00:00.000Z',
      '2027-03-14T13:00:00.000Z',
      '2027-03-15T13:00:00.000Z',
    ]);
  });

  it('a time the clock skips moves forward by the gap (02:30 on the spring day is 03:30)', () => {
    expect(starts('2027-03-13T07:30:00Z', 'America/New_York', 'daily', 1, 3)).toEqual([
      '2027-03-13T07:30:00.000Z',
      '2027-03-14T07:30:00.000Z',
      '2027-03-15T06:30:00.000Z',
    ]);
  });

  it('a time the clock repeats is its earlier instant (01:30 on the autumn day is still daylight time)', () => {
    expect(starts('2026-10-31T05:30:00Z', 'America/New_York', 'daily', 1, 3)).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('monthly on the 31st falls on the last day of shorter months, and returns to the 31st after them', () => {
    expect(starts('2027-01-31T10:00:00Z', 'UTC', 'monthly', 1, 5)).toEqual([
      '2027-01-31T10:00:00.000Z',
      '2027-02-28T10:00:00.000Z',
      '2027-03-31T10:00:00.000Z',
      '2027-04-30T10:00:00.000Z',
      '2027-05-31T10:00:00.000Z',
    ]);
    expect(starts('2026-12-31T10:00:00Z', 'UTC', 'monthly', 2, 5)).toEqual([
      '2026-12-31T10:00:00.000Z',
      '2027-02-28T10:00:00.000Z',
      '2027-04-30T10:00:00.000Z',
      '2027-06-30T10:00:00.000Z',
      '2027-08-31T10:00:00.000Z',
    ]);
  });

  it('monthly in Sydney over the new year and the April change', () => {
    expect(starts('2026-11-14T22:00:00Z', 'Australia/Sydney', 'monthly', 1, 6)).toEqual([
      '2026-11-14T22:00:00.000Z',
      '2026-12-14T22:00:00.000Z',
      '2027-01-14T22:00:00.000Z',
      '2027-02-14T22:00:00.000Z',
      '2027-03-14T22:00:00.000Z',
      '2027-04-14T23:00:00.000Z',
    ]);
  });

  it('the local date of an occurrence, leap years included', () => {
    expect(occurrenceDate({ year: 2028, month: 1, day: 30 }, { frequency: 'monthly', interval: 1 }, 1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(occurrenceDate({ year: 2026, month: 11, day: 29 }, { frequency: 'monthly', interval: 3 }, 1)).toEqual({ year: 2027, month: 2, day: 28 });
    expect(occurrenceDate({ year: 2026, month: 12, day: 28 }, { frequency: 'weekly', interval: 2 }, 1)).toEqual({ year: 2027, month: 1, day: 11 });
    expect(occurrenceDate({ year: 2026, month: 12, day: 31 }, { frequency: 'daily', interval: 4 }, 2)).toEqual({ year: 2027, month: 1, day: 8 });
    expect([daysInMonth(2028, 2), daysInMonth(2027, 2), daysInMonth(2100, 2), daysInMonth(2027, 12)]).toEqual([29, 28, 28, 31]);
  });

  it('the first occurrence is the given instant itself, seconds included', () => {
    expect(starts('2026-12-01T09:00:30.250Z', 'Asia/Kolkata', 'daily', 2, 2)).toEqual(['2026-12-01T09:00:30.250Z', '2026-12-03T09:00:30.250Z']);
  });
});
