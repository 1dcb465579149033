import type { RouterOutputs as Outputs } from '../../api.ts';
import { formatCalendarDate, parseDateInput } from '../../time.ts';

export type Explanation = Outputs['availability']['explain'];
export type SlotReason = Explanation['reasons'][number];

/** Who is reading (their own time is "your"), and how dates are written. */
export interface ReasonContext {
  userId: string;
  formatWhen: (iso: string) => string;
}

/** "90 minutes", "2 hours", "1 day". */
export function durationWords(minutes: number): string {
  const [amount, unit] = minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/** `2026-12-24` as "Dec 24, 2026" (a calendar date: no zone moves it). */
function dateWords(date: string): string {
  const local = parseDateInput(date);
  return local ? formatCalendarDate(local) : date;
}

/** One reason a time is not offered, in plain words; a co-host's time stays anonymous as the API keeps it. */
export function reasonText(reason: SlotReason, context: ReasonContext): string {
  const yours = !('hostId' in reason) || reason.hostId === undefined || reason.hostId === context.userId;
  const whose = yours ? 'your' : 'a co-host’s';
  switch (reason.kind) {
    case 'inactive':
      return 'This event type is inactive, so it offers no times.';
    case 'minimum_notice':
      return reason.minNoticeMin === 0
        ? 'This time has already passed.'
        : `Too soon: this event type needs ${durationWords(reason.minNoticeMin)} of notice (the earliest start now is ${context.formatWhen(reason.earliestStart)}).`;
    case 'outside_working_hours':
      return `Outside ${whose} working hours.`;
    case 'date_override':
      return `${yours ? 'Your' : 'A co-host’s'} date override for ${dateWords(reason.date)} leaves this time out.`;
    case 'slot_interval':
      return `Not on the slot grid: times start every ${durationWords(reason.stepMin)} from the start of the working hours.`;
    case 'booked':
      return yours ? 'You already have a booking at this time.' : 'A co-host already has a booking at this time.';
    case 'buffer':
      return `Too close to ${yours ? 'one of your bookings' : 'a co-host’s booking'}: the buffer time around it would overlap.`;
    case 'held':
      return `Someone is holding ${yours ? 'this time' : 'a co-host’s time'} while they finish booking it; it is free again if they let it go or the hold ends.`;
    case 'seats_full':
      return 'Every seat at this time is taken.';
    case 'calendar_busy':
      if (reason.connectionName !== undefined) return `Busy in your calendar “${reason.connectionName}” (calendar connection).`;
      return yours ? 'Busy in one of your connected calendars.' : 'Busy in a co-host’s connected calendar.';
    default:
      return `Not offered (${(reason as { kind: string }).kind.replace(/_/g, ' ')}).`;
  }
}
