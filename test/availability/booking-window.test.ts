/**
 * The booking window on a real database, REST and MCP: availability offers only the window's local dates (in the
 * host's zone), booking and rescheduling outside it are 409 in the error shape, and explain names `booking_window`.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee } from '../bookings/fixtures.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';

// Wednesday 2 December 2026, 03:00 UTC: still Tuesday 1 December, 22:00, in New York, where the host works
// Monday to Friday 09:00-17:00 (14:00-22:00 UTC).
const NOW = '2026-12-02T03:00:00Z';
const WEEK = { from: '2026-12-01T00:00:00Z', to: '2026-12-08T00:00:00Z' };

let t: TestApp & { siteUrl: string };
let host: TestUser;
let mcp: McpClient;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW) });
  host = await createUserWithToken(t.em(), { timezone: 'America/New_York' });
  mcp = await connectWithToken(`${t.siteUrl}/mcp`, host.token);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

const newYorkDates = (slots: { start: string }[]) =>
  [...new Set(slots.map((slot) => new Date(slot.start).toLocaleDateString('en-CA', { timeZone: 'America/New_York' })))];

async function availableDates(eventTypeId: string): Promise<string[]> {
  const res = await t.http.get('/api/v2/availability').query({ eventTypeId, ...WEEK }).set(...bearer(host.token));
  expect(res.status).toBe(200);
  return newYorkDates(res.body.data);
}

const book = (eventTypeId: string, start: string) =>
  t.http.post('/api/v2/bookings').set(...bearer(host.token)).send({ eventTypeId, start, durationMin: 30, invitee: invitee() });

describe('a rolling window', () => {
  it('counts from today in the host’s zone: 2 days from New York’s Tuesday are Tuesday and Wednesday', async () => {
    const eventType = await createEventType(t.em(), host.id, { bookingWindow: { type: 'rolling', days: 2 } });
    // Tuesday's hours are over, so only Wednesday is left; without the window the whole week is offered.
    expect(await availableDates(eventType.id)).toEqual(['2026-12-02']);
    const unlimited = await createEventType(t.em(), host.id);
    expect(await availableDates(unlimited.id)).toEqual(['2026-12-02', '2026-12-03', '2026-12-04', '2026-12-07']);

    const outside = await book(eventType.id, '2026-12-03T14:00:00Z');
    expect(outside.status).toBe(409);
    expect(outside.body).toEqual({
      title: 'Conflict',
      message: expect.stringMatching(/booking window.*from 2026-12-01 to 2026-12-02/),
    });
    expect((await book(eventType.id, '2026-12-02T21:30:00Z')).status).toBe(201);
  });

  it('explain names the window, with its dates in the host’s zone (REST and MCP)', async () => {
    const eventType = await createEventType(t.em(), host.id, { bookingWindow: { type: 'rolling', days: 2 } });
    const query = { eventTypeId: eventType.id, start: '2026-12-03T14:00:00Z' };
    const res = await t.http.get('/api/v2/availability/explain').query(query).set(...bearer(host.token));
    expect(res.body).toMatchObject({
      available: false,
      reasons: [{ kind: 'booking_window', hostId: host.id, firstDate: '2026-12-01', lastDate: '2026-12-02' }],
    });
    expect(structured(await mcp.callTool({ name: 'explain_availability', arguments: query }))).toEqual(res.body);
    const inside = await t.http.get('/api/v2/availability/explain').query({ ...query, start: '2026-12-02T14:00:00Z' }).set(...bearer(host.token));
    expect(inside.body).toMatchObject({ available: true, reasons: [] });
  });
});

describe('a range window', () => {
  it('offers its dates only, refuses the others through MCP too, and rescheduling out of it is 409', async () => {
    const eventType = await createEventType(t.em(), host.id, { bookingWindow: { type: 'range', start: '2026-12-04', end: '2026-12-07' } });
    expect(await availableDates(eventType.id)).toEqual(['2026-12-04', '2026-12-07']);
    const viaMcp = structured(await mcp.callTool({ name: 'get_availability', arguments: { eventTypeId: eventType.id, ...WEEK } }));
    expect(newYorkDates(viaMcp.data as { start: string }[])).toEqual(['2026-12-04', '2026-12-07']);

    const refused = errorBody(
      await mcp.callTool({
        name: 'create_booking',
        arguments: { eventTypeId: eventType.id, start: '2026-12-08T14:00:00Z', durationMin: 30, invitee: invitee() },
      }),
    );
    expect(refused).toEqual({ title: 'Conflict', message: expect.stringMatching(/from 2026-12-04 to 2026-12-07/) });

    const booked = await book(eventType.id, '2026-12-04T15:00:00Z');
    expect(booked.status).toBe(201);
    const moved = await t.http
      .post(`/api/v2/bookings/${booked.body.id}/reschedule`)
      .set(...bearer(host.token))
      .send({ start: '2026-12-03T15:00:00Z' });
    expect(moved.status).toBe(409);
    expect(moved.body.message).toMatch(/booking window/);
    const within = await t.http
      .post(`/api/v2/bookings/${booked.body.id}/reschedule`)
      .set(...bearer(host.token))
      .send({ start: '2026-12-07T15:00:00Z' });
    expect(within.status).toBe(200);
  });

  it('a window that has ended offers nothing', async () => {
    const eventType = await createEventType(t.em(), host.id, { bookingWindow: { type: 'range', start: '2026-11-01', end: '2026-11-30' } });
    expect(await availableDates(eventType.id)).toEqual([]);
  });
});
