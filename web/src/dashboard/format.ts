import type { RouterOutputs as Outputs } from '../api.ts';
import { type LocalDate, startOfLocalDate } from '../time.ts';
import type { SessionUser } from './session.ts';

export type BookingItem = Outputs['bookings']['list']['data'][number];
export type EventTypeItem = Outputs['eventTypes']['list']['data'][number];
export type LeadItem = Outputs['leads']['list']['data'][number];
export type ScheduleData = Outputs['schedule']['get'];

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', { timeZone, ...options });
    formatters.set(key, found);
  }
  return found;
}

/** "Tue, Nov 24, 2026, 9:00 AM" in the host's zone. */
export function formatWhen(iso: string, timeZone: string): string {
  return formatter(timeZone, { weekday: 'short', month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' }).format(
    new Date(iso),
  );
}

export function formatTime(iso: string, timeZone: string): string {
  return formatter(timeZone, { hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
}

export function formatDay(iso: string, timeZone: string): string {
  return formatter(timeZone, { month: 'short', day: 'numeric', year: 'numeric' }).format(new Date(iso));
}

/** `2026-11-24` (an <input type="date"> value) as a local date. */
export function parseDateInput(value: string): LocalDate | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return match ? { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) } : null;
}

/** The instant a date input's day starts in a zone, as ISO. */
export function dayStartIso(value: string, timeZone: string): string | undefined {
  const date = parseDateInput(value);
  return date ? new Date(startOfLocalDate(date, timeZone)).toISOString() : undefined;
}

export function titleCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1).replace(/_/g, ' ');
}

export function planName(plan: SessionUser['plan']): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}
