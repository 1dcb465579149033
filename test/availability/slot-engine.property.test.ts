/**
 * The minute engine (src/modules/availability/slots.ts) against the engine it replaced (legacy-slot-engine.ts,
 * milliseconds and Intl dates), over random schedules, date overrides, zones with daylight-saving changes inside
 * the window (including 30-minute and southern-hemisphere ones), busy time off the minute grid, buffers, notice,
 * group seats and teams of both kinds. Pure: no database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { intersectIntervals, mergeOverlaps, normalizeIntervals, unionIntervals } from '../../src/modules/availability/intervals.ts';
import { WEEKDAYS, type WeeklyHours } from '../../src/modules/availability/schedule.ts';
import {
  availabilityWindows,
  computeHostSlots,
  computeSlotStarts,
  type HostAvailability,
  type SlotRules,
  toCalendarHost,
} from '../../src/modules/availability/slots.ts';
import { formatInZone, formatMinute } from '../../src/modules/availability/wall-clock.ts';
import * as legacy from './legacy-slot-engine.ts';

const MIN = 60_000;
const DAY = 86_400_000;

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'America/St_Johns',
];
/** Days around daylight-saving changes in the zones above (both hemispheres), and one quiet month. */
const BASES = ['2026-03-05', '2026-03-26', '2026-04-02', '2026-09-03', '2026-10-22', '2026-10-30', '2026-06-10'].map((d) =>
  Date.parse(`${d}T00:00:00Z`),
);

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** A wall-clock interval on a 5-minute grid (often on the hour, sometimes ending at 24:00). */
const intervalArb = fc
  .tuple(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 1, max: 144 }))
  .map(([start, length]) => ({ start: hhmm(start * 5), end: hhmm(Math.min(288, start + length) * 5) }));
const dayArb = fc.array(intervalArb, { maxLength: 3 });

const weeklyArb = fc.tuple(...WEEKDAYS.map(() => dayArb)).map(
  (days) => Object.fromEntries(WEEKDAYS.map((day, i) => [day, days[i]])) as WeeklyHours,
);

function scheduleArb(base: number) {
  const overrideArb = fc.record({
    date: fc.integer({ min: -1, max: 12 }).map((d) => new Date(base + d * DAY).toISOString().slice(0, 10)),
    intervals: dayArb,
  });
  return fc.record({ weekly: weeklyArb, overrides: fc.array(overrideArb, { maxLength: 3 }), timeZone: fc.constantFrom(...ZONES) });
}

/** Busy ranges anywhere in the window, on whole minutes or (like any instant) off them. */
function busyArb(base: number) {
  return fc.array(
    fc
      .tuple(fc.integer({ min: -DAY, max: 12 * DAY }), fc.integer({ min: 1, max: 6 * 3_600_000 }), fc.boolean())
      .map(([offset, length, aligned]) => {
        const start = base + (aligned ? Math.floor(offset / MIN) * MIN : offset);
        return { start, end: start + (aligned ? Math.ceil(length / MIN) * MIN : length) };
      }),
    { maxLength: 25 },
  );
}

function hostArb(base: number, id: string) {
  return fc.record({
    hostId: fc.constant(id),
    schedule: scheduleArb(base),
    busy: busyArb(base),
    openSeats: busyArb(base).map((ranges) => ranges.map((r) => ({ start: r.start, end: r.start + 30 * MIN }))),
  });
}

function rulesArb(base: number) {
  return fc
    .record({
      durationMin: fc.constantFrom(15, 30, 45, 60, 90),
      stepMin: fc.constantFrom(5, 10, 15, 20, 30, 60),
      bufferBeforeMin: fc.constantFrom(0, 0, 5, 15, 60),
      bufferAfterMin: fc.constantFrom(0, 0, 10, 30),
      minNoticeMin: fc.constantFrom(0, 0, 30, 240, 1440),
      now: fc.integer({ min: -2 * DAY, max: 4 * DAY }),
      from: fc.integer({ min: 0, max: 6 * DAY }),
      length: fc.integer({ min: 1, max: 8 * DAY }),
    })
    .map(({ now, from, length, ...rest }): SlotRules => ({ ...rest, now: base + now, from: base + from, to: base + from + length }));
}

const caseArb = fc.constantFrom(...BASES).chain((base) =>
  fc.record({
    rules: rulesArb(base),
    hosts: fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => hostArb(base, `h${i}`)))),
    mode: fc.constantFrom('any' as const, 'all' as const),
  }),
);

describe('the minute slot engine against the engine it replaced', () => {
  it('offers exactly the same slots, with the same hosts, for one host or a team of either kind', () => {
    fc.assert(
      fc.property(caseArb, ({ rules, hosts, mode }) => {
        const team: HostAvailability[] = hosts;
        const slots = computeHostSlots(rules, team, mode);
        expect(slots).toEqual(legacy.computeHostSlots(rules, team, mode));
        // What /availability uses: the starts alone, without the hosts of each slot.
        expect(computeSlotStarts(rules, team.map(toCalendarHost), mode)).toEqual(slots.map((slot) => slot.start / MIN));
      }),
      { numRuns: 400 },
    );
  });

  it('expands a schedule into the same availability windows, across daylight-saving changes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BASES).chain((base) => fc.tuple(scheduleArb(base), rulesArb(base))),
        ([schedule, rules]) => {
          expect(availabilityWindows(schedule, rules.from, rules.to)).toEqual(legacy.availabilityWindows(schedule, rules.from, rules.to));
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('minute interval lists', () => {
  const listArb = fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 30 })), { maxLength: 12 }).map(
    (pairs) => pairs.flatMap(([start, length]) => [start, start + length]),
  );
  /** Which minutes of 0..240 a list covers: the definition the operations must agree with. */
  const covered = (flat: number[]) =>
    Array.from({ length: 240 }, (_, m) => flat.some((_, i) => i % 2 === 0 && flat[i]! <= m && m < flat[i + 1]!));
  const isNormalized = (flat: number[]) =>
    flat.every((value, i) => (i % 2 === 0 ? value < flat[i + 1]! && (i === 0 || value > flat[i - 1]!) : true));

  it('normalize, union and intersect cover the right minutes and stay normalized', () => {
    fc.assert(
      fc.property(listArb, listArb, listArb, (a, b, c) => {
        const [na, nb, nc] = [normalizeIntervals(a), normalizeIntervals(b), normalizeIntervals(c)];
        const [ca, cb, cc] = [covered(a), covered(b), covered(c)];
        expect(covered(na)).toEqual(ca);
        const union = unionIntervals([na, nb, nc]);
        expect(covered(union)).toEqual(ca.map((x, m) => x || cb[m]! || cc[m]!));
        const intersection = intersectIntervals(na, nb);
        expect(covered(intersection)).toEqual(ca.map((x, m) => x && cb[m]!));
        for (const list of [na, union, intersection]) expect(isNormalized(list)).toBe(true);
      }),
    );
  });
});

describe('ordering busy time', () => {
  /** What normalizeIntervals and mergeOverlaps must give: a plain sort by start, then one merging pass. */
  const reference = (flat: number[], joinTouching: boolean) => {
    const pairs: [number, number][] = [];
    for (let i = 0; i < flat.length; i += 2) if (flat[i + 1]! > flat[i]!) pairs.push([flat[i]!, flat[i + 1]!]);
    pairs.sort((a, b) => a[0] - b[0]);
    const out: number[] = [];
    for (const [start, end] of pairs) {
      const last = out.length - 1;
      if (last > 0 && (start < out[last]! || (joinTouching && start === out[last]!))) out[last] = Math.max(out[last]!, end);
      else out.push(start, end);
    }
    return out;
  };
  // Sorted runs (a scan's stretches, one calendar's day after another's), from one run to more than the merge takes.
  const runsArb = fc
    .array(fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: -2, max: 90 })), { maxLength: 30, size: 'medium' }), { maxLength: 120, size: 'max' })
    .map((runs) => runs.flatMap((run) => run.sort((a, b) => a[0] - b[0]).flatMap(([start, length]) => [start, start + length])));

  it('gives what a plain sort gives, whatever the number of sorted runs', () => {
    fc.assert(
      fc.property(runsArb, (flat) => {
        expect(normalizeIntervals(flat)).toEqual(reference(flat, true));
        expect(mergeOverlaps(flat)).toEqual(reference(flat, false));
        expect(normalizeIntervals(Int32Array.from(flat))).toEqual(reference(flat, true));
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatMinute', () => {
  it('writes what Date#toISOString and formatInZone write, in any zone, across daylight-saving changes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1971-01-01T00:00:00Z') / MIN, max: Date.parse('2100-01-01T00:00:00Z') / MIN }),
        fc.constantFrom(undefined, ...ZONES),
        (minute, zone) => {
          const ms = minute * MIN;
          expect(formatMinute(minute, zone)).toBe(zone ? formatInZone(ms, zone) : new Date(ms).toISOString());
        },
      ),
      { numRuns: 2000 },
    );
  });
});
