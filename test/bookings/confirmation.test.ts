/**
 * Bookings that wait for the host: with `requiresConfirmation` a new booking is `pending` and holds its slot; the
 * host confirms or declines it (REST, tRPC, MCP), each change with its webhook event; one still pending at its
 * start is declined by the background worker; a declined booking frees its slot.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { UNCONFIRMED_REASON } from '../../src/modules/bookings/booking-confirmation.service.ts';
import { BEHIND_PROXY, type TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { trpcClient } from '../first-party/support.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import { eventually } from '../webhooks/support.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';

// Sunday 1 March 2026, 12:00 UTC; the host works 9 to 5 UTC on weekdays.
const NOW = '2026-03-01T12:00:00.000Z';
const EVENTS = ['booking.created', 'booking.requested', 'booking.confirmed', 'booking.declined', 'booking.canceled'];

function settableClock(at: string): Clock & { set(at: string): void } {
  let current = new Date(at);
  return { now: () => new Date(current), set: (next) => (current = new Date(next)) };
}

const clock = settableClock(NOW);
let t: TestApp & { siteUrl: string };
let host: TestUser;
let stranger: TestUser;
let eventType: TestEventType;

beforeAll(async () => {
  t = await startListeningApp({ clock, env: { ...BEHIND_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  host = await createUserWithToken(t.em(), { timezone: 'UTC' });
  stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
  eventType = await createEventType(t.em(), host.id, { requiresConfirmation: true });
  const hook = await t.http.post('/api/v2/webhooks').set(...bearer(host.token)).send({ url: 'http://127.0.0.1:9/hook', events: EVENTS });
  expect(hook.status).toBe(201);
});
afterAll(() => t.close());

const book = (start: string, id = eventType.id) =>
  t.http.post('/api/v2/bookings').set(...bearer(host.token)).send({ eventTypeId: id, start, durationMin: 30, invitee: invitee() });
const confirm = (id: string, user = host) => t.http.post(`/api/v2/bookings/${id}/confirm`).set(...bearer(user.token));
const decline = (id: string, body: object = {}, user = host) => t.http.post(`/api/v2/bookings/${id}/decline`).set(...bearer(user.token)).send(body);
const offered = async (start: string) => {
  const res = await t.http
    .get('/api/v2/availability')
    .query({ eventTypeId: eventType.id, from: start, to: new Date(Date.parse(start) + 30 * 60_000).toISOString() })
    .set(...bearer(host.token));
  return res.body.data.length === 1;
};
/**
 * The webhook events written for one booking, oldest first; events of one instant (the test's clock stands
 * still) in the order of the booking's life.
 */
const LIFE = ['booking.requested', 'booking.created', 'booking.confirmed', 'booking.declined', 'booking.canceled'];
const eventsOf = async (bookingId: string) =>
  (
    await t.em().execute<{ type: string; body: string; created_at: string }[]>(
      `select type, body, created_at from webhook_event where owner_id = ? and body::jsonb -> 'data' ->> 'id' = ?`,
      [host.id, bookingId],
    )
  )
    .sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || LIFE.indexOf(a.type) - LIFE.indexOf(b.type))
    .map((event) => ({ type: event.type, data: JSON.parse(event.body).data }));

describe('a booking of an event type that requires confirmation', () => {
  it('is pending, holds its slot, is announced as booking.requested and explained as pending', async () => {
    const res = await book('2026-03-02T09:00:00Z');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', declinedAt: null, declineReason: null });
    expect((await eventsOf(res.body.id)).map((event) => event.type)).toEqual(['booking.requested']);
    expect(await offered('2026-03-02T09:00:00Z')).toBe(false);
    expect((await book('2026-03-02T09:00:00Z')).status).toBe(409);
    const explained = await t.http
      .get('/api/v2/availability/explain')
      .query({ eventTypeId: eventType.id, start: '2026-03-02T09:00:00Z' })
      .set(...bearer(host.token));
    expect(explained.body.reasons).toEqual([{ kind: 'pending', hostId: host.id, bookingId: res.body.id }]);
  });

  it('is listed with status=pending; status=declined and =active filter too; another status is 400', async () => {
    const res = await book('2026-03-02T09:30:00Z');
    const list = async (status: string) =>
      (await t.http.get('/api/v2/bookings').query({ status, eventTypeId: eventType.id }).set(...bearer(host.token))).body.data.map(
        (booking: { id: string }) => booking.id,
      );
    expect(await list('pending')).toContain(res.body.id);
    expect(await list('active')).not.toContain(res.body.id);
    expectBadRequest(await t.http.get('/api/v2/bookings').query({ status: 'waiting' }).set(...bearer(host.token)), 'status');
  });
});

describe('confirming', () => {
  it('makes it active once (booking.confirmed); again is a 200 no-op; declining it then is 409', async () => {
    const { body } = await book('2026-03-02T10:00:00Z');
    const confirmed = await confirm(body.id);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ id: body.id, status: 'active' });
    expect(await confirm(body.id)).toMatchObject({ status: 200, body: confirmed.body });
    expect((await eventsOf(body.id)).map((event) => event.type)).toEqual(['booking.requested', 'booking.confirmed']);
    const refused = await decline(body.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ title: 'Conflict', message: expect.stringMatching(/cancel it instead/) });
    expect(await offered('2026-03-02T10:00:00Z')).toBe(false);
  });

  it('through tRPC, as the dashboard does', async () => {
    const { body } = await book('2026-03-02T10:30:00Z');
    const confirmed = await trpcClient(t.siteUrl, { bearer: host.token }).bookings.confirm.mutate({ id: body.id });
    expect(confirmed.status).toBe('active');
  });
});

describe('declining', () => {
  it('with a reason frees the slot (booking.declined); again is a 200 no-op; confirming it then is 409', async () => {
    const { body } = await book('2026-03-02T11:00:00Z');
    const declined = await decline(body.id, { reason: 'Away that day' });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: 'declined', declinedAt: NOW, declineReason: 'Away that day' });
    expect(await decline(body.id, { reason: 'Another' })).toMatchObject({ status: 200, body: declined.body });
    const events = await eventsOf(body.id);
    expect(events.map((event) => event.type)).toEqual(['booking.requested', 'booking.declined']);
    expect(events[1]!.data).toEqual(declined.body);
    expect((await confirm(body.id)).status).toBe(409);
    expect(await offered('2026-03-02T11:00:00Z')).toBe(true);
    expect((await book('2026-03-02T11:00:00Z')).status).toBe(201);
  });

  it('without a reason (`{}`), and a reason over 500 characters is 400', async () => {
    const { body } = await book('2026-03-02T11:30:00Z');
    expectBadRequest(await decline(body.id, { reason: 'x'.repeat(501) }), ['reason']);
    expect(await decline(body.id)).toMatchObject({ status: 200, body: { status: 'declined', declineReason: null } });
  });

  it('a canceled booking can be neither confirmed nor declined; another user’s is 404', async () => {
    const { body } = await book('2026-03-02T12:00:00Z');
    expect((await confirm(body.id, stranger)).status).toBe(404);
    expect((await decline(body.id, {}, stranger)).status).toBe(404);
    expect((await t.http.delete(`/api/v2/bookings/${body.id}`).set(...bearer(host.token))).body.status).toBe('canceled');
    expect((await confirm(body.id)).status).toBe(409);
    expect((await decline(body.id)).status).toBe(409);
  });
});

describe('through MCP', () => {
  let mcp: McpClient;
  beforeAll(async () => {
    mcp = await connectWithToken(`${t.siteUrl}/mcp`, host.token);
  });
  afterAll(() => mcp.close());

  it('confirm_booking and decline_booking (marked destructive) do what REST does', async () => {
    const tools = (await mcp.listTools()).tools;
    expect(tools.find((tool) => tool.name === 'decline_booking')?.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(tools.find((tool) => tool.name === 'confirm_booking')?.annotations).toMatchObject({ destructiveHint: false });
    const first = await book('2026-03-03T09:00:00Z');
    const second = await book('2026-03-03T10:00:00Z');
    expect(structured(await mcp.callTool({ name: 'confirm_booking', arguments: { id: first.body.id } })).status).toBe('active');
    const declined = structured(await mcp.callTool({ name: 'decline_booking', arguments: { id: second.body.id, reason: 'Full week' } }));
    expect(declined).toMatchObject({ status: 'declined', declineReason: 'Full week' });
    expect(errorBody(await mcp.callTool({ name: 'confirm_booking', arguments: { id: second.body.id } })).title).toBe('Conflict');
  });
});

describe('the public booking page', () => {
  it('makes a pending booking, which its invitee may cancel', async () => {
    const publicCall = (path: string, input: unknown) =>
      t.http.post(`/trpc/publicBooking.${path}`).set('X-Forwarded-For', '203.0.113.21').send(superjson.serialize(input) as object);
    const res = await publicCall('book', { eventTypeId: eventType.id, start: '2026-03-03T11:00:00Z', durationMin: 30, invitee: invitee() });
    const booked = res.body.result.data.json;
    expect(booked.status).toBe('pending');
    const token = booked.links.manage.split('/').at(-1);
    const canceled = await publicCall('cancelManaged', { token });
    expect(canceled.body.result.data.json.booking.status).toBe('canceled');
  });
});

describe('a pending booking nobody confirms', () => {
  it('is declined at its start by the background worker, which frees its slot and sends booking.declined', async () => {
    const { body } = await book('2026-03-04T09:00:00Z');
    const other = await book('2026-03-04T10:00:00Z');
    clock.set('2026-03-04T09:00:00Z');
    const declined = await eventually(async () => {
      const res = await t.http.get(`/api/v2/bookings/${body.id}`).set(...bearer(host.token));
      return res.body.status === 'declined' ? res.body : undefined;
    }, 15_000);
    expect(declined).toMatchObject({ declinedAt: '2026-03-04T09:00:00.000Z', declineReason: UNCONFIRMED_REASON });
    expect((await eventsOf(body.id)).map((event) => event.type)).toEqual(['booking.requested', 'booking.declined']);
    const [block] = await t.em().execute<{ active: boolean }[]>(
      'select bb.active from busy_block bb join booking_busy_block l on l.busy_block_id = bb.id where l.booking_id = ?',
      [body.id],
    );
    expect(block!.active).toBe(false);
    // The later one is still pending, and can still be confirmed before its start.
    expect((await t.http.get(`/api/v2/bookings/${other.body.id}`).set(...bearer(host.token))).body.status).toBe('pending');
    expect((await confirm(other.body.id)).body.status).toBe('active');
    clock.set(NOW);
  });

  it('cannot be confirmed once its start has passed', async () => {
    const { body } = await book('2026-03-05T09:00:00Z');
    clock.set('2026-03-05T09:00:00Z');
    try {
      const res = await confirm(body.id);
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/declined/);
    } finally {
      clock.set(NOW);
    }
  });
});
