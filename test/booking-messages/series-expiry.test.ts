/**
 * A series of requests the host never answers, through a real SMTP server: when its first pending occurrence
 * starts unconfirmed, every pending occurrence is declined at once, dated at that start, with one decline per
 * recipient listing them (not one per occurrence at each one's start) and a `booking.declined` per occurrence. And
 * a series' first occurrence lists the series' message, not its own skipped row beside it, whose manage link its
 * later messages still carry.
 */
import superjson from 'superjson';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { SKIPPED } from '../../src/modules/booking-messages/message-plan.ts';
import { UNCONFIRMED_SERIES_REASON } from '../../src/modules/booking-series/booking-series.service.ts';
import { UNCONFIRMED_REASON } from '../../src/modules/bookings/booking-confirmation.service.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type MailServer, mailsTo, type MessageView, type ReceivedMail, startMailServer, EVERY_DAY, inLisbon, LISBON, startIn } from './support.ts';


const calendarParts = (mail: ReceivedMail) => mail.parsed.attachments.filter((attachment) => attachment.contentType.startsWith('text/calendar'));

/** The real clock, moved by `shift` (the pending bookings' expiry runs by the app's clock). */
const clock: Clock & { shift: number } = { shift: 0, now: () => new Date(Date.now() + clock.shift) };

interface Occurrence {
  id: string;
  startAt: string;
  status: string;
  declinedAt: string | null;
  declineReason: string | null;
  links: { manage: string };
}

// The tests run in this order, each series after the one before (each expiry declines every request started by then).
describe('a series of requests nobody answers', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let requestsId: string;

  beforeAll(async () => {
    mail = await startMailServer();
    t = await startTestApp({ clock, env: { SMTP_URL: mail.url, TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const hook = await t.http.post('/api/v2/webhooks').set(...bearer(host.token)).send({ url: 'http://127.0.0.1:9/hook', events: ['booking.declined'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const requests = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Consultation', durationsMin: [30], reminders: [{ offsetMin: 60, to: 'both' }], requiresConfirmation: true, recurrence: { maxCount: 6 } });
    expect(requests.status, JSON.stringify(requests.body)).toBe(201);
    requestsId = requests.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  let since = 0;
  beforeEach(() => {
    since = Date.now();
    clock.shift = 0;
  });
  const mailsOf = (address: string): ReceivedMail[] => mailsTo(mail, address).filter((received) => received.receivedAt >= since);

  const messagesOf = async (bookingId: string): Promise<MessageView[]> => {
    const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(host.token));
    expect(res.status).toBe(200);
    return res.body.data;
  };

  async function bookSeries(startAt: string, invitee: object, guests: string[], count: number, ip: string) {
    const res = await t.http
      .post('/trpc/publicBooking.bookSeries')
      .set('X-Forwarded-For', ip)
      .send(superjson.serialize({ eventTypeId: requestsId, startAt, durationMin: 30, invitee, guests, recurrence: { frequency: 'weekly', interval: 1, count } }) as object);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data.json as { id: string; bookings: Occurrence[] };
  }

  /** Waits until each address has received `count` mails, then a moment more for any straggler, and checks no more came. */
  async function expectMails(addresses: string[], count: number): Promise<void> {
    await eventually(() => (addresses.every((address) => mailsOf(address).length >= count) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const address of addresses) expect(mailsOf(address), address).toHaveLength(count);
  }

  /** The series once none of its occurrences is pending any more. */
  const decided = (seriesId: string) =>
    eventually(async () => {
      const res = await t.http.get(`/api/v2/booking-series/${seriesId}`).set(...bearer(host.token));
      const bookings = res.body.bookings as Occurrence[];
      return bookings.some((booking) => booking.status === 'pending') ? undefined : bookings;
    });

  /** The booking.declined events written, by booking id. */
  const declinedEvents = async () =>
    (
      await t.em().execute<{ id: string }[]>(`select body::jsonb -> 'data' ->> 'id' as id from webhook_event where owner_id = ? and type = 'booking.declined'`, [
        host.id,
      ])
    ).map((row) => row.id);

  it('the first occurrence lists its series’ request, not its own skipped row, whose manage link its later update still carries', async () => {
    const invitee = { name: 'Inês Lista', email: 'ines.list@example.test', timezone: LISBON };
    const guest = 'rui.list@example.test';
    const series = await bookSeries(startIn(30, 9), invitee, [guest], 3, '203.0.113.61');
    const [first, second, third] = series.bookings;
    await expectMails([invitee.email, guest, host.email], 1);

    // The first occurrence: the series' one request per recipient, each sent; nothing skipped beside them.
    expect((await messagesOf(first!.id)).map((m) => [m.kind, m.audience, m.status, m.lastError])).toEqual([
      ['request', 'invitee', 'sent', null],
      ['request', 'guest', 'sent', null],
      ['request', 'host', 'sent', null],
    ]);
    // The others say which mail told of them.
    for (const other of [second!, third!]) {
      expect((await messagesOf(other.id)).map((m) => [m.kind, m.audience, m.status, m.lastError])).toEqual([['request', 'invitee', 'skipped', SKIPPED.inSeriesRequest]]);
    }
    // The first occurrence's own row is still written: it holds that occurrence's link (a request has no reminders).
    const [held] = await t.em().execute<{ n: number }[]>(
      `select count(*)::int as n from booking_message where booking_id = ? and status = 'skipped' and last_error = ? and manage_link is not null`,
      [first!.id, SKIPPED.inSeriesRequest],
    );
    expect(held!.n).toBe(1);

    // The host moves the first request: the invitee's update carries that occurrence's own link, which opens it.
    const moved = new Date(Date.parse(first!.startAt) + 2 * 3_600_000).toISOString();
    const rescheduled = await t.http.post(`/api/v2/bookings/${first!.id}/reschedule`).set(...bearer(host.token)).send({ start: moved });
    expect(rescheduled.status, JSON.stringify(rescheduled.body)).toBe(200);
    await expectMails([invitee.email], 2);
    const update = mailsOf(invitee.email)[1]!;
    expect(update.parsed.subject).toBe('Request moved: Consultation with Hana Host');
    expect(update.parsed.text).toContain(first!.links.manage);
    expect(update.parsed.text).not.toContain(second!.links.manage);
    const token = first!.links.manage.split('/').at(-1)!;
    const managed = await t.http
      .get('/trpc/publicBooking.managed')
      .set('X-Forwarded-For', '203.0.113.61')
      .query({ input: JSON.stringify(superjson.serialize({ token })) });
    expect(managed.status).toBe(200);
    expect((managed.body.result.data.json as { booking: { id: string; startAt: string } }).booking).toMatchObject({ id: first!.id, startAt: moved });
    // The update is listed on the first occurrence after the series' request.
    expect((await messagesOf(first!.id)).map((m) => [m.kind, m.audience])).toEqual([
      ['request', 'invitee'],
      ['request', 'guest'],
      ['request', 'host'],
      ['update', 'invitee'],
      ['update', 'guest'],
      ['update', 'host'],
    ]);

    // Out of the way of the expiry tests below (they move the clock past this series' dates).
    expect((await t.http.delete(`/api/v2/booking-series/${series.id}`).set(...bearer(host.token)).send({})).status).toBe(200);
    await expectMails([invitee.email], 3);
  });

  it('lapses at its first start: every pending occurrence declined at once, one mail per person listing them, a booking.declined each', async () => {
    const invitee = { name: 'Inês Lapso', email: 'ines.lapse@example.test', timezone: LISBON };
    const guest = 'rui.lapse@example.test';
    const people = [invitee.email, guest, host.email];
    const series = await bookSeries(startIn(6, 9), invitee, [guest], 3, '203.0.113.62');
    expect(series.bookings.map((booking) => booking.status)).toEqual(['pending', 'pending', 'pending']);
    const [first, second, third] = series.bookings;
    await expectMails(people, 1);

    // A minute after the first start: the first and the two to come are declined together, dated at that start.
    clock.shift = Date.parse(first!.startAt) + 60_000 - Date.now();
    const bookings = await decided(series.id);
    expect(bookings.map((booking) => [booking.status, booking.declinedAt, booking.declineReason])).toEqual([
      ['declined', first!.startAt, UNCONFIRMED_REASON],
      ['declined', first!.startAt, UNCONFIRMED_SERIES_REASON],
      ['declined', first!.startAt, UNCONFIRMED_SERIES_REASON],
    ]);
    await expectMails(people, 2);

    const decline = mailsOf(invitee.email)[1]!;
    expect(decline.parsed.subject).toBe('Declined: Consultation with Hana Host (3 meetings)');
    const text = decline.parsed.text!;
    expect(text).toContain('Your request for 3 meetings of Consultation is declined: Hana Host did not confirm it before the first one started.');
    for (const booking of series.bookings) expect(text).toContain(inLisbon(booking.startAt));
    expect(text).not.toContain('Reason:');
    expect(text).not.toContain('/book/manage/');
    expect(calendarParts(decline)).toEqual([]);
    expect(mailsOf(guest)[1]!.parsed.text).toContain('Inês Lapso’s request for 3 meetings of Consultation is declined: Hana Host did not confirm it');
    const hostNote = mailsOf(host.email)[1]!;
    expect(hostNote.parsed.subject).toBe('Declined: Inês Lapso, Consultation (3 meetings)');
    expect(hostNote.parsed.text).toContain('Inês Lapso’s request for 3 meetings of Consultation is declined: you did not confirm it before the first one started.');
    expect(hostNote.parsed.text).toContain('(America/New_York)');

    // The first occurrence holds the series' declines; the others a skipped row saying so.
    const declinesOf = async (bookingId: string) =>
      (await messagesOf(bookingId)).filter((m) => m.kind === 'decline').map((m) => [m.audience, m.status, m.lastError]);
    expect(await declinesOf(first!.id)).toEqual([
      ['invitee', 'sent', null],
      ['guest', 'sent', null],
      ['host', 'sent', null],
    ]);
    for (const other of [second!, third!]) expect(await declinesOf(other.id)).toEqual([['invitee', 'skipped', SKIPPED.inSeriesDecline]]);

    // Webhooks stay per occurrence; every time is free again; the dates to come can no longer be confirmed.
    expect((await declinedEvents()).sort()).toEqual(series.bookings.map((booking) => booking.id).sort());
    const blocks = await t.em().execute<{ active: boolean }[]>(
      `select bb.active from busy_block bb join booking_busy_block l on l.busy_block_id = bb.id where l.booking_id in (?, ?, ?)`,
      [first!.id, second!.id, third!.id],
    );
    expect(blocks.map((block) => block.active)).toEqual([false, false, false]);
    const late = await t.http.post(`/api/v2/bookings/${third!.id}/confirm`).set(...bearer(host.token));
    expect(late.status).toBe(409);
  });

  it('with its first date confirmed alone, lapses at the first pending one: the rest declined together, the confirmed one kept', async () => {
    const invitee = { name: 'Inês Meio', email: 'ines.half@example.test', timezone: LISBON };
    const people = [invitee.email, host.email];
    const series = await bookSeries(startIn(21, 10), invitee, [], 3, '203.0.113.63');
    const [first, second, third] = series.bookings;
    await expectMails(people, 1);
    expect((await t.http.post(`/api/v2/bookings/${first!.id}/confirm`).set(...bearer(host.token))).status).toBe(200);
    await expectMails(people, 2);

    clock.shift = Date.parse(second!.startAt) + 60_000 - Date.now();
    const bookings = await decided(series.id);
    expect(bookings.map((booking) => [booking.status, booking.declinedAt, booking.declineReason])).toEqual([
      ['active', null, null],
      ['declined', second!.startAt, UNCONFIRMED_REASON],
      ['declined', second!.startAt, UNCONFIRMED_SERIES_REASON],
    ]);
    await expectMails(people, 3);
    const decline = mailsOf(invitee.email)[2]!;
    expect(decline.parsed.subject).toBe('Declined: Consultation with Hana Host (2 meetings)');
    expect(decline.parsed.text).toContain('Your request for 2 meetings of Consultation is declined: Hana Host did not confirm it before the first one started.');
    for (const booking of [second!, third!]) expect(decline.parsed.text).toContain(inLisbon(booking.startAt));
    expect(decline.parsed.text).not.toContain(inLisbon(first!.startAt));
  });

  it('with one pending occurrence left, lapses as a single request does: its own decline', async () => {
    const invitee = { name: 'Inês Só', email: 'ines.last@example.test', timezone: LISBON };
    const people = [invitee.email, host.email];
    const series = await bookSeries(startIn(40, 11), invitee, [], 2, '203.0.113.64');
    const [first, second] = series.bookings;
    await expectMails(people, 1);
    expect((await t.http.post(`/api/v2/bookings/${second!.id}/decline`).set(...bearer(host.token)).send({})).status).toBe(200);
    await expectMails(people, 2);

    clock.shift = Date.parse(first!.startAt) + 60_000 - Date.now();
    const bookings = await decided(series.id);
    expect(bookings.map((booking) => [booking.status, booking.declineReason])).toEqual([
      ['declined', UNCONFIRMED_REASON],
      ['declined', null],
    ]);
    await expectMails(people, 3);
    const decline = mailsOf(invitee.email)[2]!;
    expect(decline.parsed.subject).toBe('Declined: Consultation with Hana Host');
    expect(decline.parsed.text).toContain('Your request for Consultation is declined: Hana Host did not confirm it before its start.');
    expect((await messagesOf(first!.id)).filter((m) => m.kind === 'decline').map((m) => [m.audience, m.status])).toEqual([
      ['invitee', 'sent'],
      ['host', 'sent'],
    ]);
  });
});
