/**
 * A series that cannot be booked in full is refused as a whole: one 409 whose details name each failing occurrence
 * (its start) and each reason, by the kinds GET /availability/explain uses, plus `recurrence_max_count` for the
 * occurrences past the event type's longest series. Pure: the reasons come from the explanation of each occurrence.
 */
import { DomainError, type ErrorDetail } from '../../lib/errors.ts';
import type { SlotReason } from '../availability/slot-reasons.ts';

export type OccurrenceReason = SlotReason | { kind: 'recurrence_max_count'; maxCount: number } | { kind: 'taken'; message: string };

export interface FailedOccurrence {
  /** 0 for the first occurrence. */
  index: number;
  /** Epoch milliseconds. */
  start: number;
  reasons: OccurrenceReason[];
}

const PERIOD = { daily_limit: 'day', weekly_limit: 'week', monthly_limit: 'month' } as const;

/** Sentences for reason kinds the explanation may name beyond those typed here. */
const LATER_KINDS: Record<string, string> = { held: 'Someone is holding that time while they book it.' };

/** A reason as one sentence for a person (no booking ids or calendar names: invitees read these too). */
export function reasonSentence(reason: OccurrenceReason): string {
  switch (reason.kind) {
    case 'inactive':
      return 'The event type is inactive.';
    case 'minimum_notice':
      return `It starts in the past or sooner than the event type's minimum notice of ${reason.minNoticeMin} minutes.`;
    case 'outside_working_hours':
      return "It is outside the host's available hours.";
    case 'date_override':
      return `The host's hours on ${reason.date} leave it out.`;
    case 'slot_interval':
      return `It is not a start time the event type offers (every ${reason.stepMin} minutes within the hours).`;
    case 'booked':
      return 'The host already has a booking at that time.';
    case 'buffer':
      return "It is too close to another of the host's bookings (buffers).";
    case 'seats_full':
      return 'Every seat of that slot is taken.';
    case 'calendar_busy':
      return 'The host is busy at that time in a connected calendar.';
    case 'pending':
      return 'The host has a booking waiting for confirmation at that time.';
    case 'booking_window':
      return `It is outside the booking window (${reason.firstDate} to ${reason.lastDate}, in the host's time zone).`;
    case 'daily_limit':
    case 'weekly_limit':
    case 'monthly_limit':
      return `The host's limit of ${reason.limit} booking${reason.limit === 1 ? '' : 's'} per ${PERIOD[reason.kind]} is reached (${
        reason.firstDate === reason.lastDate ? reason.firstDate : `${reason.firstDate} to ${reason.lastDate}`
      }, counting this series' earlier occurrences).`;
    case 'recurrence_max_count':
      return `The event type takes series of at most ${reason.maxCount} occurrences.`;
    case 'taken':
      return reason.message;
    default: {
      const kind = (reason as { kind: string }).kind;
      return LATER_KINDS[kind] ?? `It cannot be booked (${kind}).`;
    }
  }
}

/** One detail per failing occurrence and reason, in the order of the occurrences. */
export function occurrenceDetails(failures: readonly FailedOccurrence[]): ErrorDetail[] {
  return [...failures]
    .sort((a, b) => a.index - b.index)
    .flatMap(({ index, start, reasons }) => {
      const startAt = new Date(start).toISOString();
      return reasons.map((reason) => ({ code: reason.kind, path: ['occurrences', index], message: `${startAt}: ${reasonSentence(reason)}`, startAt }));
    });
}

/** The 409 of a series with failing occurrences. */
export function seriesRefused(failures: readonly FailedOccurrence[], count: number): DomainError {
  const failing = new Set(failures.map((failure) => failure.index)).size;
  return new DomainError(
    'conflict',
    `${failing} of the series' ${count} occurrences cannot be booked, so none was: see details for each one. Pick another start or fewer occurrences.`,
    occurrenceDetails(failures),
  );
}
