import type { LocalDate } from '../../time.ts';

export function formatMinutes(minutes: number): string {
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

export function formatDurations(durations: number[]): string {
  return durations.map(formatMinutes).join(' · ');
}

/** Local dates are formatted at noon UTC of that date, which is that same date in the UTC formatter. */
const utcNoon = (date: LocalDate) => new Date(Date.UTC(date.year, date.month - 1, date.day, 12));
const weekdayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' });
const dayMonthFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const dayLongFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' });
const rangeFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export function formatWeekday(date: LocalDate): string {
  return weekdayFormat.format(utcNoon(date));
}

export function formatDayMonth(date: LocalDate): string {
  return dayMonthFormat.format(utcNoon(date));
}

export function formatDayLong(date: LocalDate): string {
  return dayLongFormat.format(utcNoon(date));
}

export function formatDayRange(first: LocalDate, last: LocalDate): string {
  return rangeFormat.formatRange(utcNoon(first), utcNoon(last));
}

export function formatSlot(slot: { start: string; end: string }, timeZone: string): string {
  const day = new Intl.DateTimeFormat(undefined, { timeZone, weekday: 'long', day: 'numeric', month: 'long' });
  const time = new Intl.DateTimeFormat(undefined, { timeZone, hour: 'numeric', minute: '2-digit' });
  const start = new Date(slot.start);
  return `${day.format(start)}, ${time.formatRange(start, new Date(slot.end))}`;
}
