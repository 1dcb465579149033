import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { type MessageView, publicTrpc } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const DAY = 86_400_000;

/** An event type's `notifications`: on by default; off, its bookings queue no e-mail on any change. */
describe('event types without e-mail', () => {
  let t: TestApp;
  let host: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), host.id, EVERY_DAY);
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) =>
    t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Call', durationsMin: [30], ...body });
  const hourFromNow = (days: number) => new Date(Math.ceil((Date.now() + days * DAY) / 3_600_000) * 3_600_000).toISOString();
  const book = async (eventTypeId: string, start: string, email: string) => {
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(host.token))
      .send({ eventTypeId, start, durationMin: 30, invitee: { name: 'Ivo', email, timezone: 'UTC' } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const messagesOf = async (bookingId: string) => {
    const res = await t.http.get(`/api/v2/bookings/${bookingId}/messages`).set(...bearer(host.token));
    expect(res.status).toBe(200);
    return (res.body.data as MessageView[]).map((message) => [message.kind, message.audience, message.status, message.lastError]);
  };

  it('is on by default, written and read back on REST and MCP, and must be a boolean', async () => {
    const plain = await create({});
    expect(plain.body.notifications).toBe(true);
    const off = await create({ notifications: false });
    expect(off.status).toBe(201);
    expect(off.body.notifications).toBe(false);
    expect((await t.http.get(`/api/v2/event-types/${off.body.id}`).set(...bearer(host.token))).body.notifications).toBe(false);
    const on = await t.http.patch(`/api/v2/event-types/${off.body.id}`).set(...bearer(host.token)).send({ notifications: true });
    expect(on.body.notifications).toBe(true);
    const renamed = await t.http.patch(`/api/v2/event-types/${off.body.id}`).set(...bearer(host.token)).send({ name: 'Renamed' });
    expect(renamed.body.notifications).toBe(true);
    expectBadRequest(await create({ notifications: 'no' }), ['notifications']);

    const mcp = await t.http
      .post('/mcp')
      .set(...bearer(host.token))
      .set('Accept', 'application/json, text/event-stream')
      .set('Content-Type', 'application/json')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'update_event_type', arguments: { id: plain.body.id, notifications: false } } });
    expect(mcp.body.result.structuredContent.notifications).toBe(false);
  });

  it('off: a booking, its move and its cancellation queue nothing, from the API and the public page', async () => {
    const eventTypeId = (await create({ notifications: false, reminders: [{ offsetMin: 60, to: 'both' }] })).body.id as string;
    const bookingId = await book(eventTypeId, hourFromNow(3), 'ivo.off@example.test');
    expect(await messagesOf(bookingId)).toEqual([]);
    const moved = await t.http.post(`/api/v2/bookings/${bookingId}/reschedule`).set(...bearer(host.token)).send({ start: hourFromNow(4) });
    expect(moved.status).toBe(200);
    expect((await t.http.delete(`/api/v2/bookings/${bookingId}`).set(...bearer(host.token))).status).toBe(200);
    expect(await messagesOf(bookingId)).toEqual([]);

    const fromPage = await publicTrpc(t).book({ eventTypeId, start: hourFromNow(5), durationMin: 30, invitee: { name: 'Pia', email: 'pia.off@example.test', timezone: 'UTC' } });
    expect(await messagesOf(fromPage.id)).toEqual([]);
    const rows = await t.em().execute("select 1 from booking_message where recipient in ('ivo.off@example.test', 'pia.off@example.test')");
    expect(rows).toEqual([]);
  });

  it('turned off later: the messages queued before stay, a cancellation still drops the reminder but sends nothing new', async () => {
    const eventTypeId = (await create({})).body.id as string;
    const bookingId = await book(eventTypeId, hourFromNow(3), 'ada.later@example.test');
    const before = await messagesOf(bookingId);
    expect(before.map(([kind, audience]) => [kind, audience])).toEqual([
      ['confirmation', 'invitee'],
      ['confirmation', 'host'],
      ['reminder', 'invitee'],
    ]);
    expect((await t.http.patch(`/api/v2/event-types/${eventTypeId}`).set(...bearer(host.token)).send({ notifications: false })).status).toBe(200);
    expect((await t.http.delete(`/api/v2/bookings/${bookingId}`).set(...bearer(host.token))).status).toBe(200);
    const after = await messagesOf(bookingId);
    expect(after).toHaveLength(3);
    expect(after[2]).toEqual(['reminder', 'invitee', 'skipped', 'not sent: the booking was canceled']);
  });
});
