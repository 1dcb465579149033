import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, invitationOf, type MailServer, mailsTo, type MessageView, publicTrpc, startMailServer } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const HOUR = 3_600_000;

/** A start on the hour, `days` days ahead (distinct per test). */
function startIn(days: number, hour = 10): string {
  const day = new Date(Date.now() + days * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
}

const calendarParts = (mail: { parsed: { attachments: { contentType: string }[] } }) =>
  mail.parsed.attachments.filter((attachment) => attachment.contentType.startsWith('text/calendar'));

/** The real clock, moved by `shift` (the pending bookings' expiry runs by the app's clock). */
const clock: Clock & { shift: number } = { shift: 0, now: () => new Date(Date.now() + clock.shift) };

/**
 * Bookings that wait for the host's confirmation, through a real SMTP server: a request first (no invitation yet),
 * then the confirmation with the invitation and the reminders, or a decline; a moved or canceled request never
 * carries an invitation.
 */
describe('e-mail of a booking that needs the host’s confirmation', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ clock, env: { SMTP_URL: mail.url, TRUST_PROXY: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const created = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Consultation', durationsMin: [30], requiresConfirmation: true, reminders: [{ offsetMin: 60, to: 'both' }] });
    expect(created.status).toBe(201);
    eventTypeId = created.body.id;
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
  const allSent = (bookingId: string, count: number) =>
    eventually(async () => {
      const list = await messagesOf(bookingId);
      const announced = list.filter((message) => message.kind !== 'reminder');
      return announced.length === count && announced.every((message) => message.status === 'sent') ? list : undefined;
    });

  it('requested, then confirmed: the request holds no invitation; the confirmation brings it, with the manage link, and the reminders', async () => {
    const invitee = { name: 'Inês Carvalho', email: 'ines.request@example.test', timezone: 'Europe/Lisbon' };
    const guest = 'rui.request@example.test';
    const start = startIn(3, 10);
    const booking = await publicTrpc(t).book({ eventTypeId, start, durationMin: 30, invitee, guests: [guest] });

    const requested = await allSent(booking.id, 3);
    expect(requested.map((message) => [message.kind, message.audience])).toEqual([
      ['request', 'invitee'],
      ['request', 'guest'],
      ['request', 'host'],
    ]);
    const [inviteeRequest] = mailsTo(mail, invitee.email);
    expect(inviteeRequest!.parsed.subject).toBe('Requested: Consultation with Hana Host');
    expect(inviteeRequest!.parsed.text).toContain('Hana Host still has to confirm it');
    expect(inviteeRequest!.parsed.text).toContain(booking.links.manage);
    expect(calendarParts(inviteeRequest!)).toEqual([]);
    expect(calendarParts(mailsTo(mail, guest)[0]!)).toEqual([]);
    const [hostRequest] = mailsTo(mail, host.email).filter((received) => received.parsed.subject?.startsWith('Request: Inês'));
    expect(hostRequest!.parsed.text).toContain('Confirm or decline: http://localhost:3000/app/bookings');

    const confirmed = await t.http.post(`/api/v2/bookings/${booking.id}/confirm`).set(...bearer(host.token));
    expect(confirmed.status).toBe(200);
    const list = await allSent(booking.id, 6);
    expect(list.map((message) => [message.kind, message.audience, message.status])).toEqual([
      ['request', 'invitee', 'sent'],
      ['request', 'guest', 'sent'],
      ['request', 'host', 'sent'],
      ['confirmation', 'invitee', 'sent'],
      ['confirmation', 'guest', 'sent'],
      ['confirmation', 'host', 'sent'],
      ['reminder', 'invitee', 'scheduled'],
      ['reminder', 'guest', 'scheduled'],
      ['reminder', 'host', 'scheduled'],
    ]);
    expect(list.filter((message) => message.kind === 'reminder').every((message) => message.scheduledFor === new Date(Date.parse(start) - HOUR).toISOString())).toBe(true);

    const confirmation = mailsTo(mail, invitee.email)[1]!;
    expect(confirmation.parsed.subject).toBe('Confirmed: Consultation with Hana Host');
    expect(confirmation.parsed.text).toContain('Hana Host confirmed your Consultation.');
    const invitation = invitationOf(confirmation);
    expect(invitation.method).toBe('REQUEST');
    expect(invitation.event.uid).toBe(`${booking.id}@localhost`);
    expect(Number(invitation.event.sequence)).toBe(0);
    expect(invitation.event.start.toISOString()).toBe(start);
    expect(invitation.event.start.tz).toBe('Europe/Lisbon');
    // The confirmation carries the manage link the request did, and it works.
    expect(/To cancel or reschedule: (\S+)/.exec(String(invitation.event.description))?.[1]).toBe(booking.links.manage);
    expect((await t.http.get(`${new URL(booking.links.manage).pathname}/event.ics`)).status).toBe(200);
    expect(invitationOf(mailsTo(mail, guest)[1]!).method).toBe('REQUEST');
    const hostNote = mailsTo(mail, host.email).find((received) => received.parsed.subject === 'Confirmed: Inês Carvalho, Consultation')!;
    expect(hostNote.parsed.text).toContain('You confirmed Inês Carvalho’s request for Consultation');
    expect(calendarParts(hostNote)).toEqual([]);

    // Confirming again changes nothing and sends nothing.
    expect((await t.http.post(`/api/v2/bookings/${booking.id}/confirm`).set(...bearer(host.token))).status).toBe(200);
    expect((await messagesOf(booking.id)).length).toBe(9);
  });

  it('requested, then declined with a reason: the invitee and guest are told why, the host gets a note; nothing else follows', async () => {
    const invitee = { name: 'Ada', email: 'ada.declined@example.test', timezone: 'UTC' };
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start: startIn(4, 11), durationMin: 30, invitee, guests: ['bo.declined@example.test'] });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending');
    await allSent(res.body.id, 3);
    expect((await t.http.post(`/api/v2/bookings/${res.body.id}/decline`).set(...bearer(host.token)).send({ reason: 'Away that week, sorry' })).status).toBe(200);
    const list = await allSent(res.body.id, 6);
    expect(list.map((message) => [message.kind, message.audience])).toEqual([
      ['request', 'invitee'],
      ['request', 'guest'],
      ['request', 'host'],
      ['decline', 'invitee'],
      ['decline', 'guest'],
      ['decline', 'host'],
    ]);
    const declined = mailsTo(mail, invitee.email)[1]!;
    expect(declined.parsed.subject).toBe('Declined: Consultation with Hana Host');
    expect(declined.parsed.text).toContain('Hana Host declined your request for Consultation.');
    expect(declined.parsed.text).toContain('Reason: Away that week, sorry');
    expect(calendarParts(declined)).toEqual([]);
    expect(mailsTo(mail, 'bo.declined@example.test')[1]!.parsed.text).toContain('Hana Host declined Ada’s request for Consultation.');
    expect(mailsTo(mail, host.email).some((received) => received.parsed.subject === 'Declined: Ada, Consultation')).toBe(true);
  });

  it('a request moved, then canceled, never carries an invitation', async () => {
    const invitee = { name: 'Cy', email: 'cy.moved@example.test', timezone: 'UTC' };
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start: startIn(5, 12), durationMin: 30, invitee });
    await allSent(res.body.id, 2);
    expect((await t.http.post(`/api/v2/bookings/${res.body.id}/reschedule`).set(...bearer(host.token)).send({ start: startIn(6, 13) })).status).toBe(200);
    await allSent(res.body.id, 4);
    expect((await t.http.delete(`/api/v2/bookings/${res.body.id}`).set(...bearer(host.token))).status).toBe(200);
    const list = await allSent(res.body.id, 6);
    expect(list.map((message) => [message.kind, message.audience])).toEqual([
      ['request', 'invitee'],
      ['request', 'host'],
      ['update', 'invitee'],
      ['update', 'host'],
      ['cancellation', 'invitee'],
      ['cancellation', 'host'],
    ]);
    const received = mailsTo(mail, invitee.email);
    expect(received.map((one) => one.parsed.subject)).toEqual([
      'Requested: Consultation with Hana Host',
      'Request moved: Consultation with Hana Host',
      'Canceled: Consultation with Hana Host',
    ]);
    expect(received.flatMap(calendarParts)).toEqual([]);
    expect(received[2]!.parsed.text).toContain('Hana Host canceled your request for Consultation.');
  });

  it('a request nobody confirms before its start is declined, and everyone is told so', async () => {
    const invitee = { name: 'Di', email: 'di.expired@example.test', timezone: 'UTC' };
    const start = startIn(7, 9);
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start, durationMin: 30, invitee });
    await allSent(res.body.id, 2);
    clock.shift = Date.parse(start) + 60_000 - Date.now();
    try {
      const list = await allSent(res.body.id, 4);
      expect(list.map((message) => message.kind)).toEqual(['request', 'request', 'decline', 'decline']);
    } finally {
      clock.shift = 0;
    }
    const expired = mailsTo(mail, invitee.email)[1]!;
    expect(expired.parsed.subject).toBe('Declined: Consultation with Hana Host');
    expect(expired.parsed.text).toContain('Your request for Consultation is declined: Hana Host did not confirm it before its start.');
    expect(expired.parsed.text).not.toContain('Reason:');
  });
});
