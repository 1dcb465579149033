/**
 * "Add to calendar" for an invitee: the .ics file and the Google Calendar and Outlook links of one booking.
 * Pure functions of the booking's facts, so they are unit-tested without a database.
 */
import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';

export interface CalendarEventFacts {
  bookingId: string;
  /** The service's public origin: the UID's domain and where the links point. */
  siteUrl: string;
  title: string;
  start: Date;
  end: Date;
  /** The invitee's IANA time zone: the calendar's display zone (times themselves are written in UTC). */
  timezone: string;
  organizer: { name: string; email: string };
  attendee: { name: string; email: string };
  /** The place in one line (LOCATION). */
  location: string | null;
  /** An online meeting's link (URL). */
  url: string | null;
  description: string;
  canceled: boolean;
  /** Grows each time the booking changes, so a calendar that imported an older copy takes the newer one. */
  sequence: number;
}

/**
 * One VEVENT in a PUBLISH calendar: the invitee adds it to their own calendar (REQUEST would make mail clients
 * treat it as an invitation to answer, and answers would go to the host). DTSTART/DTEND are UTC, which every
 * client converts correctly without a VTIMEZONE; X-WR-TIMEZONE names the invitee's zone for display. The UID
 * is stable per booking, so importing a rescheduled copy updates the event instead of adding a second one.
 */
export function calendarFile(facts: CalendarEventFacts): string {
  const calendar = ical({
    prodId: { company: 'scheduling-api', product: 'booking', language: 'EN' },
    method: ICalCalendarMethod.PUBLISH,
    name: facts.title,
  });
  calendar.x([{ key: 'X-WR-TIMEZONE', value: facts.timezone }]);
  calendar.createEvent({
    id: `${facts.bookingId}@${new URL(facts.siteUrl).hostname}`,
    sequence: facts.sequence,
    start: facts.start,
    end: facts.end,
    stamp: facts.start,
    summary: facts.title,
    description: facts.description,
    location: facts.location,
    url: facts.url,
    organizer: facts.organizer,
    attendees: [{ name: facts.attendee.name, email: facts.attendee.email }],
    status: facts.canceled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
  });
  return calendar.toString();
}

/** `20260302T100000Z`, the form Google's template link takes. */
function compactUtc(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** Google Calendar's "create event" template link, pre-filled. */
export function googleCalendarLink(facts: Pick<CalendarEventFacts, 'title' | 'start' | 'end' | 'location' | 'description' | 'timezone'>): string {
  const params = new URLSearchParams({
    action: 'TEMPLATE',
    text: facts.title,
    dates: `${compactUtc(facts.start)}/${compactUtc(facts.end)}`,
    details: facts.description,
    ctz: facts.timezone,
  });
  if (facts.location) params.set('location', facts.location);
  return `https://calendar.google.com/calendar/render?${params.toString()}`;
}

/** Outlook on the web's compose deep link, pre-filled. */
export function outlookCalendarLink(facts: Pick<CalendarEventFacts, 'title' | 'start' | 'end' | 'location' | 'description'>): string {
  const params = new URLSearchParams({
    path: '/calendar/action/compose',
    rru: 'addevent',
    subject: facts.title,
    startdt: facts.start.toISOString(),
    enddt: facts.end.toISOString(),
    body: facts.description,
  });
  if (facts.location) params.set('location', facts.location);
  return `https://outlook.live.com/calendar/0/deeplink/compose?${params.toString()}`;
}
