import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type MailServer, mailsTo, type MessageView, startMailServer } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const HOUR = 3_600_000;
const OFFSET_MIN = 60;
/** How long after a booking its reminder comes due. */
const DUE_AFTER_MS = 4_000;

/** The real clock, moved by `shift`: the app's time flows, and a test sets where it stands. */
const clock: Clock & { shift: number } = { shift: 0, now: () => new Date(Date.now() + clock.shift) };

/**
 * A meeting start on the hour and sets the app's clock so that a reminder `OFFSET_MIN` before that start is due
 * `DUE_AFTER_MS` from now (the reminder's time is on the minute; only the app's clock is moved).
 */
function meetingWithReminderDueSoon(hoursAhead: number): string {
  const start = Math.ceil((Date.now() + hoursAhead * HOUR) / HOUR) * HOUR;
  clock.shift = start - OFFSET_MIN * 60_000 - DUE_AFTER_MS - Date.now();
  return new Date(start).toISOString();
}

describe('reminders', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ clock, env: { SMTP_URL: mail.url } });
    host = await createUserWithToken(t.em(), { timezone: 'UTC', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const created = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Check-in', durationsMin: [30], reminders: [{ offsetMin: OFFSET_MIN, to: 'both' }] });
    expect(created.status).toBe(201);
    expect(created.body.reminders).toEqual([{ offsetMin: OFFSET_MIN, to: 'both' }]);
    eventTypeId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const book = async (start: string, email: string) => {
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start, durationMin: 30, invitee: { name: 'Ivy', email, timezone: 'Europe/Berlin' } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const reminders = async (bookingId: string): Promise<MessageView[]> => {
    const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(host.token));
    return (res.body.data as MessageView[]).filter((message) => message.kind === 'reminder');
  };
  const remindersTo = (address: string) => mailsTo(mail, address).filter((received) => received.parsed.subject?.startsWith('Reminder'));

  it('one due a few seconds after the booking arrives, to the invitee and the host', async () => {
    const start = meetingWithReminderDueSoon(3);
    const bookedAt = Date.now();
    const bookingId = await book(start, 'ivy.soon@example.test');
    const [planned] = await reminders(bookingId);
    expect(planned).toMatchObject({ status: 'scheduled', scheduledFor: new Date(Date.parse(start) - OFFSET_MIN * 60_000).toISOString() });

    const [received] = await eventually(() => {
      const got = remindersTo('ivy.soon@example.test');
      return got.length > 0 ? got : undefined;
    }, 15_000);
    expect(received!.receivedAt - bookedAt).toBeGreaterThanOrEqual(DUE_AFTER_MS - 1000);
    expect(received!.parsed.subject).toBe('Reminder: Check-in with Hana Host in 1 hour');
    expect(received!.parsed.text).toContain('(Europe/Berlin)');
    await eventually(() => (remindersTo(host.email).length > 0 ? true : undefined), 5_000);
    expect((await reminders(bookingId)).map((message) => message.status)).toEqual(['sent', 'sent']);
  });

  it('one of a canceled booking never arrives', async () => {
    const start = meetingWithReminderDueSoon(5);
    const bookingId = await book(start, 'ivy.canceled@example.test');
    expect((await t.http.delete(`/api/v2/bookings/${bookingId}`).set(...bearer(host.token))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, DUE_AFTER_MS + 2_000));
    expect(remindersTo('ivy.canceled@example.test')).toEqual([]);
    const dropped = await reminders(bookingId);
    expect(dropped.map((message) => [message.status, message.lastError])).toEqual([
      ['skipped', 'not sent: the booking was canceled'],
      ['skipped', 'not sent: the booking was canceled'],
    ]);
  });

  it('one of a moved booking arrives at the new time: the same message, moved', async () => {
    const newStart = meetingWithReminderDueSoon(7);
    const oldStart = new Date(Date.parse(newStart) + 2 * HOUR).toISOString();
    const bookingId = await book(oldStart, 'ivy.moved@example.test');
    const [before] = await reminders(bookingId);
    expect(before!.scheduledFor).toBe(new Date(Date.parse(oldStart) - OFFSET_MIN * 60_000).toISOString());
    const movedAt = Date.now();
    expect((await t.http.post(`/api/v2/bookings/${bookingId}/reschedule`).set(...bearer(host.token)).send({ start: newStart })).status).toBe(200);

    const [received] = await eventually(() => {
      const got = remindersTo('ivy.moved@example.test');
      return got.length > 0 ? got : undefined;
    }, 15_000);
    expect(received!.receivedAt - movedAt).toBeGreaterThanOrEqual(DUE_AFTER_MS - 1500);
    expect(received!.receivedAt - movedAt).toBeLessThan(2 * HOUR);
    const localNewStart = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(newStart));
    expect(received!.parsed.text).toContain(`${localNewStart}–`);
    const after = await reminders(bookingId);
    expect(after.find((message) => message.id === before!.id)).toMatchObject({
      status: 'sent',
      scheduledFor: new Date(Date.parse(newStart) - OFFSET_MIN * 60_000).toISOString(),
    });
    expect(received!.parsed.messageId).toBe(`<${before!.id}@localhost>`);
  });

  it('one whose time has passed when the booking is made is skipped', async () => {
    clock.shift = 0;
    // The next slot (on the 30-minute grid) at least 5 minutes ahead: less than the reminder's hour.
    const half = HOUR / 2;
    const start = new Date(Math.ceil((Date.now() + 5 * 60_000) / half) * half);
    const bookingId = await book(start.toISOString(), 'ivy.late@example.test');
    const late = await reminders(bookingId);
    expect(late.map((message) => [message.status, message.lastError])).toEqual([
      ['skipped', 'not sent: its time had already passed when the booking was made'],
      ['skipped', 'not sent: its time had already passed when the booking was made'],
    ]);
  });
});
