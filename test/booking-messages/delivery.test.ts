import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, freePort, invitationOf, type MailServer, mailsTo, type MessageView, publicTrpc, startMailServer } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

/** A start on the hour, `days` days ahead (distinct per test). */
function startIn(days: number, hour = 10): string {
  const day = new Date(Date.now() + days * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
}

async function messagesOf(t: TestApp, user: TestUser, bookingId: string): Promise<MessageView[]> {
  const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(user.token));
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('e-mail through a real SMTP server', () => {
  let t: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let eventTypeId: string;
  const refused = 'refused.guest@example.test';

  beforeAll(async () => {
    mail = await startMailServer({
      refuseRecipient: (address) => (address === refused ? { code: 550, text: '5.1.1 No such mailbox here' } : undefined),
    });
    t = await startTestApp({ env: { SMTP_URL: mail.url, MAIL_FROM: 'Bookings <bookings@scheduling.example.test>', TRUST_PROXY: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const created = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Consultation', durationsMin: [30], reminders: [] });
    expect(created.status).toBe(201);
    eventTypeId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
    await mail?.close();
  });

  it('a public booking: each person gets their own confirmation; the invitee’s invitation and manage link work; then update and cancellation', async () => {
    const invitee = { name: 'Inês Carvalho', email: 'ines.flow@example.test', timezone: 'Europe/Lisbon' };
    const start = startIn(3, 10);
    const booking = await publicTrpc(t).book({ eventTypeId, start, durationMin: 30, invitee, guests: ['rui.flow@example.test'], answers: [{ questionId: 'company', value: 'Carvalho & Filhos' }], locationInput: 'Café Lumen' });
    await eventually(() => (mailsTo(mail, invitee.email).length && mailsTo(mail, 'rui.flow@example.test').length && mailsTo(mail, host.email).length ? true : undefined));

    // One recipient per message, never the others' addresses.
    for (const address of [invitee.email, 'rui.flow@example.test', host.email]) {
      const [only] = mailsTo(mail, address);
      expect(only!.to).toEqual([address]);
      expect(only!.parsed.cc).toBeUndefined();
      expect(only!.parsed.from?.text).toBe('"Bookings" <bookings@scheduling.example.test>');
      expect(only!.parsed.text).toBeTruthy();
      expect(only!.parsed.html).toBeTruthy();
    }
    const [confirmation] = mailsTo(mail, invitee.email);
    const messages = await messagesOf(t, host, booking.id);
    const mine = messages.find((message) => message.recipient === invitee.email)!;
    expect(confirmation!.parsed.messageId).toBe(`<${mine.id}@localhost>`);
    expect(confirmation!.parsed.text).toContain('(Europe/Lisbon)');
    expect(confirmation!.parsed.text).toContain('10:00–10:30');

    const invitation = invitationOf(confirmation!);
    expect(invitation.method).toBe('REQUEST');
    expect(invitation.event.uid).toBe(`${booking.id}@localhost`);
    expect(Number(invitation.event.sequence)).toBe(0);
    expect(invitation.event.start.toISOString()).toBe(start);
    expect(invitation.event.end!.toISOString()).toBe(new Date(Date.parse(start) + 30 * 60_000).toISOString());
    expect(invitation.event.start.tz).toBe('Europe/Lisbon');
    expect(String((invitation.event.organizer as { val: string }).val).toLowerCase()).toBe(`mailto:${host.email}`);
    const attendees = [invitation.event.attendee].flat().map((attendee) => String((attendee as { val: string }).val).toLowerCase());
    expect(attendees).toContain(`mailto:${invitee.email}`);
    expect(invitation.event.location).toBe('Café Lumen');
    // The manage link in the invitation is the invitee's own and works.
    const manage = /To cancel or reschedule: (\S+)/.exec(String(invitation.event.description))?.[1];
    expect(manage).toBe(booking.links.manage);
    expect(confirmation!.parsed.text).toContain(booking.links.manage);
    const ics = await t.http.get(`${new URL(`${manage}/event.ics`).pathname}`);
    expect(ics.status).toBe(200);
    expect(ics.text).toContain(`UID:${booking.id}@localhost`);

    // The guest's copy has no manage link; the host's has the answers and no invitation.
    const [guest] = mailsTo(mail, 'rui.flow@example.test');
    expect(guest!.parsed.text).not.toContain('/book/manage/');
    expect(invitationOf(guest!).method).toBe('REQUEST');
    const [hostMail] = mailsTo(mail, host.email);
    expect(hostMail!.parsed.text).toContain('company: Carvalho & Filhos');
    expect(hostMail!.parsed.text).toContain('(America/New_York)');
    expect(hostMail!.parsed.attachments).toEqual([]);

    // Rescheduled: the same UID, SEQUENCE + 1, the new time; the host learns the old and the new.
    const moved = startIn(4, 14);
    expect((await t.http.post(`/api/v2/bookings/${booking.id}/reschedule`).set(...bearer(host.token)).send({ start: moved })).status).toBe(200);
    await eventually(() => (mailsTo(mail, invitee.email).length === 2 && mailsTo(mail, host.email).length === 2 ? true : undefined));
    const update = invitationOf(mailsTo(mail, invitee.email)[1]!);
    expect(update.method).toBe('REQUEST');
    expect(update.event.uid).toBe(`${booking.id}@localhost`);
    expect(Number(update.event.sequence)).toBe(1);
    expect(update.event.start.toISOString()).toBe(moved);
    expect(String(update.event.description)).toContain(booking.links.manage);
    const hostUpdate = mailsTo(mail, host.email)[1]!.parsed.text!;
    const inNewYork = (iso: string) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso));
    expect(hostUpdate).toMatch(new RegExp(`Now: .*, ${inNewYork(moved)}–.* \\(America/New_York\\)`));
    expect(hostUpdate).toMatch(new RegExp(`Before: .*, ${inNewYork(start)}–.* \\(America/New_York\\)`));

    // Canceled by the host with a reason: METHOD:CANCEL, SEQUENCE + 1 again.
    expect((await t.http.delete(`/api/v2/bookings/${booking.id}`).query({ reason: 'Double-booked, sorry' }).set(...bearer(host.token))).status).toBe(200);
    await eventually(() => (mailsTo(mail, invitee.email).length === 3 ? true : undefined));
    const cancellation = mailsTo(mail, invitee.email)[2]!;
    const canceled = invitationOf(cancellation);
    expect(canceled.method).toBe('CANCEL');
    expect(Number(canceled.event.sequence)).toBe(2);
    expect(canceled.event.status).toBe('CANCELLED');
    expect(cancellation.parsed.text).toContain('Hana Host canceled');
    expect(cancellation.parsed.text).toContain('Reason: Double-booked, sorry');

    const all = await eventually(async () => {
      const list = await messagesOf(t, host, booking.id);
      return list.length === 9 && list.every((message) => message.status === 'sent') ? list : undefined;
    });
    expect(all.map((message) => [message.kind, message.audience])).toEqual([
      ['confirmation', 'invitee'], ['confirmation', 'guest'], ['confirmation', 'host'],
      ['update', 'invitee'], ['update', 'guest'], ['update', 'host'],
      ['cancellation', 'invitee'], ['cancellation', 'guest'], ['cancellation', 'host'],
    ]);
    expect(all.every((message) => message.attempts === 1 && message.sentAt !== null && message.lastError === null)).toBe(true);
    // Each sent message keeps the server's reply, which names the server's own id for that very message.
    const byMessageId = new Map(mail.received.map((received) => [received.parsed.messageId, received.queueId]));
    for (const message of all) {
      expect(message.serverReply).toBe(`250 2.0.0 Ok: queued as ${byMessageId.get(`<${message.id}@localhost>`)}`);
    }
  });

  it('a 550 for one recipient fails that message with the server’s reply; the others are sent; a resend is a new message', async () => {
    const invitee = { name: 'Ada', email: 'ada.refused@example.test', timezone: 'UTC' };
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start: startIn(5, 9), durationMin: 30, invitee, guests: [refused] });
    expect(res.status).toBe(201);
    const list = await eventually(async () => {
      const messages = await messagesOf(t, host, res.body.id);
      return messages.every((message) => message.status === 'sent' || message.status === 'failed') ? messages : undefined;
    });
    const failed = list.find((message) => message.recipient === refused)!;
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, sentAt: null, serverReply: null });
    expect(failed.lastError).toMatch(/^550 .*No such mailbox here/);
    expect(list.filter((message) => message.id !== failed.id).map((message) => message.status)).toEqual(['sent', 'sent']);
    expect(list.filter((message) => message.id !== failed.id).every((message) => message.serverReply?.startsWith('250 2.0.0 Ok: queued as '))).toBe(true);
    expect(mailsTo(mail, refused)).toEqual([]);

    const sent = list.find((message) => message.status === 'sent')!;
    const notFailed = await t.http.post(`/api/v2/bookings/${res.body.id}/messages/${sent.id}/resend`).set(...bearer(host.token));
    expect(notFailed.status).toBe(409);
    const resent = await t.http.post(`/api/v2/bookings/${res.body.id}/messages/${failed.id}/resend`).set(...bearer(host.token));
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ kind: 'confirmation', audience: 'guest', recipient: refused, status: 'queued', resentFrom: failed.id, attempts: 0 });
    expect(resent.body.id).not.toBe(failed.id);
    const again = await eventually(async () => {
      const message = (await messagesOf(t, host, res.body.id)).find((candidate) => candidate.id === resent.body.id)!;
      return message.status === 'failed' ? message : undefined;
    });
    expect(again.lastError).toMatch(/^550 /);
    expect((await messagesOf(t, host, res.body.id)).find((message) => message.id === failed.id)?.status).toBe('failed');
  });
});

describe('an instance that dies between sending and recording', () => {
  it('leaves its claim to run out; the message is sent again once, with the same Message-ID', async () => {
    const mail = await startMailServer();
    const t = await startTestApp({ env: { SMTP_URL: mail.url } });
    try {
      const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
      await setSchedule(t.em(), host.id, EVERY_DAY);
      const eventType = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Call', durationsMin: [30], reminders: [] });
      const res = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(host.token))
        .send({ eventTypeId: eventType.body.id, start: startIn(2, 15), durationMin: 30, invitee: { name: 'Di', email: 'di.crash@example.test', timezone: 'UTC' } });
      const sent = await eventually(async () => {
        const messages = await messagesOf(t, host, res.body.id);
        return messages.every((message) => message.status === 'sent') ? messages : undefined;
      });
      const invitee = sent.find((message) => message.recipient === 'di.crash@example.test')!;
      // What a claim leaves when its instance is killed after the server accepted the message: queued, leased.
      await t.em().execute(
        "update booking_message set status = 'queued', sent_at = null, next_attempt_at = ? where id = ?",
        [new Date(Date.now() + 1500), invitee.id],
      );
      await eventually(() => (mailsTo(mail, 'di.crash@example.test').length === 2 ? true : undefined), 10_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const copies = mailsTo(mail, 'di.crash@example.test');
      expect(copies.map((copy) => copy.parsed.messageId)).toEqual([`<${invitee.id}@localhost>`, `<${invitee.id}@localhost>`]);
      expect((await messagesOf(t, host, res.body.id)).find((message) => message.id === invitee.id)).toMatchObject({ status: 'sent', attempts: 2 });
    } finally {
      await t.close();
      await mail.close();
    }
  });
});

describe('an SMTP server down, then up', () => {
  it('retries with backoff and delivers each message once', async () => {
    const port = await freePort();
    const t = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s,1s,1s' } });
    let mail: MailServer | undefined;
    try {
      const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
      await setSchedule(t.em(), host.id, EVERY_DAY);
      const eventType = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Call', durationsMin: [30], reminders: [] });
      const res = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(host.token))
        .send({ eventTypeId: eventType.body.id, start: startIn(2, 11), durationMin: 30, invitee: { name: 'Bo', email: 'bo.retry@example.test', timezone: 'UTC' } });
      expect(res.status).toBe(201);
      const waiting = await eventually(async () => {
        const messages = await messagesOf(t, host, res.body.id);
        return messages.every((message) => message.attempts >= 1 && message.status === 'queued' && message.lastError) ? messages : undefined;
      });
      expect(waiting[0]!.lastError).toMatch(/ECONNREFUSED|connect/i);

      mail = await startMailServer({ port });
      const sent = await eventually(async () => {
        const messages = await messagesOf(t, host, res.body.id);
        return messages.every((message) => message.status === 'sent') ? messages : undefined;
      });
      // A late duplicate would come within another retry.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(mail.received.map((received) => received.parsed.messageId).sort()).toEqual(sent.map((message) => `<${message.id}@localhost>`).sort());
      expect(sent.every((message) => message.attempts >= 2 && message.lastError === null)).toBe(true);
    } finally {
      await t.close();
      await mail?.close();
    }
  });
});

describe('the messages of a booking on every door', () => {
  let t: TestApp;
  let host: TestUser;
  let other: TestUser;
  let bookingId: string;

  beforeAll(async () => {
    t = await startTestApp();
    host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    other = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const eventType = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Call', durationsMin: [30] });
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId: eventType.body.id, start: startIn(6, 12), durationMin: 30, invitee: { name: 'Cy', email: 'cy.doors@example.test', timezone: 'UTC' } });
    bookingId = res.body.id;
  });
  afterAll(() => t.close());

  it('REST: the owner’s list; another user’s booking is 404; without read:bookings 403; bad ids 400 or 404', async () => {
    const list = await messagesOf(t, host, bookingId);
    expect(list.map((message) => [message.kind, message.audience, message.recipient])).toEqual([
      ['confirmation', 'invitee', 'cy.doors@example.test'],
      ['confirmation', 'host', host.email],
      ['reminder', 'invitee', 'cy.doors@example.test'],
    ]);
    expect((await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(other.token))).status).toBe(404);
    expect((await t.http.get(`/api/v2/bookings/${bookingId}/messages/${list[0]!.id}`).set(...bearer(other.token))).status).toBe(404);
    expect((await t.http.post(`/api/v2/bookings/${bookingId}/messages/${list[0]!.id}/resend`).set(...bearer(other.token))).status).toBe(404);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:event-types'] });
    expect((await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(narrow.token))).status).toBe(403);
    const missing = await t.http.get(`/api/v2/bookings/${bookingId}/messages/nope`).set(...bearer(host.token));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ title: 'Not Found' });
    const tooLong = await t.http.get(`/api/v2/bookings/${'x'.repeat(101)}/messages`).set(...bearer(host.token));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details.length).toBeGreaterThan(0);
  });

  it('MCP: list_booking_messages answers what REST does', async () => {
    const rest = await messagesOf(t, host, bookingId);
    const res = await t.http
      .post('/mcp')
      .set(...bearer(host.token))
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_booking_messages', arguments: { id: bookingId } } });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
    expect(res.body.result.structuredContent.data.map((message: MessageView) => message.id)).toEqual(rest.map((message) => message.id));
  });

  it('tRPC: the same procedure', async () => {
    const res = await t.http
      .get('/trpc/bookings.listMessages')
      .set(...bearer(host.token))
      .query({ input: JSON.stringify({ json: { id: bookingId } }) });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.data).toHaveLength(3);
  });
});

describe('what the log says about e-mail', () => {
  it('never an address, a subject or a body, at the most verbose level, whether a message is sent or refused', async () => {
    const refusedAddress = 'refused.private@example.test';
    const mail = await startMailServer({ refuseRecipient: (address) => (address === refusedAddress ? { code: 550, text: '5.1.1 No such mailbox here' } : undefined) });
    let log = '';
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    const t = await startTestApp({ logStream, env: { SMTP_URL: mail.url, LOG_LEVEL: 'trace' } });
    try {
      const host = await createUserWithToken(t.em(), { timezone: 'UTC', name: 'Priya Private' });
      await setSchedule(t.em(), host.id, EVERY_DAY);
      const eventType = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Confidential chat', durationsMin: [30], reminders: [] });
      const invitee = { name: 'Quentin Quiet', email: 'quentin.private@example.test', timezone: 'UTC' };
      const res = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(host.token))
        .send({ eventTypeId: eventType.body.id, start: startIn(8, 10), durationMin: 30, invitee, guests: [refusedAddress], notes: 'Salary talk' });
      expect(res.status).toBe(201);
      await eventually(async () => {
        const messages = await messagesOf(t, host, res.body.id);
        return messages.every((message) => message.status === 'sent' || message.status === 'failed') ? true : undefined;
      });
      expect(log.length).toBeGreaterThan(0);
      for (const secret of [invitee.email, refusedAddress, host.email, 'Quentin', 'Confidential chat', 'Salary talk', 'No such mailbox']) {
        expect(log, secret).not.toContain(secret);
      }
    } finally {
      await t.close();
      await mail.close();
    }
  });
});
