/**
 * What a message says about its booking, as it was when the message was queued (stored with the message as
 * JSON), so a message sent late, or read in the dashboard later, says what was true when it was written.
 */
import type { Frequency } from '../booking-series/occurrences.ts';
import type { BookingLocation } from '../bookings/booking-location.ts';
import { locationLine } from '../bookings/booking-location-text.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';

export interface PersonFacts {
  name: string;
  email: string;
  timezone: string;
}

export interface MessageFacts {
  bookingId: string;
  eventTypeName: string;
  startAt: string;
  endAt: string;
  /** The time before a reschedule (update messages). */
  previous: { startAt: string; endAt: string } | null;
  /** The place in one line (a calendar's LOCATION). */
  location: string | null;
  /** The place as the booking has it; absent in messages queued before it was kept. */
  place?: BookingLocation | null;
  invitee: PersonFacts;
  guests: string[];
  answers: { questionId: string; value: string }[];
  notes: string | null;
  /** Who canceled and why (cancellation messages). */
  canceled: { by: string | null; reason: string | null } | null;
  /**
   * For a booking that needs the host's approval: `pending` while it is a request (the invitee holds no invitation
   * yet), `confirmed` on the messages its confirmation sends. Absent otherwise (and on messages written before).
   */
  approval?: 'pending' | 'confirmed';
  /** Why a request was declined (decline messages): the host's reason, or nobody confirmed it before its start. */
  declined?: { reason: string | null; expired: boolean };
  /**
   * A message a series sends once for several occurrences (a new series' confirmation or request; the series'
   * cancellation; the host's confirmation or decline of its requests), queued on the first occurrence concerned,
   * whose facts the rest are: how it repeats and each occurrence concerned, each a booking of its own. Absent on
   * every other message.
   */
  series?: SeriesFacts;
  /** The booking's host, added by the statement that queues the messages (it reads the host's row). */
  host: PersonFacts;
}

export interface SeriesFacts {
  id: string;
  frequency: Frequency;
  interval: number;
  occurrences: SeriesOccurrence[];
}

export interface SeriesOccurrence {
  bookingId: string;
  startAt: string;
  endAt: string;
  /** Its SEQUENCE after the change; absent on a new series' messages, whose occurrences share the message's. */
  sequence?: number;
  /** It was still a request when the series was canceled: there is no invitation of it to withdraw. */
  request?: boolean;
}

/** The facts the queueing statement completes with the host. */
export type FactsWithoutHost = Omit<MessageFacts, 'host'>;

/** What a series' messages need of the series itself. */
export type SeriesRef = Pick<SeriesFacts, 'id' | 'frequency' | 'interval'>;

/**
 * A series' facts: its first occurrence's, with every occurrence concerned (earliest first), each completed by
 * `more` (its sequence, whether it was a request).
 */
export function seriesFactsOf(
  occurrences: readonly Booking[],
  series: SeriesRef,
  more: (booking: Booking) => Pick<SeriesOccurrence, 'sequence' | 'request'> = () => ({}),
): FactsWithoutHost | undefined {
  const facts = occurrences[0] && factsOf(occurrences[0]);
  if (!facts) return undefined;
  const listed = occurrences.map((booking) => ({ bookingId: booking.id, startAt: booking.startAt, endAt: booking.endAt, ...more(booking) }));
  return { ...facts, series: { ...series, occurrences: listed } };
}

export function factsOf(booking: Booking, previous?: { startAt: string; endAt: string }): FactsWithoutHost | undefined {
  if (!booking.invitee) return undefined;
  return {
    bookingId: booking.id,
    eventTypeName: booking.eventType.name,
    startAt: booking.startAt,
    endAt: booking.endAt,
    previous: previous ?? null,
    location: booking.location ? locationLine(booking.location) : null,
    place: booking.location,
    invitee: booking.invitee,
    guests: booking.guests ?? [],
    answers: booking.answers ?? [],
    notes: booking.notes ?? null,
    canceled: booking.status === 'canceled' ? { by: booking.canceledBy, reason: booking.cancelReason } : null,
    ...(booking.status === 'pending' ? { approval: 'pending' as const } : {}),
  };
}
