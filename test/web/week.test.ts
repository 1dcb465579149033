import { describe, expect, it } from 'vitest';
import { busyBlocks, cellMinutes, dayCells, mondayOf, visibleHours, type WeekSchedule, weekWindow, workingHours } from '../../web/src/dashboard/availability/week.ts';
import { localInstant } from '../../web/src/time.ts';

const NINE_TO_FIVE = [{ start: '09:00', end: '17:00' }];
const SCHEDULE: WeekSchedule = {
  weekly: { monday: NINE_TO_FIVE, tuesday: NINE_TO_FIVE, wednesday: [], thursday: NINE_TO_FIVE, friday: NINE_TO_FIVE, saturday: [], sunday: [] },
  overrides: [{ date: '2026-11-26', intervals: [{ start: '10:00', end: '12:30' }] }],
};
const date = (text: string) => {
  const [year, month, day] = text.split('-').map(Number);
  return { year: year!, month: month!, day: day! };
};

describe('the week view layout', () => {
  it('starts a week on its Monday, from that day’s local midnight to the next Monday’s (across a DST change)', () => {
    expect(mondayOf(date('2026-11-26'))).toEqual(date('2026-11-23'));
    expect(mondayOf(date('2026-11-23'))).toEqual(date('2026-11-23'));
    expect(mondayOf(date('2026-11-29'))).toEqual(date('2026-11-23'));
    // Berlin leaves summer time on Sunday 25 October 2026: the week is 169 hours long.
    expect(weekWindow(date('2026-10-19'), 'Europe/Berlin')).toEqual({ from: '2026-10-18T22:00:00.000Z', to: '2026-10-25T23:00:00.000Z' });
  });

  it('takes a day’s hours from its date override, otherwise from its weekday', () => {
    expect(workingHours(SCHEDULE, date('2026-11-23'))).toEqual([{ start: 540, end: 1020 }]);
    expect(workingHours(SCHEDULE, date('2026-11-25'))).toEqual([]);
    expect(workingHours(SCHEDULE, date('2026-11-26'))).toEqual([{ start: 600, end: 750 }]);
  });

  it('cuts busy time into each local day it touches, in the zone’s wall-clock minutes', () => {
    const busy = [
      { start: '2026-11-23T09:00:00Z', end: '2026-11-23T10:30:00Z', label: 'Work' },
      // 22:00 Monday to 01:00 Tuesday in Berlin.
      { start: '2026-11-23T21:00:00Z', end: '2026-11-24T00:00:00Z', label: 'Late' },
      { start: '2026-11-19T00:00:00Z', end: '2026-12-01T00:00:00Z', label: 'Trip' },
    ];
    expect(busyBlocks(busy, date('2026-11-23'), 'Europe/Berlin')).toEqual([
      { start: 600, end: 690, label: 'Work' },
      { start: 1320, end: 1440, label: 'Late' },
      { start: 0, end: 1440, label: 'Trip' },
    ]);
    expect(busyBlocks(busy, date('2026-11-24'), 'Europe/Berlin')).toEqual([
      { start: 0, end: 60, label: 'Late' },
      { start: 0, end: 1440, label: 'Trip' },
    ]);
    expect(busyBlocks(busy, date('2026-12-02'), 'Europe/Berlin')).toEqual([]);
  });

  it('shows whole hours around everything there is, or 9 to 17', () => {
    expect(visibleHours([])).toEqual({ start: 540, end: 1020 });
    expect(visibleHours([{ start: 510, end: 1035 }, { start: 600, end: 660 }])).toEqual({ start: 480, end: 1080 });
    expect(visibleHours([{ start: 1380, end: 1440 }])).toEqual({ start: 1380, end: 1440 });
  });

  it('has rows of 30 minutes, or 15 when the duration needs them', () => {
    expect(cellMinutes(30)).toBe(30);
    expect(cellMinutes(60)).toBe(30);
    expect(cellMinutes(45)).toBe(15);
    expect(cellMinutes(20)).toBe(15);
    expect(cellMinutes(undefined)).toBe(30);
  });

  it('explains the time a row starts, or the offered slot inside it', () => {
    const day = date('2026-11-23');
    const at = (minute: number) => localInstant(day, minute, 'Europe/Berlin');
    const cells = dayCells(day, { start: 540, end: 660 }, 30, [at(540), at(580)], 'Europe/Berlin');
    expect(cells).toEqual([
      { row: 540, instant: at(540), offered: true },
      { row: 570, instant: at(580), offered: true },
      { row: 600, instant: at(600), offered: false },
      { row: 630, instant: at(630), offered: false },
    ]);
    expect(new Date(at(540)).toISOString()).toBe('2026-11-23T08:00:00.000Z');
  });
});
