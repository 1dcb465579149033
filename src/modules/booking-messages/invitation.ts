/**
 * The invitation attached to the invitee's and guests' e-mails: one VEVENT per booking in an iTIP message (RFC 5546),
 * `METHOD:REQUEST` for a new or moved booking and `METHOD:CANCEL` for a canceled one. The UID is the booking's,
 * as in the manage page's `.ics`, so every copy updates one event; SEQUENCE is the booking's, one more per
 * change, so a calendar takes the newest. Times are written in the named zone with its VTIMEZONE. A series' one
 * confirmation (or cancellation) holds a VEVENT per occurrence, each with its occurrence's UID and SEQUENCE, so that
 * occurrence's later messages update or cancel that event alone.
 */
import ical, { ICalAttendeeRole, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { dayjs } from '../../lib/time.ts';
import { vtimezone } from './vtimezone.ts';

export interface InvitationFacts {
  method: 'REQUEST' | 'CANCEL';
  /** One per booking (a series' occurrences, earliest first), each its own description and SEQUENCE. */
  events: { uid: string; start: Date; end: Date; description: string; sequence: number }[];
  /** When this copy was made (DTSTAMP): the message's creation, the same on every attempt. */
  stamp: Date;
  /** The IANA zone the times are written in. */
  zone: string;
  summary: string;
  location: string | null;
  /** The meeting's link, for an online meeting (URL). */
  url: string | null;
  organizer: { name: string; email: string };
  attendees: { name?: string | undefined; email: string }[];
}

/** The booking's UID: the booking's id at the site's host (the manage page's `.ics` uses the same). */
export function bookingUid(bookingId: string, siteUrl: string): string {
  return `${bookingId}@${new URL(siteUrl).hostname}`;
}

export function invitationFile(facts: InvitationFacts): string {
  const calendar = ical({
    prodId: { company: 'scheduling-api', product: 'booking', language: 'EN' },
    method: facts.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
    timezone: { name: facts.zone, generator: (zone) => vtimezone(zone, facts.events[0]!.start, facts.events.at(-1)!.end) },
  });
  for (const event of facts.events) {
    calendar.createEvent({
      id: event.uid,
      sequence: event.sequence,
      stamp: facts.stamp,
      // ical-generator converts each date to `timezone` itself: converting here first did the slow part twice.
      start: dayjs(event.start),
      end: dayjs(event.end),
      timezone: facts.zone,
      summary: facts.summary,
      description: event.description,
      location: facts.location,
      url: facts.url,
      organizer: facts.organizer,
      attendees: facts.attendees.map((attendee) => ({ ...attendee, role: ICalAttendeeRole.REQ })),
      status: facts.method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  return calendar.toString();
}
