import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import ical, { type VEvent } from 'node-ical';
import { eventually, type MessageView, publicTrpc } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

/** Without SMTP_URL (the embedded default) every message is produced and kept, and the host can read each one. */
describe('e-mail kept, not sent', () => {
  let t: TestApp;
  let host: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { TRUST_PROXY: 'true', SITE_URL: 'https://scheduling.example.test' } });
    host = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin', name: 'Hana Host' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
    const created = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Consultation', durationsMin: [30] });
    expect(created.body.reminders).toEqual([{ offsetMin: 1440, to: 'invitee' }]);
    eventTypeId = created.body.id;
  });
  afterAll(() => t.close());

  it('marks each due message skipped as kept; a reminder waits for its time', async () => {
    const start = new Date(Math.ceil((Date.now() + 3 * 86_400_000) / 3_600_000) * 3_600_000).toISOString();
    const booking = await publicTrpc(t).book({ eventTypeId, start, durationMin: 30, invitee: { name: 'Ines', email: 'ines.kept@example.test', timezone: 'Asia/Tokyo' } });
    const list = await eventually(async () => {
      const res = await t.http.get(`/api/v2/bookings/${booking.id}/messages`).set(...bearer(host.token));
      const messages = res.body.data as MessageView[];
      return messages.filter((message) => message.kind === 'confirmation').every((message) => message.status === 'skipped') ? messages : undefined;
    });
    expect(list.map((message) => [message.kind, message.audience, message.status, message.lastError])).toEqual([
      ['confirmation', 'invitee', 'skipped', 'kept, not sent: no SMTP server is configured (SMTP_URL)'],
      ['confirmation', 'host', 'skipped', 'kept, not sent: no SMTP server is configured (SMTP_URL)'],
      ['reminder', 'invitee', 'scheduled', null],
    ]);
    expect(list.every((message) => message.attempts === 0 && message.sentAt === null)).toBe(true);

    // Exactly as it would have gone out, the invitation included; the invitee's manage secret masked.
    const invitee = list[0]!;
    const res = await t.http.get(`/api/v2/bookings/${booking.id}/messages/${invitee.id}`).set(...bearer(host.token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      message: { id: invitee.id, status: 'skipped' },
      from: 'Scheduling <no-reply@scheduling.example.test>',
      to: 'ines.kept@example.test',
      subject: 'Confirmed: Consultation with Hana Host',
      messageIdHeader: `<${invitee.id}@scheduling.example.test>`,
    });
    const token = booking.links.manage.split('/').at(-1)!;
    expect(JSON.stringify(res.body)).not.toContain(token);
    expect(res.body.text).toContain('https://scheduling.example.test/book/manage/bkm_…(the invitee’s private link)');
    expect(res.body.text).toContain('(Asia/Tokyo)');
    expect(res.body.html).toMatch(/<!doctype html>/i);
    const event = Object.values(ical.sync.parseICS(res.body.ics)).find((component) => component?.type === 'VEVENT') as VEvent;
    expect(res.body.ics).toMatch(/^METHOD:REQUEST$/m);
    expect(event.uid).toBe(`${booking.id}@scheduling.example.test`);
    expect(event.start.toISOString()).toBe(start);
    expect(event.start.tz).toBe('Asia/Tokyo');

    const hostMessage = await t.http.get(`/api/v2/bookings/${booking.id}/messages/${list[1]!.id}`).set(...bearer(host.token));
    expect(hostMessage.body.ics).toBeNull();
    expect(hostMessage.body.text).toContain('(Europe/Berlin)');

    // Kept is not failed: nothing to resend.
    const resend = await t.http.post(`/api/v2/bookings/${booking.id}/messages/${invitee.id}/resend`).set(...bearer(host.token));
    expect(resend.status).toBe(409);
    expect(resend.body.message).toBe('Only a failed message can be sent again; this one is skipped.');
  });

  it('a booking that rolls back queues nothing', async () => {
    const start = new Date(Math.ceil((Date.now() + 4 * 86_400_000) / 3_600_000) * 3_600_000).toISOString();
    const body = { eventTypeId, start, durationMin: 30, invitee: { name: 'Ana', email: 'ana.kept@example.test', timezone: 'UTC' } };
    expect((await t.http.post('/api/v2/bookings').set(...bearer(host.token)).send(body)).status).toBe(201);
    const taken = await t.http.post('/api/v2/bookings').set(...bearer(host.token)).send({ ...body, invitee: { ...body.invitee, email: 'bo.kept@example.test' } });
    expect(taken.status).toBe(409);
    const rows = await t.em().execute("select 1 from booking_message where recipient = 'bo.kept@example.test'");
    expect(rows).toEqual([]);
  });
});
