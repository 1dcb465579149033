/**
 * The booking rules as event type settings: every setting written is returned by every read (REST list and
 * single read, tRPC, MCP), PATCH changes only what it names, and bad rules are a 400 naming the field on each door.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';

const NOW = '2026-06-01T12:00:00.000Z';

let t: TestApp & { siteUrl: string };
let owner: TestUser;
let other: TestUser;
let mcp: McpClient;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW) });
  owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
  other = await createUserWithToken(t.em(), { timezone: 'UTC' });
  mcp = await connectWithToken(`${t.siteUrl}/mcp`, owner.token);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

const create = (body: object) => t.http.post('/api/v2/event-types').set(...bearer(owner.token)).send(body);
const patch = (id: string, body: object) => t.http.patch(`/api/v2/event-types/${id}`).set(...bearer(owner.token)).send(body);
const read = (id: string, user = owner) => t.http.get(`/api/v2/event-types/${id}`).set(...bearer(user.token));

const RULES = {
  minimumNoticeMin: 120,
  slotIntervalMin: 15,
  bookingWindow: { type: 'rolling', days: 30 },
  limits: { perDay: 4, perWeek: 15 },
  cancelNoticeMin: 1440,
  rescheduleNoticeMin: 720,
  requiresConfirmation: true,
  recurrence: { maxCount: 12 },
};

describe('every setting is returned by every read', () => {
  it('creation returns them, as do GET /event-types, GET /event-types/{id}, tRPC and MCP', async () => {
    const created = await create({ name: 'Advice', durationsMin: [30], ...RULES });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...RULES, seatsPerSlot: null });

    const single = await read(created.body.id);
    expect(single.body).toEqual(created.body);
    const list = await t.http.get('/api/v2/event-types').set(...bearer(owner.token));
    expect(list.body.data).toContainEqual(created.body);
    const viaTrpc = await trpcClient(t.siteUrl, { bearer: owner.token }).eventTypes.get.query({ id: created.body.id });
    expect(viaTrpc).toEqual(created.body);
    const viaMcp = structured(await mcp.callTool({ name: 'get_event_type', arguments: { id: created.body.id } }));
    expect(viaMcp).toEqual(created.body);
  });

  it('defaults: no window, no limits, no notice, no approval, no series; a group event type shows its seats', async () => {
    const plain = await create({ name: 'Plain', durationsMin: [30] });
    expect(plain.body).toMatchObject({
      minimumNoticeMin: 0,
      slotIntervalMin: null,
      seatsPerSlot: null,
      bookingWindow: null,
      limits: null,
      cancelNoticeMin: 0,
      rescheduleNoticeMin: 0,
      requiresConfirmation: false,
      recurrence: null,
    });
    const group = await create({ name: 'Class', kind: 'group', durationsMin: [60], seatsPerSlot: 25 });
    expect(group.body.seatsPerSlot).toBe(25);
    expect((await create({ name: 'Class 2', kind: 'group', durationsMin: [60] })).body.seatsPerSlot).toBe(10);
  });
});

describe('PATCH', () => {
  it('changes only the settings sent; null (or {} for limits) removes a rule', async () => {
    const { body } = await create({ name: 'Patched', durationsMin: [30], ...RULES });
    const range = { type: 'range', start: '2026-07-01', end: '2026-07-31' };
    const changed = await patch(body.id, { bookingWindow: range, limits: { perMonth: 20 } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ ...RULES, bookingWindow: range, limits: { perMonth: 20 } });
    const cleared = await patch(body.id, { bookingWindow: null, limits: {}, recurrence: null, requiresConfirmation: false, cancelNoticeMin: 0 });
    expect(cleared.body).toMatchObject({ bookingWindow: null, limits: null, recurrence: null, requiresConfirmation: false, cancelNoticeMin: 0 });
    expect((await read(body.id)).body).toEqual(cleared.body);
    const [row] = await t.em().execute('select booking_window_days, limit_per_month, recurrence_max_count from event_type where id = ?', [body.id]);
    expect(row).toEqual({ booking_window_days: null, limit_per_month: null, recurrence_max_count: null });
  });

  it('a one-day range (end = start) is a window', async () => {
    const { body } = await create({ name: 'One day', durationsMin: [30] });
    const res = await patch(body.id, { bookingWindow: { type: 'range', start: '2026-07-01', end: '2026-07-01' } });
    expect(res.status).toBe(200);
  });

  it('another user’s event type is 404 and unchanged', async () => {
    const { body } = await create({ name: 'Mine', durationsMin: [30] });
    const res = await t.http.patch(`/api/v2/event-types/${body.id}`).set(...bearer(other.token)).send({ limits: { perDay: 1 } });
    expect(res.status).toBe(404);
    expect((await read(body.id)).body.limits).toBeNull();
    expect((await read(body.id, other)).status).toBe(404);
  });
});

describe('bad rules are a 400 naming the field', () => {
  const cases: [string, object, (string | number)[]][] = [
    ['a range ending before it starts', { bookingWindow: { type: 'range', start: '2026-07-10', end: '2026-07-09' } }, ['bookingWindow', 'end']],
    ['a date that does not exist', { bookingWindow: { type: 'range', start: '2026-02-30', end: '2026-03-09' } }, ['bookingWindow', 'start']],
    ['a rolling window of 0 days', { bookingWindow: { type: 'rolling', days: 0 } }, ['bookingWindow', 'days']],
    ['an unknown kind of window', { bookingWindow: { type: 'weekly', days: 3 } }, ['bookingWindow', 'type']],
    ['a daily limit of 0', { limits: { perDay: 0 } }, ['limits', 'perDay']],
    ['a weekly limit of -1', { limits: { perWeek: -1 } }, ['limits', 'perWeek']],
    ['a monthly limit that is not a whole number', { limits: { perMonth: 1.5 } }, ['limits', 'perMonth']],
    ['a misspelt limit', { limits: { perDays: 2 } }, ['limits']],
    ['a series of 1', { recurrence: { maxCount: 1 } }, ['recurrence', 'maxCount']],
    ['a series of 53', { recurrence: { maxCount: 53 } }, ['recurrence', 'maxCount']],
    ['a negative cancel notice', { cancelNoticeMin: -5 }, ['cancelNoticeMin']],
    ['a reschedule notice over a year', { rescheduleNoticeMin: 525_601 }, ['rescheduleNoticeMin']],
    ['approval that is not a boolean', { requiresConfirmation: 'yes' }, ['requiresConfirmation']],
  ];

  it.each(cases)('%s: on create and on PATCH, and nothing is stored', async (_name, rule, path) => {
    expectBadRequest(await create({ name: 'Bad', durationsMin: [30], ...rule }), path);
    const { body } = await create({ name: 'Good', durationsMin: [30] });
    expectBadRequest(await patch(body.id, rule), path);
    expect((await read(body.id)).body).toEqual(body);
  });

  it('through tRPC and MCP too', async () => {
    const bad = { name: 'Bad', durationsMin: [30], bookingWindow: { type: 'range' as const, start: '2026-07-10', end: '2026-07-09' } };
    const viaTrpc = await failure(trpcClient(t.siteUrl, { bearer: owner.token }).eventTypes.create.mutate(bad));
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.message).toMatch(/end/);
    const viaMcp = errorBody(await mcp.callTool({ name: 'create_event_type', arguments: { ...bad, limits: { perDay: 0 } } }));
    expect(viaMcp.title).toBe('Bad Request');
    expect(viaMcp.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: ['bookingWindow', 'end'] }),
        expect.objectContaining({ path: ['limits', 'perDay'] }),
      ]),
    );
  });
});
