/**
 * The slot grid does not depend on the window asked for: over random schedules whose hours often run through
 * midnight (or all day), steps that do not divide a day, zones with daylight-saving changes, busy time, notice and
 * teams of both kinds, every slot one window offers is offered, with the same hosts, by any other window that
 * holds it, and the one-slot decision of booking creation grants it to those hosts. Pure: no database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type WeeklyHours } from '../../src/modules/availability/schedule.ts';
import { computeHostSlots, type HostAvailability, hostsFreeForSlot } from '../../src/modules/availability/slots.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata'];
/** Days around daylight-saving changes in the zones above (both hemispheres), and one quiet month. */
const BASES = ['2026-03-05', '2026-03-26', '2026-04-02', '2026-09-03', '2026-10-22', '2026-06-10'].map((d) => Date.parse(`${d}T00:00:00Z`));

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Hours that reach midnight at one end or both (all day), or lie anywhere in the day; any minute. */
const intervalArb = fc.oneof(
  fc.integer({ min: 0, max: 1439 }).map((start) => ({ start: hhmm(start), end: '24:00' })),
  fc.integer({ min: 1, max: 1440 }).map((end) => ({ start: '00:00', end: hhmm(end) })),
  fc.constant({ start: '00:00', end: '24:00' }),
  fc
    .tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 1, max: 720 }))
    .map(([start, length]) => ({ start: hhmm(start), end: hhmm(Math.min(1440, start + length)) })),
);
const dayArb = fc.array(intervalArb, { maxLength: 2 });
const weeklyArb = fc
  .tuple(...WEEKDAYS.map(() => dayArb))
  .map((days) => Object.fromEntries(WEEKDAYS.map((day, i) => [day, days[i]])) as WeeklyHours);

function scheduleArb(base: number) {
  const overrideArb = fc.record({
    date: fc.integer({ min: -1, max: 9 }).map((d) => new Date(base + d * DAY).toISOString().slice(0, 10)),
    intervals: dayArb,
  });
  return fc.record({ weekly: weeklyArb, overrides: fc.array(overrideArb, { maxLength: 2 }), timeZone: fc.constantFrom(...ZONES) });
}

function busyArb(base: number) {
  return fc.array(
    fc
      .tuple(fc.integer({ min: -1440, max: 9 * 1440 }), fc.integer({ min: 1, max: 300 }))
      .map(([offset, length]) => ({ start: base + offset * MIN, end: base + (offset + length) * MIN })),
    { maxLength: 8 },
  );
}

function hostArb(base: number, id: string) {
  return fc.record({ hostId: fc.constant(id), schedule: scheduleArb(base), busy: busyArb(base) });
}

/** A window of up to 8 days starting anywhere in the first week, on whole minutes or not. */
function windowArb(base: number) {
  return fc
    .tuple(fc.integer({ min: 0, max: 7 * DAY }), fc.integer({ min: 30 * MIN, max: 8 * DAY }))
    .map(([from, length]) => ({ from: base + from, to: base + from + length }));
}

const caseArb = fc.constantFrom(...BASES).chain((base) =>
  fc.record({
    rules: fc.record({
      durationMin: fc.constantFrom(15, 30, 45, 60, 90),
      // Any step: 7, 11, 25, 50… do not divide a day, so a grid run on from an earlier day lands elsewhere.
      stepMin: fc.integer({ min: 1, max: 120 }),
      bufferBeforeMin: fc.constantFrom(0, 0, 10),
      bufferAfterMin: fc.constantFrom(0, 0, 15),
      minNoticeMin: fc.constantFrom(0, 0, 60),
      now: fc.integer({ min: -DAY, max: 3 * DAY }).map((offset) => base + offset),
    }),
    first: windowArb(base),
    second: windowArb(base),
    hosts: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => hostArb(base, `h${i}`)))),
    mode: fc.constantFrom('any' as const, 'all' as const),
  }),
);

describe('the slot grid, whatever window is asked for', () => {
  it('offers a slot in every window that holds it, with the same hosts, and the one-slot decision grants it', () => {
    fc.assert(
      fc.property(caseArb, ({ rules, first, second, hosts, mode }) => {
        const team: HostAvailability[] = hosts;
        const listed = (window: { from: number; to: number }) => computeHostSlots({ ...rules, ...window }, team, mode);
        const other = new Map(listed(second).map((slot) => [slot.start, slot.hostIds]));
        for (const slot of listed(first)) {
          const at = new Date(slot.start).toISOString();
          expect(hostsFreeForSlot({ ...rules, ...first }, team, mode, slot.start), at).toEqual(slot.hostIds);
          if (slot.start >= second.from && slot.end <= second.to) expect(other.get(slot.start), at).toEqual(slot.hostIds);
        }
      }),
      { numRuns: 300 },
    );
  });
});
