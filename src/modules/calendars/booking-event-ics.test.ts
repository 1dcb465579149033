import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { bookingEventIcs, bookingUidSuffix, eventUid, hostBookingLink, withHostEdits } from './booking-event-ics.ts';

const facts = {
  uid: 'b-1@example.com',
  sequence: 2,
  start: new Date('2026-12-01T10:00:00Z'),
  end: new Date('2026-12-01T10:30:00Z'),
  stamp: new Date('2026-11-27T08:00:00Z'),
  eventTypeName: 'Intro call',
  invitee: { name: 'Ivy; Invitee', email: 'ivy@example.test' },
  host: { name: 'Hanna Host', email: 'hanna@example.test' },
  location: { kind: 'in_person', value: 'Room 1, Floor 2' },
  notes: 'About the plan',
  link: 'https://app.example.com/app/bookings?booking=b-1',
};

describe('the calendar object a booking is written as', () => {
  it('is one VEVENT without METHOD: UID, SEQUENCE, UTC times, the invitee attending without server scheduling, location and link', () => {
    const text = bookingEventIcs(facts);
    const calendar = new ICAL.Component(ICAL.parse(text));
    expect(calendar.getFirstPropertyValue('method')).toBeNull();
    const events = calendar.getAllSubcomponents('vevent');
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.getFirstPropertyValue('uid')).toBe('b-1@example.com');
    expect(event.getFirstPropertyValue('sequence')).toBe(2);
    expect((event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect((event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString()).toBe('2026-12-01T10:30:00.000Z');
    expect(event.getFirstPropertyValue('summary')).toBe('Intro call with Ivy; Invitee');
    expect(event.getFirstPropertyValue('location')).toBe('Room 1, Floor 2');
    expect(event.getFirstPropertyValue('url')).toBe(facts.link);
    expect(event.getFirstPropertyValue('description')).toContain(facts.link);
    expect(event.getFirstPropertyValue('description')).toContain('About the plan');
    const attendee = event.getFirstProperty('attendee')!;
    expect(String(attendee.getFirstValue()).toLowerCase()).toBe('mailto:ivy@example.test');
    expect(attendee.getParameter('schedule-agent')).toBe('CLIENT');
    expect(attendee.getParameter('partstat')).toBe('ACCEPTED');
    expect(String(event.getFirstPropertyValue('organizer')).toLowerCase()).toBe('mailto:hanna@example.test');
  });

  it('an online meeting: LOCATION and URL are its link, the booking page stays in the description', () => {
    const link = 'https://meet.example.com/hanna';
    const event = new ICAL.Component(ICAL.parse(bookingEventIcs({ ...facts, location: { kind: 'link', value: link } }))).getFirstSubcomponent('vevent')!;
    expect(event.getFirstPropertyValue('location')).toBe(link);
    expect(event.getFirstPropertyValue('url')).toBe(link);
    expect(event.getFirstPropertyValue('description')).toContain(facts.link);
  });

  it('a phone call says who calls: the host calls the number the invitee gave', () => {
    const location = { kind: 'invitee_phone', value: '+49 151 2345678' };
    const event = new ICAL.Component(ICAL.parse(bookingEventIcs({ ...facts, location }))).getFirstSubcomponent('vevent')!;
    expect(event.getFirstPropertyValue('location')).toBe('Phone: +49 151 2345678');
    expect(event.getFirstPropertyValue('description')).toContain('Where: Call Ivy; Invitee at +49 151 2345678');
    expect(event.getFirstPropertyValue('url')).toBe(facts.link);
  });

  it("links to the host's bookings page and takes the site's host name for the UID", () => {
    expect(hostBookingLink('https://app.example.com/', 'b 1')).toBe('https://app.example.com/app/bookings?booking=b%201');
    expect(bookingUidSuffix('https://app.example.com:8443/base')).toBe('@app.example.com');
  });

  it("a rewrite over the host's edited copy keeps what the host added and takes the booking's time, text and people", () => {
    const edited = bookingEventIcs(facts)
      .replace(/SUMMARY:[^\r]*\r\n/, 'CATEGORIES:Clients\r\nX-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC\r\nRRULE:FREQ=WEEKLY\r\nSUMMARY:Renamed by the host\r\n')
      .replace('END:VEVENT', 'BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Soon\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT')
      .replace('BEGIN:VEVENT', 'BEGIN:VTIMEZONE\r\nTZID:Europe/Vienna\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT');
    const moved = bookingEventIcs({ ...facts, sequence: 3, start: new Date('2026-12-02T14:00:00Z'), end: new Date('2026-12-02T14:30:00Z') });
    const calendar = new ICAL.Component(ICAL.parse(withHostEdits(moved, edited)));
    expect(calendar.getAllSubcomponents('vevent')).toHaveLength(1);
    expect(calendar.getFirstSubcomponent('vtimezone')?.getFirstPropertyValue('tzid')).toBe('Europe/Vienna');
    const event = calendar.getFirstSubcomponent('vevent')!;
    expect((event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe('2026-12-02T14:00:00.000Z');
    expect(event.getFirstPropertyValue('sequence')).toBe(3);
    expect(event.getAllProperties('summary').map((property) => property.getFirstValue())).toEqual(['Intro call with Ivy; Invitee']);
    expect(event.getAllProperties('attendee')).toHaveLength(1);
    expect(event.getFirstProperty('rrule')).toBeNull();
    expect(event.getFirstPropertyValue('categories')).toBe('Clients');
    expect(event.getFirstPropertyValue('x-apple-travel-advisory-behavior')).toBe('AUTOMATIC');
    expect(event.getAllSubcomponents('valarm').map((alarm) => alarm.getFirstPropertyValue('trigger')?.toString())).toEqual(['-PT15M']);
  });

  it('a copy that is not iCalendar leaves the booking’s event as it is; its UID is read from the first event', () => {
    const ours = bookingEventIcs(facts);
    expect(withHostEdits(ours, 'not a calendar')).toBe(ours);
    expect(eventUid(ours)).toBe('b-1@example.com');
    expect(eventUid('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n')).toBeNull();
    expect(eventUid('<html>')).toBeNull();
  });
});
