/**
 * Limits per day, week and month on a real database: counted per host in the host's zone over active and pending
 * bookings (seats of group slots each), refused with a 409 on REST and MCP, hidden from availability, named by
 * explain; round robin assigns only hosts under their limit; concurrent bookings never exceed a limit.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import { invitee, setSchedule } from './fixtures.ts';

// Monday 30 November 2026, 00:00 UTC (09:00 in Tokyo).
const NOW = '2026-11-30T00:00:00Z';
const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, ALL_DAY]));

let t: TestApp & { siteUrl: string };

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW) });
});
afterAll(() => t.close());

/** A host bookable around the clock in `timezone`, with an event type of 30-minute slots and these rules. */
async function hostWith(options: EventTypeOptions, timezone = 'Asia/Tokyo') {
  const user = await createUserWithToken(t.em(), { timezone });
  await setSchedule(t.em(), user.id, EVERY_DAY);
  const eventType = await createEventType(t.em(), user.id, { durationsMin: [30], ...options });
  return { user, eventType };
}

const book = (user: TestUser, eventTypeId: string, start: string, durationMin = 30) =>
  t.http.post('/api/v2/bookings').set(...bearer(user.token)).send({ eventTypeId, start, durationMin, invitee: invitee() });

async function slotStarts(user: TestUser, eventTypeId: string, from: string, to: string): Promise<string[]> {
  const res = await t.http.get('/api/v2/availability').query({ eventTypeId, from, to }).set(...bearer(user.token));
  expect(res.status).toBe(200);
  return res.body.data.map((slot: { start: string }) => slot.start);
}

const explain = async (user: TestUser, eventTypeId: string, start: string) =>
  (await t.http.get('/api/v2/availability/explain').query({ eventTypeId, start }).set(...bearer(user.token))).body;

describe('a daily limit', () => {
  it('counts the host’s local day: bookings at 15:00 UTC and 14:30 UTC the next day are both on Tokyo’s 1 December', async () => {
    const { user, eventType } = await hostWith({ limits: { perDay: 2 } });
    expect((await book(user, eventType.id, '2026-11-30T15:00:00Z')).status).toBe(201);
    expect((await book(user, eventType.id, '2026-12-01T14:30:00Z')).status).toBe(201);

    const third = await book(user, eventType.id, '2026-12-01T03:00:00Z');
    expect(third.status).toBe(409);
    expect(third.body).toEqual({ title: 'Conflict', message: expect.stringMatching(/at most 2 bookings a day per host.*2026-12-01 is full/) });

    // Tokyo's 30 November and 2 December stay open on either side of the full day.
    const starts = await slotStarts(user, eventType.id, '2026-11-30T14:00:00Z', '2026-12-01T16:00:00Z');
    expect(starts).toContain('2026-11-30T14:30:00.000Z');
    expect(starts.filter((start) => start >= '2026-11-30T15:00:00.000Z' && start < '2026-12-01T15:00:00.000Z')).toEqual([]);
    expect(starts).toContain('2026-12-01T15:00:00.000Z');
    expect((await book(user, eventType.id, '2026-12-01T15:00:00Z')).status).toBe(201);

    expect(await explain(user, eventType.id, '2026-12-01T03:00:00Z')).toMatchObject({
      available: false,
      reasons: [{ kind: 'daily_limit', hostId: user.id, limit: 2, firstDate: '2026-12-01', lastDate: '2026-12-01' }],
    });
  });

  it('counts pending bookings, not canceled or declined ones; a cancellation opens the day again', async () => {
    const { user, eventType } = await hostWith({ limits: { perDay: 2 } });
    await createBooking(t.em(), { eventType, startAt: '2026-12-02T01:00:00Z', status: 'pending' });
    await createBooking(t.em(), { eventType, startAt: '2026-12-02T02:00:00Z', status: 'canceled' });
    await createBooking(t.em(), { eventType, startAt: '2026-12-02T03:00:00Z', status: 'declined' });
    const active = await book(user, eventType.id, '2026-12-02T04:00:00Z');
    expect(active.status).toBe(201);
    expect((await book(user, eventType.id, '2026-12-02T05:00:00Z')).status).toBe(409);
    expect((await t.http.delete(`/api/v2/bookings/${active.body.id}`).set(...bearer(user.token))).status).toBe(200);
    expect((await book(user, eventType.id, '2026-12-02T05:00:00Z')).status).toBe(201);
  });

  it('counts this event type only, and a booking may move within its own full day', async () => {
    const { user, eventType } = await hostWith({ limits: { perDay: 1 } });
    const other = await createEventType(t.em(), user.id, { durationsMin: [30] });
    expect((await book(user, other.id, '2026-12-03T01:00:00Z')).status).toBe(201);
    const booked = await book(user, eventType.id, '2026-12-03T02:00:00Z');
    expect(booked.status).toBe(201);
    const moved = await t.http.post(`/api/v2/bookings/${booked.body.id}/reschedule`).set(...bearer(user.token)).send({ start: '2026-12-03T05:00:00Z' });
    expect(moved.status).toBe(200);
  });

  it('counts each seat of a group slot', async () => {
    const { user, eventType } = await hostWith({ kind: 'group', seatsPerSlot: 5, limits: { perDay: 2 } });
    expect((await book(user, eventType.id, '2026-12-04T01:00:00Z')).status).toBe(201);
    expect((await book(user, eventType.id, '2026-12-04T01:00:00Z')).status).toBe(201);
    const third = await book(user, eventType.id, '2026-12-04T01:00:00Z');
    expect(third.status).toBe(409);
    expect(third.body.message).toMatch(/2026-12-04 is full/);
  });
});

describe('weekly and monthly limits', () => {
  it('a week runs Monday to Sunday in the host’s zone', async () => {
    const { user, eventType } = await hostWith({ limits: { perWeek: 2 } }, 'UTC');
    expect((await book(user, eventType.id, '2026-11-30T09:00:00Z')).status).toBe(201);
    expect((await book(user, eventType.id, '2026-12-06T23:30:00Z')).status).toBe(201);
    const refused = await book(user, eventType.id, '2026-12-03T09:00:00Z');
    expect(refused.body.message).toMatch(/at most 2 bookings a week.*from 2026-11-30 to 2026-12-06 is full/);
    expect(await slotStarts(user, eventType.id, '2026-12-01T00:00:00Z', '2026-12-07T00:00:00Z')).toEqual([]);
    expect((await slotStarts(user, eventType.id, '2026-12-07T00:00:00Z', '2026-12-08T00:00:00Z')).length).toBe(48);
    expect(await explain(user, eventType.id, '2026-12-05T10:00:00Z')).toMatchObject({
      reasons: [{ kind: 'weekly_limit', limit: 2, firstDate: '2026-11-30', lastDate: '2026-12-06' }],
    });
  });

  it('a month is the calendar month of the host’s zone', async () => {
    const { user, eventType } = await hostWith({ limits: { perMonth: 1 } }, 'America/Los_Angeles');
    // 1 December 05:00 UTC is still 30 November in Los Angeles.
    expect((await book(user, eventType.id, '2026-12-01T05:00:00Z')).status).toBe(201);
    expect((await book(user, eventType.id, '2026-11-30T20:00:00Z')).status).toBe(409);
    expect((await book(user, eventType.id, '2026-12-01T09:00:00Z')).status).toBe(201);
    expect(await explain(user, eventType.id, '2026-12-20T18:00:00Z')).toMatchObject({
      reasons: [{ kind: 'monthly_limit', limit: 1, firstDate: '2026-12-01', lastDate: '2026-12-31' }],
    });
  });
});

describe('round robin', () => {
  it('offers and assigns only hosts under their limit', async () => {
    const owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const colleague = await createUserWithToken(t.em(), { timezone: 'UTC' });
    for (const user of [owner, colleague]) await setSchedule(t.em(), user.id, EVERY_DAY);
    const eventType = await createEventType(t.em(), owner.id, {
      kind: 'round_robin',
      hosts: [owner.id, colleague.id],
      durationsMin: [30],
      limits: { perDay: 1 },
    });
    const first = await book(owner, eventType.id, '2026-12-02T09:00:00Z');
    const second = await book(owner, eventType.id, '2026-12-02T09:00:00Z');
    expect([first.status, second.status]).toEqual([201, 201]);
    const hosts = await t.em().execute<{ host_id: string }[]>('select host_id from booking where event_type_id = ?', [eventType.id]);
    expect(hosts.map((row) => row.host_id).sort()).toEqual([owner.id, colleague.id].sort());
    expect(await slotStarts(owner, eventType.id, '2026-12-02T00:00:00Z', '2026-12-03T00:00:00Z')).toEqual([]);
    expect((await book(owner, eventType.id, '2026-12-02T15:00:00Z')).status).toBe(409);
    const explained = await explain(owner, eventType.id, '2026-12-02T15:00:00Z');
    expect(explained.hosts).toEqual(expect.arrayContaining([{ hostId: owner.id, available: false }, { hostId: colleague.id, available: false }]));
    expect(explained.reasons.map((reason: { kind: string }) => reason.kind)).toEqual(['daily_limit', 'daily_limit']);
  });
});

describe('through MCP', () => {
  let mcp: McpClient;
  let user: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    ({ user, eventType: { id: eventTypeId } } = await hostWith({ limits: { perDay: 1 } }));
    mcp = await connectWithToken(`${t.siteUrl}/mcp`, user.token);
  });
  afterAll(() => mcp.close());

  it('a full day is a 409 tool error and explain_availability names the limit', async () => {
    const args = { eventTypeId, durationMin: 30, invitee: invitee() };
    structured(await mcp.callTool({ name: 'create_booking', arguments: { ...args, start: '2026-12-05T01:00:00Z' } }));
    const refused = errorBody(await mcp.callTool({ name: 'create_booking', arguments: { ...args, start: '2026-12-05T02:00:00Z' } }));
    expect(refused).toEqual({ title: 'Conflict', message: expect.stringMatching(/at most 1 booking a day/) });
    const explained = structured(await mcp.callTool({ name: 'explain_availability', arguments: { eventTypeId, start: '2026-12-05T02:00:00Z' } }));
    expect(explained.reasons).toEqual([{ kind: 'daily_limit', hostId: user.id, limit: 1, firstDate: '2026-12-05', lastDate: '2026-12-05' }]);
  });
});

describe('under concurrency', () => {
  it('50 simultaneous bookings of 50 different slots on one day with perDay 3: exactly three 201, the rest 409', async () => {
    const { user, eventType } = await hostWith({ durationsMin: [15], limits: { perDay: 3 } }, 'UTC');
    const starts = Array.from({ length: 50 }, (_, i) => new Date(Date.parse('2026-12-09T00:00:00Z') + i * 15 * 60_000).toISOString());
    const responses = await Promise.all(starts.map((start) => book(user, eventType.id, start, 15)));
    const statuses = responses.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(47);
    const [row] = await t.em().execute<{ n: number }[]>("select count(*)::int as n from booking where event_type_id = ? and status = 'active'", [eventType.id]);
    expect(row!.n).toBe(3);
  });
});
