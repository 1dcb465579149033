import fc from 'fast-check';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { localFields, offsetMinutes } from '../availability/wall-clock.ts';
import { cachedTransitions, offsetTransitions, vtimezone } from './vtimezone.ts';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Santiago', 'Pacific/Chatham', 'Europe/Dublin', 'UTC'];
const HOUR = 3_600_000;

/** The instant a wall-clock time in `zone` is, as ical.js reads it with the generated VTIMEZONE. */
function readBack(zone: string, instant: number): number {
  const component = new ICAL.Component(ICAL.parse(`BEGIN:VCALENDAR\r\n${vtimezone(zone, new Date(instant))}\r\nEND:VCALENDAR`));
  const timezone = new ICAL.Timezone(component.getFirstSubcomponent('vtimezone')!);
  const local = localFields(instant, zone);
  return ICAL.Time.fromData({ ...local, isDate: false }, timezone).toUnixTime() * 1000;
}

describe('VTIMEZONE from the runtime’s zone data', () => {
  it('finds Berlin’s changes of 2026 to the minute', () => {
    const transitions = offsetTransitions('Europe/Berlin', Date.parse('2026-01-01T00:00:00Z'), Date.parse('2027-01-01T00:00:00Z'));
    expect(transitions).toEqual([
      { at: Date.parse('2026-03-29T01:00:00Z'), from: 60, to: 120 },
      { at: Date.parse('2026-10-25T01:00:00Z'), from: 120, to: 60 },
    ]);
    const text = vtimezone('Europe/Berlin', new Date('2026-12-01T09:00:00Z'));
    expect(text).toContain('BEGIN:DAYLIGHT\r\nDTSTART:20260329T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT');
    expect(text).toContain('BEGIN:STANDARD\r\nDTSTART:20261025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD');
  });

  it('keeps each zone’s changes per year, and gives what a search of the window itself finds', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: Date.UTC(2020, 0, 1) / 60_000, max: Date.UTC(2035, 0, 1) / 60_000 }), (zone, minute) => {
        const around = minute * 60_000;
        const window = [around - 366 * 24 * HOUR, around + 366 * 24 * HOUR] as const;
        expect(cachedTransitions(zone, ...window)).toEqual(offsetTransitions(zone, ...window));
      }),
      { numRuns: 100 },
    );
  });

  it('gives a calendar the same instant for any time of a zone within a year either side (an independent reader: ical.js)', () => {
    const from = Date.parse('2020-01-01T00:00:00Z');
    const to = Date.parse('2035-01-01T00:00:00Z');
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: from / 60_000, max: to / 60_000 }), (zone, minute) => {
        const instant = minute * 60_000;
        // A wall time repeated by a fall-back names two instants; either is a correct reading.
        const ambiguous = offsetMinutes(instant - 3 * HOUR, zone) !== offsetMinutes(instant + 3 * HOUR, zone);
        const read = readBack(zone, instant);
        if (ambiguous) expect(localFields(read, zone)).toEqual(localFields(instant, zone));
        else expect(read).toBe(instant);
      }),
      { numRuns: 300 },
    );
  });
});
