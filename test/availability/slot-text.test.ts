/**
 * The text at both ends of GET /availability: the busy time the calendars statement writes as
 * "start,end,…" (read digit by digit) and the slots written back (edges shared by back-to-back slots written
 * once). Each against the plain form it replaced. Pure: no database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMinutes, toSlots } from '../../src/modules/availability/availability.service.ts';
import { formatMinute } from '../../src/modules/availability/wall-clock.ts';

describe('parseMinutes', () => {
  it('reads what split and Number read, for any int4 values', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 200 }), (values) => {
        const text = values.join(',');
        expect(Array.from(parseMinutes(text))).toEqual(text.split(',').map(Number));
      }),
      { numRuns: 500 },
    );
  });

  it('reads numbers of every width alike, those of 8 digits (epoch minutes from 1989 to 2160) among others', () => {
    const value = fc.oneof(
      fc.integer({ min: 10_000_000, max: 99_999_999 }),
      fc.integer({ min: -9_999_999, max: -1_000_000 }),
      fc.integer({ min: -99_999_999, max: 999_999_999 }),
      fc.integer({ min: -999, max: 999 }),
    );
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 300, size: 'max' }), (values) => {
        const text = values.join(',');
        expect(Array.from(parseMinutes(text))).toEqual(values);
      }),
      { numRuns: 1000 },
    );
    // A short number whose comma falls where an 8-digit number would end, and a negative number of 8 characters.
    expect(Array.from(parseMinutes('1234,567,89'))).toEqual([1234, 567, 89]);
    expect(Array.from(parseMinutes('-1234567,12345678,-1234567'))).toEqual([-1234567, 12345678, -1234567]);
    // Many more numbers than 8-digit ones would fill the same text (seats, counts).
    const short = Array.from({ length: 5_000 }, (_, i) => i % 10);
    expect(Array.from(parseMinutes(short.join(',')))).toEqual(short);
  });

  it('reads no busy time as no numbers', () => {
    expect(parseMinutes(null)).toHaveLength(0);
    expect(parseMinutes('')).toHaveLength(0);
  });
});

describe('toSlots', () => {
  it('writes every slot as formatMinute writes its edges, back-to-back or not, in any zone', () => {
    const start = Date.parse('2026-03-01T00:00:00Z') / 60_000;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 240 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 120 }),
        fc.constantFrom(undefined, 'UTC', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata'),
        fc.integer({ min: 0, max: 60 * 24 * 60 }),
        (duration, gaps, zone, offset) => {
          // Starts one duration apart (back to back) or further (gaps of whole durations).
          const starts: number[] = [];
          let next = start + offset;
          for (const gap of gaps) {
            next += gap * duration;
            starts.push(next);
            next += duration;
          }
          expect(toSlots(starts, duration, zone)).toEqual(
            starts.map((s) => ({ start: formatMinute(s, zone), end: formatMinute(s + duration, zone) })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
