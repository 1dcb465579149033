/**
 * The week view's layout, as plain functions: which local days a week has, the working hours and busy blocks of
 * each day in wall-clock minutes of the host's zone, the hours worth showing, and the times a click can explain.
 */
import { addDays, dateKey, type LocalDate, localDateOf, localInstant, minuteOfDay, startOfLocalDate, weekdayIndex } from '../../time.ts';

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const DAY_MINUTES = 1440;

export interface Interval {
  start: string;
  end: string;
}

export interface WeekSchedule {
  weekly: Record<(typeof WEEKDAYS)[number], Interval[]>;
  overrides: { date: string; intervals: Interval[] }[];
}

/** A stretch of one day in wall-clock minutes from local midnight, [start, end). */
export interface DaySpan {
  start: number;
  end: number;
}

/** A busy interval as GET /availability/busy answers it, with the words its block shows. */
export interface BusyInterval {
  start: string;
  end: string;
  label: string;
}

export interface BusyBlock extends DaySpan {
  label: string;
}

/** The Monday of the week a local date falls in. */
export function mondayOf(date: LocalDate): LocalDate {
  return addDays(date, -weekdayIndex(date));
}

export function weekOf(monday: LocalDate): LocalDate[] {
  return Array.from({ length: 7 }, (_, i) => addDays(monday, i));
}

/** The week's window as instants: its Monday's start to the next Monday's start in the zone. */
export function weekWindow(monday: LocalDate, timeZone: string): { from: string; to: string } {
  return {
    from: new Date(startOfLocalDate(monday, timeZone)).toISOString(),
    to: new Date(startOfLocalDate(addDays(monday, 7), timeZone)).toISOString(),
  };
}

function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** A day's working hours: its date override's when it has one, otherwise its weekday's. */
export function workingHours(schedule: WeekSchedule, date: LocalDate): DaySpan[] {
  const override = schedule.overrides.find((item) => item.date === dateKey(date));
  const intervals = override ? override.intervals : schedule.weekly[WEEKDAYS[weekdayIndex(date)]!];
  return intervals.map((interval) => ({ start: minutesOf(interval.start), end: minutesOf(interval.end) }));
}

/** The parts of busy intervals that fall on a local day, in its wall-clock minutes (a block past midnight ends at 24:00). */
export function busyBlocks(busy: readonly BusyInterval[], date: LocalDate, timeZone: string): BusyBlock[] {
  const dayStart = startOfLocalDate(date, timeZone);
  const dayEnd = startOfLocalDate(addDays(date, 1), timeZone);
  const blocks: BusyBlock[] = [];
  for (const interval of busy) {
    const start = Date.parse(interval.start);
    const end = Date.parse(interval.end);
    if (end <= dayStart || start >= dayEnd) continue;
    const from = start <= dayStart ? 0 : minuteOfDay(start, timeZone);
    const to = end >= dayEnd ? DAY_MINUTES : minuteOfDay(end, timeZone);
    if (to > from) blocks.push({ start: from, end: to, label: interval.label });
  }
  return blocks;
}

/** The whole hours worth drawing: everything worked, busy or offered in the week, or 9 to 17 when nothing is. */
export function visibleHours(spans: readonly DaySpan[]): DaySpan {
  if (spans.length === 0) return { start: 9 * 60, end: 17 * 60 };
  const start = Math.min(...spans.map((span) => span.start));
  const end = Math.max(...spans.map((span) => span.end));
  return { start: Math.floor(start / 60) * 60, end: Math.min(DAY_MINUTES, Math.max(Math.ceil(end / 60) * 60, Math.floor(start / 60) * 60 + 60)) };
}

/** The rows of the grid: every 15 minutes for durations that need it (45, 75…), otherwise every 30. */
export function cellMinutes(durationMin: number | undefined): number {
  return durationMin !== undefined && durationMin % 30 !== 0 ? 15 : 30;
}

/** One clickable time of a day: where its row starts, and the instant it explains. */
export interface Cell {
  row: number;
  instant: number;
  offered: boolean;
}

/**
 * A day's cells over the visible hours. A cell holding an offered slot's start explains that slot (also when it
 * lies off the rows, as a custom slot interval can); any other cell explains the time its row starts.
 */
export function dayCells(date: LocalDate, hours: DaySpan, step: number, offered: readonly number[], timeZone: string): Cell[] {
  const cells: Cell[] = [];
  for (let row = hours.start; row < hours.end; row += step) {
    const rowStart = localInstant(date, row, timeZone);
    const rowEnd = localInstant(date, row + step, timeZone);
    const slot = offered.find((start) => start >= rowStart && start < rowEnd);
    cells.push({ row, instant: slot ?? rowStart, offered: slot !== undefined });
  }
  return cells;
}

/** The local date of an instant, as the grid's key for a day. */
export function dayKeyOf(instant: number, timeZone: string): string {
  return dateKey(localDateOf(instant, timeZone));
}
