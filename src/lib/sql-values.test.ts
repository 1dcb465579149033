import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toIsoString } from './sql-values.ts';

/** A timestamptz as PostgreSQL writes it in a UTC session: trailing zeros of the fraction dropped, `+00`. */
function postgresText(epochSeconds: number, fraction: number): string {
  const date = new Date(epochSeconds * 1000);
  const micros = String(fraction).padStart(6, '0').replace(/0+$/, '');
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}${micros ? `.${micros}` : ''}+00`;
}

describe('toIsoString', () => {
  // The oracle is Date on the ISO form of the same text: Date's own parse of PostgreSQL's form reads year 0099 as 1999.
  it('writes what Date would write for any UTC timestamp text PostgreSQL sends', () => {
    const years0To9999 = fc.integer({ min: -62_167_219_200, max: 253_402_300_799 });
    const micros = fc.integer({ min: 0, max: 999_999 });
    fc.assert(
      fc.property(years0To9999, micros, (seconds, fraction) => {
        const text = postgresText(seconds, fraction);
        expect(toIsoString(text)).toBe(new Date(text.replace(' ', 'T').replace('+00', 'Z')).toISOString());
      }),
      { numRuns: 2000 },
    );
  });

  it('takes other offsets and Date objects through Date', () => {
    expect(toIsoString('2026-03-29 03:30:00.5+02')).toBe('2026-03-29T01:30:00.500Z');
    expect(toIsoString(new Date('2026-11-21T18:51:36.785Z'))).toBe('2026-11-21T18:51:36.785Z');
  });
});
