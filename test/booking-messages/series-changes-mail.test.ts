/**
 * A series changed as a whole tells each person once, through a real SMTP server: canceling it sends one
 * cancellation per recipient listing every canceled occurrence, its invitation a METHOD:CANCEL VEVENT per occurrence
 * (its UID, its SEQUENCE); a series of requests asks once, and the host's confirmation or decline of all its
 * requests answers once. Occurrences changed alone still mail for themselves; webhooks stay per occurrence.
 */
import ical, { type VEvent } from 'node-ical';
import superjson from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, invitationOf, type MailServer, mailsTo, type MessageView, type ReceivedMail, startMailServer, EVERY_DAY, inLisbon, LISBON, startIn } from './support.ts';

const HOUR = 3_600_000;

/** Every VEVENT of a mail's invitation (node-ical), earliest first. */
function eventsOf(raw: string): VEvent[] {
  const parsed = ical.sync.parseICS(raw);
  return (Object.values(parsed).filter((component) => component?.type === 'VEVENT') as VEvent[]).sort((a, b) => a.start.getTime() - b.start.getTime());
}

const calendarParts = (mail: { parsed: { attachments: { contentType: string }[] } }) =>
  mail.parsed.attachments.filter((attachment) => attachment.contentType.startsWith('text/calendar'));

interface Occurrence {
  id: string;
  startAt: string;
  status: string;
  links: { manage: string };
}

describe('a series changed as a whole, by e-mail', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let stranger: TestUser;
  let coachingId: string;
  let requestsId: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ env: { SMTP_URL: mail.url, TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const hook = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(host.token))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['booking.canceled', 'booking.confirmed', 'booking.declined'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const reminders = [{ offsetMin: 60, to: 'both' }];
    const coaching = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Coaching', durationsMin: [30], reminders, recurrence: { maxCount: 6 } });
    expect(coaching.status, JSON.stringify(coaching.body)).toBe(201);
    coachingId = coaching.body.id;
    const requests = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Consultation', durationsMin: [30], reminders, requiresConfirmation: true, recurrence: { maxCount: 6 } });
    expect(requests.status, JSON.stringify(requests.body)).toBe(201);
    requestsId = requests.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  // The host is written to in every test: each test counts the mails that came since it started.
  let since = 0;
  beforeEach(() => {
    since = Date.now();
  });
  const mailsOf = (address: string): ReceivedMail[] => mailsTo(mail, address).filter((received) => received.receivedAt >= since);

  const messagesOf = async (bookingId: string): Promise<MessageView[]> => {
    const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(host.token));
    expect(res.status).toBe(200);
    return res.body.data;
  };

  /** A weekly series booked on the public page (so the invitee has a manage link per occurrence). */
  async function bookSeries(eventTypeId: string, startAt: string, invitee: object, guests: string[], count: number, ip: string) {
    const res = await t.http
      .post('/trpc/publicBooking.bookSeries')
      .set('X-Forwarded-For', ip)
      .send(superjson.serialize({ eventTypeId, startAt, durationMin: 30, invitee, guests, recurrence: { frequency: 'weekly', interval: 1, count } }) as object);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data.json as { id: string; bookings: Occurrence[] };
  }

  /** Waits until each address has received `count` mails, then a moment more for any straggler, and checks no more came. */
  async function expectMails(addresses: string[], count: number): Promise<void> {
    await eventually(() => (addresses.every((address) => mailsOf(address).length >= count) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const address of addresses) expect(mailsOf(address), address).toHaveLength(count);
  }

  const webhookEvents = async (type: string) =>
    (await t.em().execute<{ n: number }[]>('select count(*)::int as n from webhook_event where owner_id = ? and type = ?', [host.id, type]))[0]!.n;

  it('canceling a series: one cancellation per person listing each canceled occurrence, a METHOD:CANCEL VEVENT each; one canceled alone mails itself', async () => {
    const invitee = { name: 'Inês Carvalho', email: 'ines.cancel@example.test', timezone: LISBON };
    const guest = 'rui.cancel@example.test';
    const people = [invitee.email, guest, host.email];
    const series = await bookSeries(coachingId, startIn(5, 10), invitee, [guest], 4, '203.0.113.51');
    const [first, second, third, fourth] = series.bookings;
    await expectMails(people, 1);

    // The second occurrence moves alone (its SEQUENCE becomes 1); the fourth is canceled alone, with its own mail.
    const moved = new Date(Date.parse(second!.startAt) + 86_400_000 + 4 * HOUR).toISOString();
    expect((await t.http.post(`/api/v2/bookings/${second!.id}/reschedule`).set(...bearer(host.token)).send({ start: moved })).status).toBe(200);
    await expectMails(people, 2);
    const alone = await t.http.delete(`/api/v2/bookings/${fourth!.id}`).set(...bearer(host.token)).send({ reason: 'Holiday' });
    expect(alone.status).toBe(200);
    await expectMails(people, 3);
    const own = invitationOf(mailsOf(invitee.email)[2]!);
    expect(own.method).toBe('CANCEL');
    expect(eventsOf(own.raw).map((event) => [event.uid, Number(event.sequence)])).toEqual([[`${fourth!.id}@localhost`, 1]]);

    // The series: the three still to come, one mail each.
    const canceled = await t.http.delete(`/api/v2/booking-series/${series.id}`).set(...bearer(host.token)).send({ reason: 'Project ended' });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body.bookings.map((booking: { status: string }) => booking.status)).toEqual(['canceled', 'canceled', 'canceled', 'canceled']);
    await expectMails(people, 4);

    const cancellation = mailsOf(invitee.email)[3]!;
    expect(cancellation.parsed.subject).toBe('Canceled: Coaching with Hana Host (3 meetings)');
    const text = cancellation.parsed.text!;
    expect(text).toContain('Hana Host canceled 3 meetings of Coaching.');
    for (const startAt of [first!.startAt, moved, third!.startAt]) expect(text).toContain(inLisbon(startAt));
    expect(text).not.toContain(inLisbon(fourth!.startAt));
    expect(text).toContain('Reason: Project ended');
    expect(text).not.toContain('/book/manage/');
    const invitation = invitationOf(cancellation);
    expect(invitation.method).toBe('CANCEL');
    const events = eventsOf(invitation.raw);
    expect(events.map((event) => event.uid)).toEqual([first!, second!, third!].map((booking) => `${booking.id}@localhost`));
    expect(events.map((event) => event.start.toISOString())).toEqual([first!.startAt, moved, third!.startAt]);
    // Each its SEQUENCE as its own cancellation would have it: the moved one is one further.
    expect(events.map((event) => Number(event.sequence))).toEqual([1, 2, 1]);
    expect(events.map((event) => event.status)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    const guestCopy = mailsOf(guest)[3]!;
    expect(eventsOf(invitationOf(guestCopy).raw).map((event) => event.uid)).toEqual(events.map((event) => event.uid));
    const hostNote = mailsOf(host.email)[3]!;
    expect(hostNote.parsed.subject).toBe('Canceled: Coaching with Inês Carvalho (3 meetings)');
    expect(hostNote.parsed.text).toContain('You canceled 3 meetings of Coaching with Inês Carvalho.');
    expect(hostNote.parsed.text).toContain('(America/New_York)');
    expect(calendarParts(hostNote)).toEqual([]);

    // The first occurrence holds the series' cancellations; each other a skipped one saying why; reminders dropped.
    const cancellationsOf = async (bookingId: string) =>
      (await messagesOf(bookingId)).filter((m) => m.kind === 'cancellation').map((m) => [m.audience, m.status, m.lastError]);
    expect(await cancellationsOf(first!.id)).toEqual([
      ['invitee', 'sent', null],
      ['guest', 'sent', null],
      ['host', 'sent', null],
    ]);
    for (const other of [second!, third!]) {
      expect(await cancellationsOf(other.id)).toEqual([['invitee', 'skipped', "not sent: announced in its series' cancellation"]]);
    }
    for (const booking of [first!, second!, third!]) {
      const reminders = (await messagesOf(booking.id)).filter((m) => m.kind === 'reminder');
      expect(reminders.map((m) => [m.status, m.lastError])).toEqual(Array(3).fill(['skipped', 'not sent: the booking was canceled']));
    }
    // The fourth, canceled alone, had its own.
    expect((await cancellationsOf(fourth!.id)).map(([audience, status]) => [audience, status])).toEqual([
      ['invitee', 'sent'],
      ['guest', 'sent'],
      ['host', 'sent'],
    ]);
    // Webhooks stay per occurrence.
    expect(await webhookEvents('booking.canceled')).toBe(4);
  });

  it('a series of requests asks once; confirmed at once: one confirmation each, an event per occurrence, reminders per occurrence', async () => {
    const invitee = { name: 'Inês Pedido', email: 'ines.request@example.test', timezone: LISBON };
    const guest = 'rui.request@example.test';
    const people = [invitee.email, guest, host.email];
    const series = await bookSeries(requestsId, startIn(8, 11), invitee, [guest], 3, '203.0.113.52');
    expect(series.bookings.map((booking) => booking.status)).toEqual(['pending', 'pending', 'pending']);
    const [first, second, third] = series.bookings;
    await expectMails(people, 1);

    const request = mailsOf(invitee.email)[0]!;
    expect(request.parsed.subject).toBe('Requested: Consultation with Hana Host, every week, 3 times');
    expect(calendarParts(request)).toEqual([]);
    for (const booking of series.bookings) {
      expect(request.parsed.text).toContain(`${inLisbon(booking.startAt)} — reschedule or cancel: ${booking.links.manage}`);
    }
    expect(mailsOf(guest)[0]!.parsed.text).not.toContain('/book/manage/');
    const hostRequest = mailsOf(host.email)[0]!;
    expect(hostRequest.parsed.subject).toBe('Request: Inês Pedido, Consultation (3 meetings)');
    expect(hostRequest.parsed.text).toContain('Confirm or decline:');
    // The first occurrence lists the series' request (its own skipped row beside it is left out); the others theirs.
    expect((await messagesOf(first!.id)).map((m) => [m.kind, m.audience, m.status])).toEqual([
      ['request', 'invitee', 'sent'],
      ['request', 'guest', 'sent'],
      ['request', 'host', 'sent'],
    ]);
    for (const booking of [second!, third!]) {
      const skipped = (await messagesOf(booking.id)).filter((m) => m.status === 'skipped');
      expect(skipped.map((m) => [m.kind, m.audience, m.lastError])).toEqual([['request', 'invitee', "not sent: announced in its series' request"]]);
    }

    // Another user's series is 404 to them.
    expect((await t.http.post(`/api/v2/booking-series/${series.id}/confirm`).set(...bearer(stranger.token)).send({})).status).toBe(404);
    expect((await t.http.post(`/api/v2/booking-series/${series.id}/decline`).set(...bearer(stranger.token)).send({})).status).toBe(404);

    const confirmed = await t.http.post(`/api/v2/booking-series/${series.id}/confirm`).set(...bearer(host.token)).send({});
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body.bookings.map((booking: { status: string }) => booking.status)).toEqual(['active', 'active', 'active']);
    expect(confirmed.body).toEqual((await t.http.get(`/api/v2/booking-series/${series.id}`).set(...bearer(host.token))).body);
    await expectMails(people, 2);

    const confirmation = mailsOf(invitee.email)[1]!;
    expect(confirmation.parsed.subject).toBe('Confirmed: Consultation with Hana Host, every week, 3 times');
    expect(confirmation.parsed.text).toContain('Hana Host confirmed your 3 meetings of Consultation.');
    for (const booking of series.bookings) {
      expect(confirmation.parsed.text).toContain(`${inLisbon(booking.startAt)} — reschedule or cancel: ${booking.links.manage}`);
    }
    const invitation = invitationOf(confirmation);
    expect(invitation.method).toBe('REQUEST');
    const events = eventsOf(invitation.raw);
    expect(events.map((event) => event.uid)).toEqual(series.bookings.map((booking) => `${booking.id}@localhost`));
    expect(events.map((event) => Number(event.sequence))).toEqual([0, 0, 0]);
    expect(String(events[2]!.description)).toContain(`To cancel or reschedule: ${third!.links.manage}`);
    expect(eventsOf(invitationOf(mailsOf(guest)[1]!).raw)).toHaveLength(3);
    expect(mailsOf(host.email)[1]!.parsed.subject).toBe('Confirmed: Inês Pedido, Consultation (3 meetings)');

    // Each occurrence got its reminders as a single confirmation plans them; the others a skipped confirmation.
    for (const booking of series.bookings) {
      const messages = await messagesOf(booking.id);
      expect(messages.filter((m) => m.kind === 'reminder').map((m) => [m.audience, m.status, m.scheduledFor]).sort()).toEqual(
        ['guest', 'host', 'invitee'].map((audience) => [audience, 'scheduled', new Date(Date.parse(booking.startAt) - HOUR).toISOString()]),
      );
      const confirmations = messages.filter((m) => m.kind === 'confirmation').map((m) => [m.audience, m.status]);
      expect(confirmations).toEqual(booking === first ? [['invitee', 'sent'], ['guest', 'sent'], ['host', 'sent']] : [['invitee', 'skipped']]);
    }
    expect((await messagesOf(second!.id)).find((m) => m.kind === 'confirmation')?.lastError).toBe("not sent: announced in its series' confirmation");
    expect(await webhookEvents('booking.confirmed')).toBe(3);

    // Nothing is pending now: 409, in the error vocabulary.
    const again = await t.http.post(`/api/v2/booking-series/${series.id}/confirm`).set(...bearer(host.token)).send({});
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ title: 'Conflict', message: expect.stringContaining('no pending occurrence') });
    expect((await t.http.post(`/api/v2/booking-series/${series.id}/decline`).set(...bearer(host.token)).send({})).status).toBe(409);
  });

  it('declined at once: one decline each listing the declined occurrences with the reason; one confirmed alone first mails itself', async () => {
    const invitee = { name: 'Inês Recusa', email: 'ines.decline@example.test', timezone: LISBON };
    const people = [invitee.email, host.email];
    const series = await bookSeries(requestsId, startIn(12, 9), invitee, [], 3, '203.0.113.53');
    const [first, second, third] = series.bookings;
    await expectMails(people, 1);

    // The first occurrence confirmed alone: its own confirmation, its own event and link.
    expect((await t.http.post(`/api/v2/bookings/${first!.id}/confirm`).set(...bearer(host.token))).status).toBe(200);
    await expectMails(people, 2);
    const alone = mailsOf(invitee.email)[1]!;
    expect(eventsOf(invitationOf(alone).raw).map((event) => event.uid)).toEqual([`${first!.id}@localhost`]);
    expect(alone.parsed.text).toContain(first!.links.manage);
    expect(alone.parsed.text).not.toContain(second!.links.manage);

    const declined = await t.http.post(`/api/v2/booking-series/${series.id}/decline`).set(...bearer(host.token)).send({ reason: 'Away that month' });
    expect(declined.status, JSON.stringify(declined.body)).toBe(200);
    expect(declined.body.bookings.map((booking: { status: string; declineReason: string | null }) => [booking.status, booking.declineReason])).toEqual([
      ['active', null],
      ['declined', 'Away that month'],
      ['declined', 'Away that month'],
    ]);
    await expectMails(people, 3);

    const decline = mailsOf(invitee.email)[2]!;
    expect(decline.parsed.subject).toBe('Declined: Consultation with Hana Host (2 meetings)');
    expect(decline.parsed.text).toContain('Hana Host declined your request for 2 meetings of Consultation.');
    for (const booking of [second!, third!]) expect(decline.parsed.text).toContain(inLisbon(booking.startAt));
    expect(decline.parsed.text).not.toContain(inLisbon(first!.startAt));
    expect(decline.parsed.text).toContain('Reason: Away that month');
    expect(calendarParts(decline)).toEqual([]);
    expect(mailsOf(host.email)[2]!.parsed.text).toContain('You declined Inês Recusa’s request for 2 meetings of Consultation.');
    const declines = async (bookingId: string) => (await messagesOf(bookingId)).filter((m) => m.kind === 'decline').map((m) => [m.audience, m.status, m.lastError]);
    expect(await declines(second!.id)).toEqual([
      ['invitee', 'sent', null],
      ['host', 'sent', null],
    ]);
    expect(await declines(third!.id)).toEqual([['invitee', 'skipped', "not sent: announced in its series' decline"]]);
    expect(await webhookEvents('booking.declined')).toBe(2);

    expect((await t.http.post(`/api/v2/booking-series/${series.id}/decline`).set(...bearer(host.token)).send({})).status).toBe(409);
  });
});
