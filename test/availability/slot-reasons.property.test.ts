/**
 * The explanation of one slot against the slot list the engine returns for a whole window, over random
 * schedules (hours often running through midnight), any step, date overrides, zones with daylight-saving changes,
 * bookings and slot holds with buffers, group seats, notice, booking windows, limits and teams of both kinds: a slot is explained
 * as available exactly when the window's list has it, each host's verdict matches its reasons, and every slot not
 * offered has at least one reason. Pure: no database.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RuleBooks } from '../../src/modules/availability/booking-rules.ts';
import { MINUTE_MS } from '../../src/modules/availability/intervals.ts';
import { WEEKDAYS, type WeeklyHours } from '../../src/modules/availability/schedule.ts';
import { type BusyEntry, type CalendarBusyEntry, explainSlot, type ExplainHost, toEngineHost } from '../../src/modules/availability/slot-reasons.ts';
import { computeSlotStarts, type SlotRules } from '../../src/modules/availability/slots.ts';

const DAY = 86_400_000;
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/St_Johns'];
/** Days around daylight-saving changes in the zones above, and one quiet month. */
const BASES = ['2026-03-07', '2026-03-28', '2026-04-04', '2026-10-24', '2026-10-31', '2026-06-10'].map((d) => Date.parse(`${d}T00:00:00Z`));

const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
/** Hours on a 5-minute grid, some from midnight (so that a day's hours often run on from the day before). */
const intervalArb = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 1, max: 144 }))
    .map(([start, length]) => ({ start: hhmm(start * 5), end: hhmm(Math.min(288, start + length) * 5) })),
  fc.integer({ min: 1, max: 288 }).map((end) => ({ start: '00:00', end: hhmm(end * 5) })),
);
const dayArb = fc.array(intervalArb, { maxLength: 3 });
const weeklyArb = fc
  .tuple(...WEEKDAYS.map(() => dayArb))
  .map((days) => Object.fromEntries(WEEKDAYS.map((day, i) => [day, days[i]])) as WeeklyHours);

function scheduleArb(base: number) {
  const overrideArb = fc.record({
    date: fc.integer({ min: -1, max: 3 }).map((d) => new Date(base + d * DAY).toISOString().slice(0, 10)),
    intervals: dayArb,
  });
  return fc.record({ weekly: weeklyArb, overrides: fc.array(overrideArb, { maxLength: 2 }), timeZone: fc.constantFrom(...ZONES) });
}

/** A booked meeting with its own event type's buffers, on whole minutes or not; some are group blocks. */
function busyArb(base: number) {
  return fc.array(
    fc
      .record({
        offset: fc.integer({ min: -DAY / MINUTE_MS, max: (3 * DAY) / MINUTE_MS }),
        length: fc.constantFrom(15, 30, 45, 60, 120),
        before: fc.constantFrom(0, 0, 10, 30),
        after: fc.constantFrom(0, 0, 5, 15),
        skew: fc.constantFrom(0, 0, 0, 20_000),
        seats: fc.constantFrom(undefined, undefined, 'open' as const, 'full' as const),
        held: fc.constantFrom(false, false, false, true),
      })
      .map(({ offset, length, before, after, skew, seats, held }): BusyEntry => {
        const start = (base + offset * MINUTE_MS + skew) / MINUTE_MS;
        const end = start + length;
        // A slot hold's block: no bookings on it, never seats.
        if (held) return { busy: [Math.floor(start - before), Math.ceil(end + after)], meeting: [start, end], bookingIds: [], held: true };
        return {
          busy: [Math.floor(start - before), Math.ceil(end + after)],
          meeting: [start, end],
          bookingIds: [`b${offset}`],
          ...(seats ? { seats } : {}),
        };
      }),
    { maxLength: 12 },
  );
}

/** Busy time from connected calendars: whole minutes, as the engine reads them, no buffers of their own. */
function calendarBusyArb(base: number) {
  return fc.array(
    fc
      .record({ offset: fc.integer({ min: -DAY / MINUTE_MS, max: (3 * DAY) / MINUTE_MS }), length: fc.constantFrom(30, 60, 24 * 60) })
      .map(({ offset, length }): CalendarBusyEntry => {
        const start = base / MINUTE_MS + offset;
        return { busy: [start, start + length], connection: { id: `c${offset}`, name: 'Work' } };
      }),
    { maxLength: 3 },
  );
}

/** Pairs (start minute, seats) of bookings the limits count, around the window. */
function countedArb(base: number) {
  return fc
    .array(fc.tuple(fc.integer({ min: -2 * 24 * 4, max: 4 * 24 * 4 }).map((q) => base / MINUTE_MS + q * 15), fc.constantFrom(1, 2)), { maxLength: 6 })
    .map((pairs) => pairs.flat());
}

function hostArb(base: number, id: string) {
  return fc.record({
    hostId: fc.constant(id),
    schedule: scheduleArb(base),
    busy: busyArb(base),
    calendarBusy: calendarBusyArb(base),
    counted: countedArb(base),
  });
}

function rulesArb(base: number) {
  return fc
    .record({
      durationMin: fc.constantFrom(15, 30, 45, 60),
      // Any step, also one that does not divide a day (7, 11, 25…), with hours running through midnight.
      stepMin: fc.integer({ min: 1, max: 90 }),
      bufferBeforeMin: fc.constantFrom(0, 0, 5, 15),
      bufferAfterMin: fc.constantFrom(0, 0, 10, 30),
      minNoticeMin: fc.constantFrom(0, 0, 30, 240),
      bookingWindow: fc.constantFrom(null, null, { type: 'rolling' as const, days: 1 }, { type: 'rolling' as const, days: 2 }),
      limits: fc.constantFrom(null, null, { perDay: 1 }, { perDay: 2, perWeek: 3 }, { perMonth: 4 }),
      now: fc.integer({ min: -DAY, max: DAY }),
      from: fc.integer({ min: 0, max: DAY / MINUTE_MS }).map((m) => m * MINUTE_MS),
      length: fc.integer({ min: 60, max: 1.5 * 1440 }).map((m) => m * MINUTE_MS),
    })
    .map(({ now, from, length, ...rest }): SlotRules => ({ ...rest, now: base + now, from: base + from, to: base + from + length }));
}

const caseArb = fc.constantFrom(...BASES).chain((base) =>
  fc.record({
    rules: rulesArb(base),
    hosts: fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => hostArb(base, `h${i}`)))),
    mode: fc.constantFrom('any' as const, 'all' as const),
    active: fc.constantFrom(true, true, true, false),
  }),
);

describe('explaining one slot', () => {
  it('agrees with the slots the engine offers for a window, host by host, and names a reason for every slot not offered', () => {
    fc.assert(
      fc.property(caseArb, ({ rules, hosts, mode, active }) => {
        const team: ExplainHost[] = hosts;
        // GET /availability offers nothing for an inactive event type, and the engine's starts otherwise.
        const offered = new Set(active ? computeSlotStarts(rules, team.map(toEngineHost), mode) : []);
        // One request's rule books for every slot explained, as a service call shares them; the list above works
        // each host's out afresh, so a book kept too long would show here as a disagreement.
        const shared = { ...rules, ruleBooks: new RuleBooks() };
        const first = Math.ceil(rules.from / MINUTE_MS);
        const last = Math.floor(rules.to / MINUTE_MS) - rules.durationMin;
        for (let start = first; start <= last; start += start % 5 === 0 ? 1 : 4) {
          const slotRules = { ...shared, from: start * MINUTE_MS, to: (start + rules.durationMin) * MINUTE_MS };
          const explained = explainSlot({ rules: slotRules, mode, active, hosts: team });
          const at = new Date(start * MINUTE_MS).toISOString();
          expect(explained.available, at).toBe(offered.has(start));
          const teamReasons = explained.reasons.filter((reason) => !('hostId' in reason) || reason.hostId === undefined);
          for (const host of explained.hosts) {
            const own = explained.reasons.filter((reason) => 'hostId' in reason && reason.hostId === host.hostId);
            const free = teamReasons.length === 0 && (mode === 'all' ? explained.reasons.length === 0 : own.length === 0);
            expect(host.available, `${at} ${host.hostId} ${JSON.stringify(explained.reasons)}`).toBe(free);
          }
          if (!explained.available) expect(explained.reasons.length, at).toBeGreaterThan(0);
        }
      }),
      { numRuns: 150 },
    );
  });
});
