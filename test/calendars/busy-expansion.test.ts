/**
 * The busy intervals of feeds written the way Google, Outlook/Exchange and Apple write them (fixtures/), and the
 * rules of RFC 5545 one at a time. Host zone Europe/Berlin throughout, so floating and all-day times differ
 * from UTC; the window spans the European (25 Oct 2026) and American (1 Nov 2026) daylight-saving ends.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandBusy, InvalidCalendarError, type BusyInterval } from '../../src/modules/calendars/busy-expansion.ts';

const HOST = 'Europe/Berlin';
const WINDOW = { start: new Date('2026-10-26T00:00:00Z'), end: new Date('2026-11-09T00:00:00Z') };

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}

function readable(busy: BusyInterval[]): string[] {
  return busy.map((b) => `${b.start.toISOString()} ${b.end.toISOString()} ${b.uid}`);
}

function calendar(...events: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events, 'END:VCALENDAR', ''].join('\r\n');
}

function event(uid: string, ...lines: string[]): string {
  return ['BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', ...lines, 'END:VEVENT'].join('\r\n');
}

describe('feeds as the big providers write them', () => {
  it('Google: VTIMEZONE + TZID, EXDATE, a moved and a cancelled instance, transparent, all-day and UTC events', () => {
    expect(readable(expandBusy(fixture('google.ics'), WINDOW, HOST))).toEqual([
      '2026-10-26T13:00:00.000Z 2026-10-26T14:00:00.000Z weekly-standup@google.com',
      // The all-day event is busy for the host's local day (Berlin midnight to midnight).
      '2026-10-29T23:00:00.000Z 2026-10-30T23:00:00.000Z offsite@google.com',
      // 2 Nov's instance moved to 14:00, after New York left daylight-saving time.
      '2026-11-02T19:00:00.000Z 2026-11-02T20:00:00.000Z weekly-standup@google.com',
      '2026-11-05T12:00:00.000Z 2026-11-05T12:30:00.000Z call@google.com',
    ]);
  });

  it('Outlook/Exchange: Windows zone names with and without a VTIMEZONE, BUSYSTATUS FREE, BYSETPOS, COUNT with INTERVAL', () => {
    const review = '040000008200E00074C5B7101A82E00800000000A1B2C3D4E5F6';
    const days = ['2026-10-26', '2026-10-28', '2026-10-30', '2026-11-01', '2026-11-03', '2026-11-05', '2026-11-07'];
    expect(readable(expandBusy(fixture('outlook.ics'), WINDOW, HOST))).toEqual(
      [
        ...days.map((day) => `${day}T09:00:00.000Z ${day}T10:00:00.000Z ${review}`),
        '2026-11-02T14:00:00.000Z 2026-11-02T15:00:00.000Z 040000008200E00074C5B7101A82E00800000000AAAABBBBCCCC',
        '2026-11-02T16:00:00.000Z 2026-11-02T17:00:00.000Z 040000008200E00074C5B7101A82E0080000000012345678ABCD',
      ].sort(),
    );
  });

  it('Apple: floating times in the host zone, multi-day and dateless all-day events, RDATE, zero-length events', () => {
    expect(readable(expandBusy(fixture('apple.ics'), WINDOW, HOST))).toEqual([
      '2026-10-26T17:00:00.000Z 2026-10-26T18:00:00.000Z 5A6B7C8D-0000-4000-8000-000000000003',
      '2026-10-27T08:00:00.000Z 2026-10-27T08:30:00.000Z 9C1F8A52-3E4B-4F7A-9D2E-1A2B3C4D5E6F',
      '2026-10-29T08:00:00.000Z 2026-10-29T08:30:00.000Z 9C1F8A52-3E4B-4F7A-9D2E-1A2B3C4D5E6F',
      '2026-10-31T23:00:00.000Z 2026-11-01T23:00:00.000Z 5A6B7C8D-0000-4000-8000-000000000001',
      '2026-11-03T08:00:00.000Z 2026-11-03T08:30:00.000Z 9C1F8A52-3E4B-4F7A-9D2E-1A2B3C4D5E6F',
      '2026-11-04T17:00:00.000Z 2026-11-04T18:00:00.000Z 5A6B7C8D-0000-4000-8000-000000000003',
      '2026-11-05T08:00:00.000Z 2026-11-05T08:30:00.000Z 9C1F8A52-3E4B-4F7A-9D2E-1A2B3C4D5E6F',
      '2026-11-05T23:00:00.000Z 2026-11-08T23:00:00.000Z 2D7E4C11-8B9A-4C3D-A1B2-C3D4E5F60718',
    ]);
  });

  it('never carries a title or any other detail of the event', () => {
    for (const interval of expandBusy(fixture('google.ics'), WINDOW, HOST)) {
      expect(Object.keys(interval).sort()).toEqual(['end', 'start', 'uid']);
    }
  });

  it('reads several calendar objects in one text, as a CalDAV REPORT returns them', () => {
    const text = fixture('apple.ics').trimEnd() + '\r\n' + fixture('google.ics');
    expect(expandBusy(text, WINDOW, HOST)).toHaveLength(12);
  });
});

describe('RFC 5545 rules', () => {
  const window = { start: new Date('2026-01-01T00:00:00Z'), end: new Date('2027-01-01T00:00:00Z') };

  it('reads a wall-clock time in a spring-forward gap with the offset before the gap', () => {
    const ics = calendar(event('gap', 'DTSTART;TZID=America/New_York:20260308T023000', 'DURATION:PT1H'));
    expect(readable(expandBusy(ics, window, HOST))).toEqual(['2026-03-08T07:30:00.000Z 2026-03-08T08:30:00.000Z gap']);
  });

  it('reads a repeated (fall-back) wall-clock time as the earlier instant', () => {
    const ics = calendar(event('overlap', 'DTSTART;TZID=Europe/Berlin:20261025T023000', 'DTEND;TZID=Europe/Berlin:20261025T024500'));
    expect(readable(expandBusy(ics, window, HOST))).toEqual(['2026-10-25T00:30:00.000Z 2026-10-25T00:45:00.000Z overlap']);
  });

  it('keeps DTEND as an exact length for every instance, and DURATION days on the wall clock', () => {
    const overnight = event(
      'overnight',
      'DTSTART;TZID=Europe/Berlin:20261024T220000',
      'DTEND;TZID=Europe/Berlin:20261025T060000',
      'RRULE:FREQ=DAILY;COUNT=2',
    );
    const twoDays = event('two-days', 'DTSTART;TZID=Europe/Berlin:20261024T120000', 'DURATION:P1DT1H');
    expect(readable(expandBusy(calendar(overnight, twoDays), window, HOST))).toEqual([
      '2026-10-24T10:00:00.000Z 2026-10-25T12:00:00.000Z two-days',
      // 22:00 to 06:00 across the change is 9 hours; the next night keeps the 9 hours.
      '2026-10-24T20:00:00.000Z 2026-10-25T05:00:00.000Z overnight',
      '2026-10-25T21:00:00.000Z 2026-10-26T06:00:00.000Z overnight',
    ]);
  });

  it('expands BYMONTHDAY, negative BYSETPOS, UNTIL and WKST as RFC 5545 defines them', () => {
    const lastWorkday = event(
      'last-workday',
      'DTSTART;TZID=Asia/Kolkata:20260130T170000',
      'DURATION:PT1H',
      'RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;UNTIL=20260430T235959Z',
    );
    const fifteenth = event('fifteenth', 'DTSTART:20260115T090000Z', 'DURATION:PT15M', 'RRULE:FREQ=MONTHLY;BYMONTHDAY=15,-1;COUNT=3');
    // RFC 5545's own example: every other week on Tuesday and Sunday, from Tuesday 5 Aug 1997, depends on WKST.
    const weekStartsMonday = event('wkst-mo', 'DTSTART:19970805T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=MO');
    const weekStartsSunday = event('wkst-su', 'DTSTART:19970805T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=4;BYDAY=TU,SU;WKST=SU');
    const ics = calendar(lastWorkday, fifteenth, weekStartsMonday, weekStartsSunday);
    expect(readable(expandBusy(ics, window, HOST))).toEqual([
      '2026-01-15T09:00:00.000Z 2026-01-15T09:15:00.000Z fifteenth',
      '2026-01-30T11:30:00.000Z 2026-01-30T12:30:00.000Z last-workday',
      '2026-01-31T09:00:00.000Z 2026-01-31T09:15:00.000Z fifteenth',
      '2026-02-15T09:00:00.000Z 2026-02-15T09:15:00.000Z fifteenth',
      '2026-02-27T11:30:00.000Z 2026-02-27T12:30:00.000Z last-workday',
      '2026-03-31T11:30:00.000Z 2026-03-31T12:30:00.000Z last-workday',
      '2026-04-30T11:30:00.000Z 2026-04-30T12:30:00.000Z last-workday',
    ]);
    const in1997 = { start: new Date('1997-08-01T00:00:00Z'), end: new Date('1997-09-01T00:00:00Z') };
    const daysOf = (uid: string) =>
      expandBusy(ics, in1997, HOST)
        .filter((b) => b.uid === uid)
        .map((b) => b.start.toISOString().slice(0, 10));
    expect(daysOf('wkst-mo')).toEqual(['1997-08-05', '1997-08-10', '1997-08-19', '1997-08-24']);
    expect(daysOf('wkst-su')).toEqual(['1997-08-05', '1997-08-17', '1997-08-19', '1997-08-31']);
  });

  it('applies every EXDATE, also one after EXDATEs that name no instance, and a DATE one to a date-time series', () => {
    // Every other week on Tuesday and Thursday from Tuesday 19 May 2026: 26 May and 27 May are off-weeks.
    const fortnightly = event(
      'fortnightly',
      'DTSTART;TZID=Europe/Berlin:20260519T090000',
      'DTEND;TZID=Europe/Berlin:20260519T094500',
      'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH',
      'EXDATE;TZID=Europe/Berlin:20260526T090000,20260527T090000,20260602T090000',
      'EXDATE;VALUE=DATE:20260604',
    );
    const may = { start: new Date('2026-05-18T00:00:00Z'), end: new Date('2026-06-20T00:00:00Z') };
    expect(readable(expandBusy(calendar(fortnightly), may, HOST))).toEqual([
      '2026-05-19T07:00:00.000Z 2026-05-19T07:45:00.000Z fortnightly',
      '2026-05-21T07:00:00.000Z 2026-05-21T07:45:00.000Z fortnightly',
      '2026-06-16T07:00:00.000Z 2026-06-16T07:45:00.000Z fortnightly',
      '2026-06-18T07:00:00.000Z 2026-06-18T07:45:00.000Z fortnightly',
    ]);
  });

  it('expands a series that started years before the window exactly where the window is', () => {
    const series = [
      event('daily', 'DTSTART;TZID=America/New_York:20150302T083000', 'DURATION:PT30M', 'RRULE:FREQ=DAILY;INTERVAL=3'),
      event('weekly', 'DTSTART;TZID=Europe/Berlin:20140106T100000', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,WE;WKST=SU'),
      event('monthly', 'DTSTART;TZID=Europe/Berlin:20120210T100000', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;INTERVAL=4;BYDAY=-1FR'),
      event('until', 'DTSTART:20100104T120000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;UNTIL=20261102T120000Z', 'EXDATE:20261026T120000Z'),
    ];
    const starts = (uid: string) =>
      expandBusy(calendar(...series), WINDOW, HOST)
        .filter((b) => b.uid === uid)
        .map((b) => b.start.toISOString().slice(0, 16));
    // 27 Oct 2026 is 4,257 = 3 × 1,419 days after 2 March 2015; New York is on EDT until 1 November.
    expect(starts('daily')).toEqual(['2026-10-27T12:30', '2026-10-30T12:30', '2026-11-02T13:30', '2026-11-05T13:30', '2026-11-08T13:30']);
    // Weeks from Sunday 5 Jan 2014: the week of 1 Nov 2026 is week 669 = 3 × 223, the one before is not.
    expect(starts('weekly')).toEqual(['2026-11-02T09:00', '2026-11-04T09:00']);
    // October 2026 is month 176 = 4 × 44 after February 2012; its last Friday is the 30th.
    expect(starts('monthly')).toEqual(['2026-10-30T09:00']);
    expect(starts('until')).toEqual(['2026-11-02T12:00']);
  });

  it('counts an instance moved into the window from outside it, and not one moved out of it', () => {
    const master = event('moved', 'DTSTART:20260105T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;COUNT=10');
    const movedIn = event('moved', 'RECURRENCE-ID:20260309T090000Z', 'DTSTART:20260130T090000Z', 'DURATION:PT1H');
    const movedOut = event('moved', 'RECURRENCE-ID:20260119T090000Z', 'DTSTART:20260220T090000Z', 'DURATION:PT1H');
    const january = { start: new Date('2026-01-10T00:00:00Z'), end: new Date('2026-02-01T00:00:00Z') };
    expect(readable(expandBusy(calendar(master, movedIn, movedOut), january, HOST))).toEqual([
      '2026-01-12T09:00:00.000Z 2026-01-12T10:00:00.000Z moved',
      '2026-01-26T09:00:00.000Z 2026-01-26T10:00:00.000Z moved',
      '2026-01-30T09:00:00.000Z 2026-01-30T10:00:00.000Z moved',
    ]);
  });

  it('matches an all-day series override and EXDATE by date, and a cancelled series is not busy at all', () => {
    const master = event('days', 'DTSTART;VALUE=DATE:20260105', 'RRULE:FREQ=DAILY;COUNT=4', 'EXDATE;VALUE=DATE:20260106');
    const cancelledDay = event('days', 'RECURRENCE-ID;VALUE=DATE:20260107', 'DTSTART;VALUE=DATE:20260107', 'STATUS:CANCELLED');
    const cancelledSeries = event('gone', 'DTSTART:20260105T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY', 'STATUS:CANCELLED');
    const ics = calendar(master, cancelledDay, cancelledSeries);
    expect(readable(expandBusy(ics, window, 'UTC'))).toEqual([
      '2026-01-05T00:00:00.000Z 2026-01-06T00:00:00.000Z days',
      '2026-01-08T00:00:00.000Z 2026-01-09T00:00:00.000Z days',
    ]);
  });

  it('reads a custom zone from its VTIMEZONE, and an unknown TZID without one as the host zone', () => {
    const custom = [
      'BEGIN:VTIMEZONE',
      'TZID:Customized Time Zone',
      'BEGIN:STANDARD',
      'DTSTART:16010101T000000',
      'TZOFFSETFROM:+0300',
      'TZOFFSETTO:+0300',
      'END:STANDARD',
      'END:VTIMEZONE',
    ].join('\r\n');
    const ics = calendar(
      custom,
      event('custom', 'DTSTART;TZID=Customized Time Zone:20260601T120000', 'DURATION:PT1H'),
      event('unknown', 'DTSTART;TZID=Nowhere Standard Time:20260601T120000', 'DURATION:PT1H'),
    );
    expect(readable(expandBusy(ics, window, HOST))).toEqual([
      '2026-06-01T09:00:00.000Z 2026-06-01T10:00:00.000Z custom',
      '2026-06-01T10:00:00.000Z 2026-06-01T11:00:00.000Z unknown',
    ]);
  });

  it('reads RDATE periods with their own end, counts an RDATE repeating an RRULE instance once, and EXDATE removes DTSTART from an RDATE set', () => {
    const periods = event(
      'periods',
      'DTSTART:20260105T100000Z',
      'DURATION:PT1H',
      'RDATE;VALUE=PERIOD:20260107T100000Z/20260107T130000Z,20260108T100000Z/PT30M',
      'RDATE;VALUE=PERIOD:20260109T100000Z/PT2H',
      'EXDATE:20260109T100000Z',
    );
    const rdates = event('rdates', 'DTSTART:20260601T100000Z', 'DURATION:PT1H', 'RDATE:20260603T100000Z', 'EXDATE:20260601T100000Z');
    const repeated = event('repeated', 'DTSTART:20260701T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20260702T100000Z');
    expect(readable(expandBusy(calendar(periods, rdates, repeated), window, HOST))).toEqual([
      '2026-01-05T10:00:00.000Z 2026-01-05T11:00:00.000Z periods',
      '2026-01-07T10:00:00.000Z 2026-01-07T13:00:00.000Z periods',
      '2026-01-08T10:00:00.000Z 2026-01-08T10:30:00.000Z periods',
      '2026-06-03T10:00:00.000Z 2026-06-03T11:00:00.000Z rdates',
      '2026-07-01T10:00:00.000Z 2026-07-01T11:00:00.000Z repeated',
      '2026-07-02T10:00:00.000Z 2026-07-02T11:00:00.000Z repeated',
    ]);
  });

  it('matches EXDATE and RECURRENCE-ID to instances by instant, whatever zone each is written in', () => {
    const master = event('mixed', 'DTSTART:20260601T100000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=4', 'EXDATE;TZID=W. Europe Standard Time:20260602T120000');
    const moved = event('mixed', 'RECURRENCE-ID;TZID=America/New_York:20260603T060000', 'DTSTART:20260603T150000Z', 'DURATION:PT1H');
    expect(readable(expandBusy(calendar(master, moved), window, HOST))).toEqual([
      '2026-06-01T10:00:00.000Z 2026-06-01T11:00:00.000Z mixed',
      '2026-06-03T15:00:00.000Z 2026-06-03T16:00:00.000Z mixed',
      '2026-06-04T10:00:00.000Z 2026-06-04T11:00:00.000Z mixed',
    ]);
  });

  it('reads quoted and path-like TZIDs, and keeps events without a UID apart', () => {
    const ics = calendar(
      event('quoted', 'DTSTART;TZID="Pacific Standard Time":20260601T100000', 'DURATION:PT1H'),
      event('path', 'DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20260601T100000', 'DURATION:PT1H'),
      ['BEGIN:VEVENT', 'DTSTART:20260602T100000Z', 'DURATION:PT1H', 'END:VEVENT'].join('\r\n'),
      ['BEGIN:VEVENT', 'DTSTART:20260603T100000Z', 'DURATION:PT1H', 'END:VEVENT'].join('\r\n'),
    );
    expect(readable(expandBusy(ics, window, HOST))).toEqual([
      '2026-06-01T14:00:00.000Z 2026-06-01T15:00:00.000Z path',
      '2026-06-01T17:00:00.000Z 2026-06-01T18:00:00.000Z quoted',
      '2026-06-02T10:00:00.000Z 2026-06-02T11:00:00.000Z ',
      '2026-06-03T10:00:00.000Z 2026-06-03T11:00:00.000Z ',
    ]);
  });

  it('counts an instance overlapping either edge of the window, whole, and none ending at its start', () => {
    const ics = calendar(event('edges', 'DTSTART:20260101T080000Z', 'DURATION:PT2H', 'RRULE:FREQ=HOURLY;INTERVAL=2'));
    const twoHours = { start: new Date('2026-03-01T09:00:00Z'), end: new Date('2026-03-01T12:00:00Z') };
    expect(readable(expandBusy(ics, twoHours, HOST))).toEqual([
      '2026-03-01T08:00:00.000Z 2026-03-01T10:00:00.000Z edges',
      '2026-03-01T10:00:00.000Z 2026-03-01T12:00:00.000Z edges',
    ]);
  });
});

describe('input that is not a readable calendar', () => {
  it('refuses a document that is not iCalendar, such as a login page', () => {
    expect(() => expandBusy('<!doctype html><title>Sign in</title>', WINDOW, HOST)).toThrow(InvalidCalendarError);
    expect(() => expandBusy('', WINDOW, HOST)).toThrow(/Not an iCalendar document/);
  });

  it('refuses a malformed document', () => {
    expect(() => expandBusy('BEGIN:VCALENDAR\r\nthis is no content line\r\nEND:VCALENDAR\r\n', WINDOW, HOST)).toThrow(
      /Malformed iCalendar/,
    );
  });

  it('refuses a document cut off in the middle, as a capped download is', () => {
    const cut = calendar(event('whole', 'DTSTART:20261027T100000Z', 'DURATION:PT1H')).replace('END:VCALENDAR', 'BEGIN:VEVENT\r\nUID:cut\r\nDTST');
    expect(() => expandBusy(cut, WINDOW, HOST)).toThrow(InvalidCalendarError);
  });

  it('names an event without a start, and what is wrong with it', () => {
    const ics = calendar(event('no-start', 'SUMMARY:Private matter', 'DURATION:PT1H'));
    expect(() => expandBusy(ics, WINDOW, HOST)).toThrow('Event "no-start" cannot be read: it has no valid DTSTART');
  });

  it('names the event that cannot be read, and not its title', () => {
    const ics = calendar(event('broken-1', 'SUMMARY:Private matter', 'DTSTART:2026-13-45'));
    let thrown: unknown;
    try {
      expandBusy(ics, WINDOW, HOST);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidCalendarError);
    expect((thrown as Error).message).toContain('broken-1');
    expect((thrown as Error).message).not.toContain('Private');
  });

  it('refuses a series that repeats without end at a pace no calendar has', () => {
    const ics = calendar(event('flood', 'DTSTART:20200101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY'));
    expect(() => expandBusy(ics, WINDOW, HOST)).toThrow(/repeats more than/);
  });
});
