/**
 * A booking series announces itself once, through a real SMTP server: one confirmation to the invitee, each guest
 * and the host for the whole series, the invitation a VEVENT per occurrence with that occurrence's UID, the
 * invitee's copy each occurrence's own manage link; each occurrence keeps its reminders and a skipped confirmation
 * holding its link, and a later change of one occurrence updates that event alone, with that occurrence's link.
 */
import ical, { type VEvent } from 'node-ical';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, invitationOf, type MailServer, mailsTo, type MessageView, startMailServer } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const WEEK = 7 * 86_400_000;
const HALF_HOUR = 30 * 60_000;

function startIn(days: number, hour: number): string {
  const day = new Date(Date.now() + days * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
}

/** Every VEVENT of a mail's invitation (node-ical), earliest first. */
function eventsOf(raw: string): VEvent[] {
  const parsed = ical.sync.parseICS(raw);
  return (Object.values(parsed).filter((component) => component?.type === 'VEVENT') as VEvent[]).sort((a, b) => a.start.getTime() - b.start.getTime());
}

describe('a booking series by e-mail', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let eventTypeId: string;
  let quietTypeId: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ env: { SMTP_URL: mail.url, TRUST_PROXY: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const created = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Coaching', durationsMin: [30], reminders: [{ offsetMin: 60, to: 'both' }], recurrence: { maxCount: 6 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    eventTypeId = created.body.id;
    const quiet = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Mentoring', durationsMin: [30], reminders: [], recurrence: { maxCount: 6 } });
    expect(quiet.status, JSON.stringify(quiet.body)).toBe(201);
    quietTypeId = quiet.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  const messagesOf = async (bookingId: string): Promise<MessageView[]> => {
    const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(host.token));
    expect(res.status).toBe(200);
    return res.body.data;
  };

  it('one confirmation per person for 3 occurrences, a VEVENT each; reminders per occurrence; moving one updates its event', async () => {
    const invitee = { name: 'Inês Carvalho', email: 'ines.series@example.test', timezone: 'Europe/Lisbon' };
    const guest = 'rui.series@example.test';
    const startAt = startIn(5, 10);
    const res = await t.http
      .post('/trpc/publicBooking.bookSeries')
      .set('X-Forwarded-For', '203.0.113.31')
      .send(superjson.serialize({ eventTypeId, startAt, durationMin: 30, invitee, guests: [guest], recurrence: { frequency: 'weekly', interval: 1, count: 3 } }) as object);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const series = res.body.result.data.json as { bookings: { id: string; startAt: string; endAt: string; links: { manage: string } }[] };
    const [first, second] = series.bookings;
    expect(series.bookings.map((booking) => booking.startAt)).toEqual([0, 1, 2].map((week) => new Date(Date.parse(startAt) + week * WEEK).toISOString()));

    // The series' confirmations are the first occurrence's messages (its own skipped confirmation, which holds its
    // link, is not listed beside them); every occurrence has its reminders, each other one a skipped confirmation
    // to the invitee that says why.
    const confirmations = (await messagesOf(first!.id)).filter((message) => message.kind === 'confirmation');
    expect(confirmations.map((message) => message.audience)).toEqual(['invitee', 'guest', 'host']);
    for (const booking of series.bookings) {
      const messages = await messagesOf(booking.id);
      const reminders = messages.filter((message) => message.kind === 'reminder');
      expect(reminders.map((message) => [message.audience, message.status, message.scheduledFor]).sort()).toEqual(
        ['guest', 'host', 'invitee'].map((audience) => [audience, 'scheduled', new Date(Date.parse(booking.startAt) - 60 * 60_000).toISOString()]),
      );
      if (booking === first) continue;
      const own = messages.filter((message) => message.kind !== 'reminder');
      expect(own.map((message) => [message.kind, message.audience, message.status, message.lastError, message.attempts])).toEqual([
        ['confirmation', 'invitee', 'skipped', "not sent: announced in its series' confirmation", 0],
      ]);
    }

    // Exactly one mail each, once every confirmation is sent (and a moment more for any straggler).
    await eventually(async () => ((await messagesOf(first!.id)).filter((m) => m.kind === 'confirmation' && m.status === 'sent').length === 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(mailsTo(mail, invitee.email)).toHaveLength(1);
    expect(mailsTo(mail, guest)).toHaveLength(1);
    expect(mailsTo(mail, host.email)).toHaveLength(1);

    const [confirmation] = mailsTo(mail, invitee.email);
    const text = confirmation!.parsed.text!;
    expect(text).toContain('Every week, 3 times');
    for (const booking of series.bookings) {
      const day = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Lisbon', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(booking.startAt));
      expect(text).toContain(`${day}, 10:00–10:30 (Europe/Lisbon)`);
    }
    for (const booking of series.bookings) expect(text).toContain(booking.links.manage);

    const invitation = invitationOf(confirmation!);
    expect(invitation.method).toBe('REQUEST');
    const events = eventsOf(invitation.raw);
    expect(events.map((event) => event.uid)).toEqual(series.bookings.map((booking) => `${booking.id}@localhost`));
    expect(events.map((event) => event.start.toISOString())).toEqual(series.bookings.map((booking) => booking.startAt));
    expect(events.map((event) => event.end!.toISOString())).toEqual(series.bookings.map((booking) => new Date(Date.parse(booking.startAt) + HALF_HOUR).toISOString()));
    expect(events.map((event) => Number(event.sequence))).toEqual([0, 0, 0]);
    expect(eventsOf(invitationOf(mailsTo(mail, guest)[0]!).raw).map((event) => event.uid)).toEqual(events.map((event) => event.uid));
    expect(mailsTo(mail, guest)[0]!.parsed.text).not.toContain('/book/manage/');
    const hostNote = mailsTo(mail, host.email)[0]!;
    expect(hostNote.parsed.subject).toBe('New booking series: Inês Carvalho, Coaching (3 meetings)');
    expect(hostNote.parsed.text).toContain('(America/New_York)');
    expect(hostNote.parsed.attachments).toEqual([]);

    // Moving the second occurrence: its own update, the same UID as its VEVENT, SEQUENCE + 1, the new time.
    const moved = new Date(Date.parse(second!.startAt) + 86_400_000 + 4 * 3_600_000).toISOString();
    const rescheduled = await t.http.post(`/api/v2/bookings/${second!.id}/reschedule`).set(...bearer(host.token)).send({ start: moved });
    expect(rescheduled.status, JSON.stringify(rescheduled.body)).toBe(200);
    await eventually(() => (mailsTo(mail, invitee.email).length === 2 && mailsTo(mail, guest).length === 2 && mailsTo(mail, host.email).length === 2 ? true : undefined));
    const update = invitationOf(mailsTo(mail, invitee.email)[1]!);
    expect(update.method).toBe('REQUEST');
    expect(eventsOf(update.raw)).toHaveLength(1);
    expect(update.event.uid).toBe(events[1]!.uid);
    expect(Number(update.event.sequence)).toBe(1);
    expect(update.event.start.toISOString()).toBe(moved);
    // The occurrence's reminders moved with it; the others' stayed.
    const secondReminders = (await messagesOf(second!.id)).filter((message) => message.kind === 'reminder');
    expect(secondReminders.map((message) => message.scheduledFor)).toEqual(Array(3).fill(new Date(Date.parse(moved) - 60 * 60_000).toISOString()));
  });
  it('a series without reminders: each meeting its own manage link; a later update of occurrence 3 carries its link', async () => {
    const invitee = { name: 'Inês Quiet', email: 'ines.quiet@example.test', timezone: 'Europe/Lisbon' };
    const startAt = startIn(6, 11);
    const res = await t.http
      .post('/trpc/publicBooking.bookSeries')
      .set('X-Forwarded-For', '203.0.113.32')
      .send(superjson.serialize({ eventTypeId: quietTypeId, startAt, durationMin: 30, invitee, recurrence: { frequency: 'weekly', interval: 1, count: 3 } }) as object);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const series = res.body.result.data.json as { bookings: { id: string; startAt: string; links: { manage: string } }[] };
    const third = series.bookings[2]!;

    await eventually(() => (mailsTo(mail, invitee.email).length === 1 ? true : undefined));
    const confirmation = mailsTo(mail, invitee.email)[0]!;
    const text = confirmation.parsed.text!;
    const html = String(confirmation.parsed.html);
    const links = [...text.matchAll(/Meeting (\d): .* — reschedule or cancel: (\S+)/g)].map((match) => [Number(match[1]), match[2]!] as const);
    expect(links.map(([meeting]) => meeting)).toEqual([1, 2, 3]);
    expect(new Set(links.map(([, link]) => link)).size).toBe(3);
    for (const [meeting, link] of links) {
      expect(html).toContain(`href="${link}"`);
      // Each link opens its own occurrence.
      const token = link.split('/').at(-1)!;
      const managed = await t.http
        .get('/trpc/publicBooking.managed')
        .set('X-Forwarded-For', '203.0.113.32')
        .query({ input: JSON.stringify(superjson.serialize({ token })) });
      expect(managed.status).toBe(200);
      expect((managed.body.result.data.json as { booking: { id: string } }).booking.id).toBe(series.bookings[meeting - 1]!.id);
      expect(link).toBe(series.bookings[meeting - 1]!.links.manage);
    }

    // The dashboard's copy masks every occurrence's link.
    const sent = (await messagesOf(series.bookings[0]!.id)).find((m) => m.kind === 'confirmation' && m.status !== 'skipped')!;
    const kept = await t.http.get(`/api/v2/bookings/${series.bookings[0]!.id}/messages/${sent.id}`).set(...bearer(host.token));
    expect(kept.status).toBe(200);
    for (const booking of series.bookings) expect(JSON.stringify(kept.body)).not.toContain(booking.links.manage.split('/').at(-1)!);
    expect(kept.body.text.match(/reschedule or cancel: \S+\/book\/manage\/bkm_…/g)).toHaveLength(3);

    // Occurrence 3 has no reminder: its one row is the skipped confirmation, never sent.
    expect((await messagesOf(third.id)).map((m) => [m.kind, m.audience, m.status, m.lastError, m.sentAt])).toEqual([
      ['confirmation', 'invitee', 'skipped', "not sent: announced in its series' confirmation", null],
    ]);

    // The host moves occurrence 3: the invitee's update carries occurrence 3's own link (inherited from that row).
    const moved = new Date(Date.parse(third.startAt) + 2 * 3_600_000).toISOString();
    const rescheduled = await t.http.post(`/api/v2/bookings/${third.id}/reschedule`).set(...bearer(host.token)).send({ start: moved });
    expect(rescheduled.status, JSON.stringify(rescheduled.body)).toBe(200);
    await eventually(() => (mailsTo(mail, invitee.email).length === 2 ? true : undefined));
    const update = mailsTo(mail, invitee.email)[1]!;
    expect(update.parsed.text).toContain(third.links.manage);
    for (const other of series.bookings.slice(0, 2)) expect(update.parsed.text).not.toContain(other.links.manage);
    const description = String(invitationOf(update).event.description);
    expect(description).toContain(`To cancel or reschedule: ${third.links.manage}`);
  });
});
