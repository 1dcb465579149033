import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultWeeklyHours, type WeeklyHours } from './schedule.ts';
import {
  availabilityWindows,
  computeHostSlots,
  computeSlots,
  type HostAvailability,
  hostsFreeForSlot,
  type Schedule,
  type SlotRules,
  type TimeRange,
} from './slots.ts';
import { formatInZone, offsetMinutes, wallClockToInstant } from './wall-clock.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const starts = (slots: readonly TimeRange[]) => slots.map((slot) => iso(slot.start));

const EMPTY_WEEK: WeeklyHours = {
  monday: [],
  tuesday: [],
  wednesday: [],
  thursday: [],
  friday: [],
  saturday: [],
  sunday: [],
};
const everyDay = (start: string, end: string): WeeklyHours =>
  Object.fromEntries(Object.keys(EMPTY_WEEK).map((day) => [day, [{ start, end }]])) as WeeklyHours;

/** Rules with no buffers, no notice and "now" long before the window, so only the case under test matters. */
function rules(overrides: Partial<SlotRules> & Pick<SlotRules, 'from' | 'to'>): SlotRules {
  return {
    durationMin: 30,
    stepMin: 30,
    bufferBeforeMin: 0,
    bufferAfterMin: 0,
    minNoticeMin: 0,
    now: at('2020-01-01T00:00:00Z'),
    ...overrides,
  };
}

function slots(schedule: Schedule, r: SlotRules, busy: TimeRange[] = [], openSeats: TimeRange[] = []): TimeRange[] {
  return computeSlots({ ...schedule, ...r, busy, openSeats });
}

const utcWeekdays: Schedule = { weekly: defaultWeeklyHours(), overrides: [], timeZone: 'UTC' };
// 2026-03-02 is a Monday.
const MONDAY = '2026-03-02';

describe('wall clock to instant', () => {
  it('reads a local time in a spring-forward gap with the offset before the gap (moves forward)', () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist.
    const t = wallClockToInstant({ year: 2026, month: 3, day: 8 }, 150, 'America/New_York');
    expect(iso(t)).toBe('2026-03-08T07:30:00.000Z');
    expect(formatInZone(t, 'America/New_York')).toBe('2026-03-08T03:30:00-04:00');
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST.
    expect(iso(wallClockToInstant({ year: 2026, month: 3, day: 29 }, 150, 'Europe/Berlin'))).toBe('2026-03-29T01:30:00.000Z');
  });

  it('reads a local time in a fall-back overlap as the earlier instant, whatever the current date', () => {
    // New York, 2026-11-01: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST).
    const t = wallClockToInstant({ year: 2026, month: 11, day: 1 }, 90, 'America/New_York');
    expect(iso(t)).toBe('2026-11-01T05:30:00.000Z');
    expect(formatInZone(t, 'America/New_York')).toBe('2026-11-01T01:30:00-04:00');
    // Berlin, 2026-10-25: 02:30 happens at 00:30Z (CEST) and at 01:30Z (CET).
    expect(iso(wallClockToInstant({ year: 2026, month: 10, day: 25 }, 150, 'Europe/Berlin'))).toBe('2026-10-25T00:30:00.000Z');
  });

  it('treats 24:00 as the next midnight and knows half-hour and 45-minute offsets', () => {
    expect(iso(wallClockToInstant({ year: 2026, month: 12, day: 31 }, 1440, 'UTC'))).toBe('2027-01-01T00:00:00.000Z');
    expect(iso(wallClockToInstant({ year: 2026, month: 1, day: 1 }, 540, 'Asia/Kolkata'))).toBe('2026-01-01T03:30:00.000Z');
    expect(formatInZone(at('2026-01-01T00:00:00Z'), 'Asia/Kathmandu')).toBe('2026-01-01T05:45:00+05:45');
  });

  it('finds the offset right at a transition, on both sides', () => {
    const change = at('2026-03-08T07:00:00Z');
    expect(offsetMinutes(change - 1, 'America/New_York')).toBe(-300);
    expect(offsetMinutes(change, 'America/New_York')).toBe(-240);
    expect(offsetMinutes(at('2026-10-25T00:59:59Z'), 'Europe/Berlin')).toBe(120);
    expect(offsetMinutes(at('2026-10-25T01:00:00Z'), 'Europe/Berlin')).toBe(60);
  });
});

describe('computeSlots: grid and window', () => {
  it('offers a working day on a grid of the duration, anchored at the interval start', () => {
    const result = slots(utcWeekdays, rules({ from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:59:00Z`) }));
    expect(result).toHaveLength(16);
    expect(iso(result[0]!.start)).toBe(`${MONDAY}T09:00:00.000Z`);
    expect(iso(result[15]!.end)).toBe(`${MONDAY}T17:00:00.000Z`);
    for (const slot of result) expect(slot.end - slot.start).toBe(30 * MIN);
  });

  it('uses the slot interval as the step and keeps every slot inside its interval', () => {
    const result = slots(
      utcWeekdays,
      rules({ durationMin: 60, stepMin: 15, from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:00:00Z`) }),
    );
    expect(starts(result).slice(0, 3)).toEqual([`${MONDAY}T09:00:00.000Z`, `${MONDAY}T09:15:00.000Z`, `${MONDAY}T09:30:00.000Z`]);
    expect(iso(result[result.length - 1]!.start)).toBe(`${MONDAY}T16:00:00.000Z`);
    expect(result).toHaveLength(29);
  });

  it('does not fill a grid step that does not fit the interval', () => {
    const schedule: Schedule = { weekly: { ...EMPTY_WEEK, monday: [{ start: '09:00', end: '10:40' }] }, overrides: [], timeZone: 'UTC' };
    const result = slots(schedule, rules({ durationMin: 45, stepMin: 45, from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:00:00Z`) }));
    expect(starts(result)).toEqual([`${MONDAY}T09:00:00.000Z`, `${MONDAY}T09:45:00.000Z`]);
  });

  it('keeps the grid anchored at the interval start whatever `from` is, and includes a slot ending exactly at `to`', () => {
    const result = slots(utcWeekdays, rules({ from: at(`${MONDAY}T10:15:00Z`), to: at(`${MONDAY}T12:00:00Z`) }));
    expect(starts(result)).toEqual([`${MONDAY}T10:30:00.000Z`, `${MONDAY}T11:00:00.000Z`, `${MONDAY}T11:30:00.000Z`]);
    const exclusive = slots(utcWeekdays, rules({ from: at(`${MONDAY}T10:00:00Z`), to: at(`${MONDAY}T11:59:00Z`) }));
    expect(starts(exclusive)).toEqual([`${MONDAY}T10:00:00.000Z`, `${MONDAY}T10:30:00.000Z`, `${MONDAY}T11:00:00.000Z`]);
  });

  it('merges overlapping intervals of one day, and never joins two days across midnight', () => {
    const schedule: Schedule = {
      weekly: {
        ...EMPTY_WEEK,
        monday: [
          { start: '10:00', end: '11:00' },
          { start: '09:00', end: '10:30' },
          { start: '23:00', end: '24:00' },
        ],
        tuesday: [{ start: '00:00', end: '01:00' }],
      },
      overrides: [],
      timeZone: 'UTC',
    };
    const result = slots(schedule, rules({ durationMin: 60, stepMin: 60, from: at(`${MONDAY}T00:00:00Z`), to: at('2026-03-03T12:00:00Z') }));
    expect(starts(result)).toEqual([
      `${MONDAY}T09:00:00.000Z`,
      `${MONDAY}T10:00:00.000Z`,
      `${MONDAY}T23:00:00.000Z`,
      '2026-03-03T00:00:00.000Z',
    ]);
  });
});

describe('computeSlots: hours through midnight', () => {
  const allDay: Schedule = { weekly: everyDay('00:00', '24:00'), overrides: [], timeZone: 'UTC' };

  it('starts the grid again at each local midnight, whatever window is asked for, with a step that does not divide a day', () => {
    const r = rules({ stepMin: 7, from: at(`${MONDAY}T00:00:00Z`), to: at('2026-03-06T00:00:00Z') });
    const week = starts(slots(allDay, r));
    // 1440 = 205 × 7 + 5: the last start of Monday is 23:55, and Tuesday's grid starts at its own midnight.
    expect(week).toContain(`${MONDAY}T23:55:00.000Z`);
    expect(week).toContain('2026-03-03T00:00:00.000Z');
    expect(week).toContain('2026-03-03T00:07:00.000Z');
    expect(week).not.toContain('2026-03-03T00:04:00.000Z');
    const tuesday = starts(slots(allDay, { ...r, from: at('2026-03-03T00:00:00Z'), to: at('2026-03-03T01:00:00Z') }));
    expect(tuesday.slice(0, 2)).toEqual(['2026-03-03T00:00:00.000Z', '2026-03-03T00:07:00.000Z']);
    expect(hostsFreeForSlot(r, [{ hostId: 'h', schedule: allDay, busy: [] }], 'any', at('2026-03-03T00:07:00Z'))).toEqual(['h']);
    expect(hostsFreeForSlot(r, [{ hostId: 'h', schedule: allDay, busy: [] }], 'any', at('2026-03-03T00:04:00Z'))).toBeUndefined();
  });

  it('still offers a slot that runs on past midnight into the next day\'s hours', () => {
    const night: Schedule = { weekly: { ...EMPTY_WEEK, monday: [{ start: '22:00', end: '24:00' }], tuesday: [{ start: '00:00', end: '02:00' }] }, overrides: [], timeZone: 'UTC' };
    const result = slots(night, rules({ durationMin: 90, stepMin: 45, from: at(`${MONDAY}T00:00:00Z`), to: at('2026-03-04T00:00:00Z') }));
    expect(starts(result)).toEqual([
      `${MONDAY}T22:00:00.000Z`,
      `${MONDAY}T22:45:00.000Z`,
      `${MONDAY}T23:30:00.000Z`,
      '2026-03-03T00:00:00.000Z',
    ]);
  });
});

describe('computeSlots: minimum notice', () => {
  it('offers nothing before now + minimum notice, and nothing in the past', () => {
    const r = rules({ from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:00:00Z`), now: at(`${MONDAY}T10:10:00Z`) });
    expect(iso(slots(utcWeekdays, r)[0]!.start)).toBe(`${MONDAY}T10:30:00.000Z`);
    expect(iso(slots(utcWeekdays, { ...r, minNoticeMin: 60 })[0]!.start)).toBe(`${MONDAY}T11:30:00.000Z`);
    expect(iso(slots(utcWeekdays, { ...r, minNoticeMin: 50 })[0]!.start)).toBe(`${MONDAY}T11:00:00.000Z`);
    expect(slots(utcWeekdays, { ...r, now: at(`${MONDAY}T17:00:00Z`) })).toEqual([]);
  });
});

describe('computeSlots: date overrides', () => {
  it('replaces a weekday by an override, and an empty override blocks the day', () => {
    const schedule: Schedule = {
      weekly: defaultWeeklyHours(),
      overrides: [
        { date: MONDAY, intervals: [] },
        { date: '2026-03-03', intervals: [{ start: '13:00', end: '14:00' }] },
        { date: '2026-03-07', intervals: [{ start: '10:00', end: '11:00' }] },
      ],
      timeZone: 'UTC',
    };
    const result = slots(schedule, rules({ durationMin: 60, stepMin: 60, from: at(`${MONDAY}T00:00:00Z`), to: at('2026-03-08T00:00:00Z') }));
    const byDay = new Map<string, number>();
    for (const s of starts(result)) byDay.set(s.slice(0, 10), (byDay.get(s.slice(0, 10)) ?? 0) + 1);
    expect(byDay.get(MONDAY)).toBeUndefined();
    expect(byDay.get('2026-03-03')).toBe(1);
    expect(byDay.get('2026-03-04')).toBe(8);
    expect(byDay.get('2026-03-07')).toBe(1);
    expect(starts(result)).toContain('2026-03-07T10:00:00.000Z');
  });

  it('reads override dates as local dates of the schedule zone', () => {
    // 2026-03-02 in Tokyo starts at 2026-03-01T15:00Z; the override must block the Tokyo Monday only.
    const schedule: Schedule = { weekly: defaultWeeklyHours(), overrides: [{ date: MONDAY, intervals: [] }], timeZone: 'Asia/Tokyo' };
    const result = slots(schedule, rules({ durationMin: 60, stepMin: 60, from: at('2026-03-01T00:00:00Z'), to: at('2026-03-04T00:00:00Z') }));
    expect(starts(result)[0]).toBe('2026-03-03T00:00:00.000Z'); // Tuesday 09:00 JST
  });
});

describe('computeSlots: buffers and bookings', () => {
  const day = rules({ from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:00:00Z`) });

  it('allows back-to-back slots without buffers', () => {
    const busy = [{ start: at(`${MONDAY}T10:00:00Z`), end: at(`${MONDAY}T10:30:00Z`) }];
    const result = starts(slots(utcWeekdays, day, busy));
    expect(result).toContain(`${MONDAY}T09:30:00.000Z`);
    expect(result).not.toContain(`${MONDAY}T10:00:00.000Z`);
    expect(result).toContain(`${MONDAY}T10:30:00.000Z`);
  });

  it('keeps the new slot’s buffers clear of busy time (which already holds the old booking’s buffers)', () => {
    // The existing booking 11:00–11:30 with 10 min after: busy 11:00–11:40.
    const busy = [{ start: at(`${MONDAY}T11:00:00Z`), end: at(`${MONDAY}T11:40:00Z`) }];
    const result = starts(slots(utcWeekdays, { ...day, bufferBeforeMin: 15, bufferAfterMin: 10 }, busy));
    expect(result).toContain(`${MONDAY}T10:00:00.000Z`); // buffered 09:45–10:40
    expect(result).not.toContain(`${MONDAY}T10:30:00.000Z`); // buffered 10:15–11:10
    expect(result).not.toContain(`${MONDAY}T11:30:00.000Z`); // buffered 11:15–12:10
    expect(result).toContain(`${MONDAY}T12:00:00.000Z`); // buffered 11:45–12:40
  });

  it('lets buffers reach outside working hours', () => {
    const result = starts(slots(utcWeekdays, { ...day, bufferBeforeMin: 30, bufferAfterMin: 30 }));
    expect(result[0]).toBe(`${MONDAY}T09:00:00.000Z`);
    expect(result[result.length - 1]).toBe(`${MONDAY}T16:30:00.000Z`);
  });

  it('offers a group slot that still has seats although its block is busy, and nothing overlapping it', () => {
    const block = { start: at(`${MONDAY}T10:00:00Z`), end: at(`${MONDAY}T10:30:00Z`) };
    const open = starts(slots(utcWeekdays, { ...day, stepMin: 15 }, [block], [block]));
    expect(open).toContain(`${MONDAY}T10:00:00.000Z`);
    expect(open).not.toContain(`${MONDAY}T09:45:00.000Z`);
    expect(open).not.toContain(`${MONDAY}T10:15:00.000Z`);
    const full = starts(slots(utcWeekdays, day, [block], []));
    expect(full).not.toContain(`${MONDAY}T10:00:00.000Z`);
  });
});

describe('computeSlots: daylight-saving changes', () => {
  const ny = (weekly: WeeklyHours, overrides: Schedule['overrides'] = []): Schedule => ({
    weekly,
    overrides,
    timeZone: 'America/New_York',
  });
  const berlin = (weekly: WeeklyHours, overrides: Schedule['overrides'] = []): Schedule => ({
    weekly,
    overrides,
    timeZone: 'Europe/Berlin',
  });

  it('keeps 09:00 local across the New York spring-forward weekend', () => {
    const result = slots(ny(everyDay('09:00', '10:00')), rules({ from: at('2026-03-07T00:00:00Z'), to: at('2026-03-10T00:00:00Z') }));
    expect(result.map((s) => formatInZone(s.start, 'America/New_York'))).toEqual([
      '2026-03-07T09:00:00-05:00',
      '2026-03-07T09:30:00-05:00',
      '2026-03-08T09:00:00-04:00',
      '2026-03-08T09:30:00-04:00',
      '2026-03-09T09:00:00-04:00',
      '2026-03-09T09:30:00-04:00',
    ]);
    expect(starts(result)[0]).toBe('2026-03-07T14:00:00.000Z');
    expect(starts(result)[2]).toBe('2026-03-08T13:00:00.000Z');
  });

  it('keeps 09:00 local across the New York fall-back weekend', () => {
    const result = slots(ny(everyDay('09:00', '09:30')), rules({ from: at('2026-10-31T00:00:00Z'), to: at('2026-11-03T00:00:00Z') }));
    expect(starts(result)).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z', '2026-11-02T14:00:00.000Z']);
  });

  it('an interval crossing the spring-forward gap is one hour shorter in real time', () => {
    // 01:00–04:00 local on 2026-03-08 is 06:00Z–08:00Z: two hours, not three.
    const schedule = ny(EMPTY_WEEK, [{ date: '2026-03-08', intervals: [{ start: '01:00', end: '04:00' }] }]);
    const result = slots(schedule, rules({ durationMin: 60, stepMin: 60, from: at('2026-03-08T00:00:00Z'), to: at('2026-03-09T00:00:00Z') }));
    expect(result.map((s) => formatInZone(s.start, 'America/New_York'))).toEqual([
      '2026-03-08T01:00:00-05:00',
      '2026-03-08T03:00:00-04:00',
    ]);
    for (const slot of result) expect(slot.end - slot.start).toBe(HOUR);
  });

  it('an interval starting inside the gap starts when the gap ends plus the offset into it', () => {
    const schedule = ny(EMPTY_WEEK, [{ date: '2026-03-08', intervals: [{ start: '02:30', end: '04:00' }] }]);
    const result = slots(schedule, rules({ from: at('2026-03-08T00:00:00Z'), to: at('2026-03-09T00:00:00Z') }));
    expect(result.map((s) => formatInZone(s.start, 'America/New_York'))).toEqual(['2026-03-08T03:30:00-04:00']);
  });

  it('an interval crossing the fall-back overlap is one hour longer and offers the repeated hour twice', () => {
    const schedule = ny(EMPTY_WEEK, [{ date: '2026-11-01', intervals: [{ start: '00:00', end: '03:00' }] }]);
    const result = slots(schedule, rules({ durationMin: 60, stepMin: 60, from: at('2026-11-01T00:00:00Z'), to: at('2026-11-02T00:00:00Z') }));
    expect(result.map((s) => formatInZone(s.start, 'America/New_York'))).toEqual([
      '2026-11-01T00:00:00-04:00',
      '2026-11-01T01:00:00-04:00',
      '2026-11-01T01:00:00-05:00',
      '2026-11-01T02:00:00-05:00',
    ]);
  });

  it('an interval starting inside the overlap starts at its first occurrence', () => {
    const schedule = ny(EMPTY_WEEK, [{ date: '2026-11-01', intervals: [{ start: '01:30', end: '02:30' }] }]);
    const result = slots(schedule, rules({ from: at('2026-11-01T00:00:00Z'), to: at('2026-11-02T00:00:00Z') }));
    expect(starts(result)[0]).toBe('2026-11-01T05:30:00.000Z');
    expect(result).toHaveLength(4); // 05:30Z to 07:30Z
  });

  it('a whole Berlin day has 23 hourly slots when clocks go forward and 25 when they go back', () => {
    const allDay = berlin(everyDay('00:00', '24:00'));
    const hourly = (from: string, to: string) =>
      slots(allDay, rules({ durationMin: 60, stepMin: 60, from: at(from), to: at(to) }));
    expect(hourly('2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z')).toHaveLength(23);
    expect(hourly('2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z')).toHaveLength(25);
    expect(hourly('2026-03-27T23:00:00Z', '2026-03-28T23:00:00Z')).toHaveLength(24);
  });

  it('keeps 09:00 local across both Berlin transitions', () => {
    const result = slots(berlin(everyDay('09:00', '09:30')), rules({ from: at('2026-03-28T00:00:00Z'), to: at('2026-03-31T00:00:00Z') }));
    expect(starts(result)).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    const autumn = slots(berlin(everyDay('09:00', '09:30')), rules({ from: at('2026-10-24T00:00:00Z'), to: at('2026-10-27T00:00:00Z') }));
    expect(starts(autumn)).toEqual(['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z']);
  });

  it('writes the offset of the zone asked for, per instant', () => {
    const result = slots(ny(everyDay('09:00', '09:30')), rules({ from: at('2026-03-28T00:00:00Z'), to: at('2026-03-31T00:00:00Z') }));
    expect(result.map((s) => formatInZone(s.start, 'Europe/Berlin'))).toEqual([
      '2026-03-28T14:00:00+01:00',
      '2026-03-29T15:00:00+02:00',
      '2026-03-30T15:00:00+02:00',
    ]);
  });
});

describe('computeHostSlots: several hosts', () => {
  const r = rules({ durationMin: 60, stepMin: 60, from: at(`${MONDAY}T00:00:00Z`), to: at(`${MONDAY}T23:00:00Z`) });
  const morning: Schedule = { weekly: { ...EMPTY_WEEK, monday: [{ start: '09:00', end: '12:00' }] }, overrides: [], timeZone: 'UTC' };
  const hour = (h: number) => ({ start: at(`${MONDAY}T${String(h).padStart(2, '0')}:00:00Z`), end: at(`${MONDAY}T${String(h + 1).padStart(2, '0')}:00:00Z`) });

  it('round robin (any) offers a slot when any host is free and lists the free hosts', () => {
    const hosts: HostAvailability[] = [
      { hostId: 'a', schedule: morning, busy: [hour(9)] },
      { hostId: 'b', schedule: morning, busy: [hour(10)] },
    ];
    const result = computeHostSlots(r, hosts, 'any');
    expect(result.map((s) => [iso(s.start), s.hostIds])).toEqual([
      [`${MONDAY}T09:00:00.000Z`, ['b']],
      [`${MONDAY}T10:00:00.000Z`, ['a']],
      [`${MONDAY}T11:00:00.000Z`, ['a', 'b']],
    ]);
    expect(computeHostSlots(r, [{ hostId: 'a', schedule: morning, busy: [hour(9), hour(10), hour(11)] }], 'any')).toEqual([]);
  });

  it('collective (all) offers a slot only when every host is free, over the intersection of their hours', () => {
    const late: Schedule = { weekly: { ...EMPTY_WEEK, monday: [{ start: '10:00', end: '13:00' }] }, overrides: [], timeZone: 'UTC' };
    const hosts: HostAvailability[] = [
      { hostId: 'a', schedule: morning, busy: [] },
      { hostId: 'b', schedule: late, busy: [hour(11)] },
    ];
    const result = computeHostSlots(r, hosts, 'all');
    expect(result.map((s) => [iso(s.start), s.hostIds])).toEqual([[`${MONDAY}T10:00:00.000Z`, ['a', 'b']]]);
  });

  it('intersects hosts in different zones, following each zone’s own daylight-saving dates', () => {
    const nine2five = (timeZone: string): Schedule => ({ weekly: defaultWeeklyHours(), overrides: [], timeZone });
    const hosts: HostAvailability[] = [
      { hostId: 'ny', schedule: nine2five('America/New_York'), busy: [] },
      { hostId: 'berlin', schedule: nine2five('Europe/Berlin'), busy: [] },
    ];
    const day = (d: string) => computeHostSlots({ ...r, from: at(`${d}T00:00:00Z`), to: at(`${d}T23:59:00Z`) }, hosts, 'all');
    // Both on standard time: 14:00Z–16:00Z. Between the US and EU changes: 13:00Z–16:00Z.
    expect(starts(day(MONDAY))).toEqual([`${MONDAY}T14:00:00.000Z`, `${MONDAY}T15:00:00.000Z`]);
    expect(starts(day('2026-03-09'))).toEqual(['2026-03-09T13:00:00.000Z', '2026-03-09T14:00:00.000Z', '2026-03-09T15:00:00.000Z']);
  });
});

describe('computeSlots: properties against a naive reference', () => {
  /** The definition, written the slow way: every grid point checked against every busy range. */
  function naive(schedule: Schedule, r: SlotRules, busy: TimeRange[]): TimeRange[] {
    const result: TimeRange[] = [];
    for (const w of availabilityWindows(schedule, r.from, r.to)) {
      for (let start = w.start; start + r.durationMin * MIN <= w.end; start += r.stepMin * MIN) {
        const end = start + r.durationMin * MIN;
        if (start < r.from || end > r.to || start < r.now + r.minNoticeMin * MIN) continue;
        const bs = start - r.bufferBeforeMin * MIN;
        const be = end + r.bufferAfterMin * MIN;
        if (busy.some((b) => b.start < be && b.end > bs)) continue;
        result.push({ start, end });
      }
    }
    return result;
  }

  it('matches the reference, is ordered and never overlaps busy time', () => {
    const base = at('2026-03-01T00:00:00Z');
    const busyArb = fc.array(
      fc.record({ offset: fc.integer({ min: 0, max: 20 * 24 * 4 }), length: fc.integer({ min: 1, max: 16 }) }),
      { maxLength: 80 },
    );
    fc.assert(
      fc.property(
        busyArb,
        fc.constantFrom('UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'),
        fc.constantFrom(15, 30, 45, 60),
        fc.constantFrom(10, 15, 30, 60),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 19 * 24 * 4 }),
        fc.integer({ min: 1, max: 12 * 24 * 4 }),
        (rawBusy, timeZone, durationMin, stepMin, bufferBeforeMin, bufferAfterMin, fromQ, lengthQ) => {
          const busy = rawBusy.map((b) => ({ start: base + b.offset * 15 * MIN, end: base + (b.offset + b.length) * 15 * MIN }));
          const r: SlotRules = {
            durationMin,
            stepMin,
            bufferBeforeMin,
            bufferAfterMin,
            minNoticeMin: 120,
            now: base + 2 * DAY,
            from: base + fromQ * 15 * MIN,
            to: base + (fromQ + lengthQ) * 15 * MIN,
          };
          const schedule: Schedule = {
            weekly: { ...defaultWeeklyHours(), saturday: [{ start: '10:00', end: '12:30' }] },
            overrides: [{ date: '2026-03-10', intervals: [] }],
            timeZone,
          };
          const result = slots(schedule, r, busy);
          expect(result).toEqual(naive(schedule, r, busy));
          for (let i = 1; i < result.length; i++) expect(result[i]!.start).toBeGreaterThan(result[i - 1]!.start);
        },
      ),
      { numRuns: 300 },
    );
  });
});
