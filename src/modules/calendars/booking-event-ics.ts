/**
 * The calendar object a booking is written as in its host's CalDAV calendar. Pure, so it is unit-tested alone.
 */
import type { BookingLocation } from '../bookings/booking-location.ts';
import { locationLine, locationSentence, meetingLink } from '../bookings/booking-location-text.ts';
import ICAL from 'ical.js';
import ical, { ICalAttendeeRole, type ICalAttendeeScheduleAgent, ICalAttendeeStatus, ICalEventStatus, ICalEventTransparency } from 'ical-generator';

export interface BookingEventFacts {
  /** `<booking id>@<site host>`: the UID of the invitee's .ics file too, stable for the booking's life. */
  uid: string;
  /** Grows with each reschedule, so clients holding a copy take the newer one. */
  sequence: number;
  start: Date;
  end: Date;
  /** When this copy is written (DTSTAMP). */
  stamp: Date;
  eventTypeName: string;
  invitee: { name: string; email: string };
  host: { name: string; email: string };
  location: BookingLocation | null;
  notes: string | null;
  /** The host's page for the booking in the dashboard. */
  link: string;
}

/**
 * One VEVENT in a VCALENDAR without METHOD (RFC 4791: stored calendar objects carry none). The host organizes, the
 * invitee attends with SCHEDULE-AGENT=CLIENT, so a server that schedules on its own (RFC 6638) sends the invitee
 * no invitation: the service has already told them. Times are UTC, which every client converts without a VTIMEZONE.
 * URL is the meeting's link for an online meeting, else the booking's page in the dashboard.
 */
export function bookingEventIcs(facts: BookingEventFacts): string {
  const calendar = ical({ prodId: { company: 'scheduling-api', product: 'bookings', language: 'EN' } });
  const where = facts.location
    ? [`Where: ${locationSentence(facts.location, { audience: 'host', hostName: facts.host.name, inviteeName: facts.invitee.name })}`]
    : [];
  const notes = facts.notes ? [`Notes from ${facts.invitee.name}: ${facts.notes}`] : [];
  const description = [`Booking: ${facts.link}`, ...where, ...notes].join('\n\n');
  calendar.createEvent({
    id: facts.uid,
    sequence: facts.sequence,
    start: facts.start,
    end: facts.end,
    stamp: facts.stamp,
    summary: `${facts.eventTypeName} with ${facts.invitee.name}`,
    description,
    location: facts.location ? locationLine(facts.location) : null,
    // An online meeting's link is what the host needs from the event; the booking's page stays in the description.
    url: meetingLink(facts.location) ?? facts.link,
    organizer: facts.host,
    attendees: [
      {
        name: facts.invitee.name,
        email: facts.invitee.email,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.ACCEPTED,
        // The package exports this enum as a type only.
        scheduleAgent: 'CLIENT' as ICalAttendeeScheduleAgent,
      },
    ],
    status: ICalEventStatus.CONFIRMED,
    transparency: ICalEventTransparency.OPAQUE,
  });
  return calendar.toString();
}

/**
 * What the service owns in the event: its time (and so any recurrence a client added to it), its stamp and
 * version, what it says and who takes part. Every write replaces these with the booking's; whatever else the host
 * added to the event in their calendar (alarms, categories, a color, a client's own properties) stays.
 */
const OWNED_PROPERTIES = new Set([
  'uid', 'dtstart', 'dtend', 'duration', 'rrule', 'rdate', 'exdate', 'dtstamp', 'last-modified', 'sequence', 'status', 'transp',
  'summary', 'organizer', 'attendee', 'location', 'url', 'description',
]);

/**
 * The booking's event (`ours`) carrying what the host added to the copy in their calendar (`current`): its
 * properties the service does not own, its subcomponents (VALARMs) and the object's other components than VEVENTs
 * (the VTIMEZONEs its client described). With nothing to keep, or text that is not iCalendar, it is `ours` itself.
 */
export function withHostEdits(ours: string, current: string): string {
  let theirs: ICAL.Component;
  try {
    theirs = new ICAL.Component(ICAL.parse(current));
  } catch {
    return ours;
  }
  const mine = new ICAL.Component(ICAL.parse(ours));
  const event = mine.getFirstSubcomponent('vevent')!;
  const theirEvent = theirs.getFirstSubcomponent('vevent');
  const owned = new Set([...OWNED_PROPERTIES, ...event.getAllProperties().map((property) => property.name)]);
  const properties = (theirEvent?.getAllProperties() ?? []).filter((property) => !owned.has(property.name));
  const alarms = theirEvent?.getAllSubcomponents() ?? [];
  const others = theirs.getAllSubcomponents().filter((component) => component.name !== 'vevent');
  if (properties.length + alarms.length + others.length === 0) return ours;
  for (const property of properties) event.addProperty(new ICAL.Property(property.toJSON()));
  for (const component of alarms) event.addSubcomponent(new ICAL.Component(component.toJSON()));
  for (const component of others) mine.addSubcomponent(new ICAL.Component(component.toJSON()));
  return mine.toString();
}

/** The UID of a calendar object's first event; null when it has none or is not iCalendar. */
export function eventUid(ics: string): string | null {
  try {
    const uid = new ICAL.Component(ICAL.parse(ics)).getFirstSubcomponent('vevent')?.getFirstPropertyValue('uid');
    return typeof uid === 'string' ? uid : null;
  } catch {
    return null;
  }
}

/** The host's link to a booking: the dashboard's bookings page, naming the booking. */
export function hostBookingLink(siteUrl: string, bookingId: string): string {
  return `${siteUrl.replace(/\/+$/, '')}/app/bookings?booking=${encodeURIComponent(bookingId)}`;
}

/** What follows the booking's id in its event's UID: `@<site host>`, as in the invitee's .ics file. */
export function bookingUidSuffix(siteUrl: string): string {
  return `@${new URL(siteUrl).hostname}`;
}
