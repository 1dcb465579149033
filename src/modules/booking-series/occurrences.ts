/**
 * The occurrences of a booking series: pure calendar arithmetic on the host's wall clock, then each local date and
 * time placed in the zone (wall-clock.ts: a time the clock skips moves forward by the gap, a repeated one is the
 * earlier instant). Monthly series on the 29th to 31st fall on the last day of shorter months (docs/decisions.md).
 */
import { addDays, type CalendarDate, localFields, wallClockToInstant } from '../availability/wall-clock.ts';

export const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export interface Recurrence {
  frequency: Frequency;
  /** Every `interval` days, weeks or months. */
  interval: number;
  /** How many occurrences, the first included. */
  count: number;
}

const MINUTE = 60_000;

/** The number of days of a month (1-based). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The local date of occurrence `index` (0 is the first's own date). */
export function occurrenceDate(first: CalendarDate, recurrence: Pick<Recurrence, 'frequency' | 'interval'>, index: number): CalendarDate {
  const step = index * recurrence.interval;
  switch (recurrence.frequency) {
    case 'daily':
      return addDays(first, step);
    case 'weekly':
      return addDays(first, 7 * step);
    case 'monthly': {
      const months = first.year * 12 + (first.month - 1) + step;
      const year = Math.floor(months / 12);
      const month = (months % 12) + 1;
      return { year, month, day: Math.min(first.day, daysInMonth(year, month)) };
    }
  }
}

/**
 * The start of every occurrence, epoch milliseconds, the first being `firstStart` itself; later ones at the same
 * wall-clock time (and seconds) in `zone` on their dates.
 */
export function seriesStarts(firstStart: number, zone: string, recurrence: Recurrence): number[] {
  const local = localFields(firstStart, zone);
  const first: CalendarDate = { year: local.year, month: local.month, day: local.day };
  const minutes = local.hour * 60 + local.minute;
  // Seconds and milliseconds ride along unchanged (no zone moves its offset by less than a minute).
  const belowMinute = (((firstStart % MINUTE) + MINUTE) % MINUTE);
  const starts = [firstStart];
  for (let index = 1; index < recurrence.count; index++) {
    starts.push(wallClockToInstant(occurrenceDate(first, recurrence, index), minutes, zone) + belowMinute);
  }
  return starts;
}
