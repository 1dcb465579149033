/**
 * Booking series through every door and for teams: tRPC and MCP answer what REST answers (the same procedures),
 * the public booking page books a series with a manage link per occurrence, an Idempotency-Key replays; round
 * robin keeps one host for every occurrence, collective books every host each time.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { BEHIND_PROXY, type TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

// Monday 30 November 2026; hosts work 9 to 5 UTC on weekdays.
const NOW = '2026-11-30T00:00:00.000Z';
const WEEKLY = { frequency: 'weekly' as const, interval: 1, count: 3 };
const MONDAYS = ['2026-12-07T10:00:00.000Z', '2026-12-14T10:00:00.000Z', '2026-12-21T10:00:00.000Z'];

let t: TestApp & { siteUrl: string };
let host: TestUser;
let eventType: TestEventType;
let mcp: McpClient;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW), env: BEHIND_PROXY });
  host = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
  eventType = await createEventType(t.em(), host.id, { recurrence: { maxCount: 6 } });
  mcp = await connectWithToken(`${t.siteUrl}/mcp`, host.token);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

const seriesInput = (startAt: string, id = eventType.id) => ({ eventTypeId: id, startAt, durationMin: 30, invitee: invitee(), recurrence: WEEKLY });
const rest = (body: object, user = host) => t.http.post('/api/v2/booking-series').set(...bearer(user.token)).send(body);
const startsOf = (series: { bookings: { startAt: string }[] }) => series.bookings.map((booking) => booking.startAt);

describe('the same procedures on every door', () => {
  it('tRPC books, reads and cancels a series as REST does', async () => {
    const client = trpcClient(t.siteUrl, { bearer: host.token });
    const series = await client.bookingSeries.create.mutate(seriesInput('2026-12-01T09:00:00Z'));
    expect(startsOf(series)).toEqual(['2026-12-01T09:00:00.000Z', '2026-12-08T09:00:00.000Z', '2026-12-15T09:00:00.000Z']);
    const viaRest = await t.http.get(`/api/v2/booking-series/${series.id}`).set(...bearer(host.token));
    expect(await client.bookingSeries.get.query({ id: series.id })).toEqual(viaRest.body);
    const canceled = await client.bookingSeries.cancel.mutate({ id: series.id, reason: 'tRPC' });
    expect(canceled.bookings.map((booking) => booking.status)).toEqual(['canceled', 'canceled', 'canceled']);
    const taken = await failure(client.bookingSeries.create.mutate({ ...seriesInput('2026-12-01T09:00:00Z'), recurrence: { ...WEEKLY, count: 7 } }));
    expect(taken).toMatchObject({ status: 409, message: expect.stringContaining('1 of the series') });
  });

  it('MCP tools create_booking_series, get_booking_series and cancel_booking_series; a 409 is REST’s body', async () => {
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('create_booking_series')?.description).toContain('Requires scope write:bookings.');
    expect(byName.get('get_booking_series')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('cancel_booking_series')?.annotations).toMatchObject({ destructiveHint: true });

    const created = structured(await mcp.callTool({ name: 'create_booking_series', arguments: seriesInput(MONDAYS[0]!) }));
    expect(startsOf(created as never)).toEqual(MONDAYS);
    expect(structured(await mcp.callTool({ name: 'get_booking_series', arguments: { id: created.id } }))).toEqual(created);

    const again = seriesInput(MONDAYS[0]!);
    const conflict = errorBody(await mcp.callTool({ name: 'create_booking_series', arguments: again }));
    const restConflict = await rest(again);
    expect(restConflict.status).toBe(409);
    expect(conflict).toEqual(restConflict.body);
    expect(conflict.details).toHaveLength(3);

    const canceled = structured(await mcp.callTool({ name: 'cancel_booking_series', arguments: { id: created.id } }));
    expect((canceled.bookings as { status: string }[]).every((booking) => booking.status === 'canceled')).toBe(true);
  });

  it('a series of requests is confirmed or declined at once through MCP and tRPC as through REST; 409 with nothing pending', async () => {
    const requests = await createEventType(t.em(), host.id, { requiresConfirmation: true, recurrence: { maxCount: 6 } });
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('confirm_booking_series')?.description).toContain('Requires scope write:bookings.');
    expect(byName.get('confirm_booking_series')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('decline_booking_series')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('decline_booking_series')?.inputSchema.properties).toHaveProperty('reason');

    // MCP: booked as requests, confirmed at once; the answer is the series, as GET /booking-series/{id} has it.
    const created = structured(await mcp.callTool({ name: 'create_booking_series', arguments: seriesInput('2026-12-01T14:00:00.000Z', requests.id) }));
    expect((created.bookings as { status: string }[]).map((booking) => booking.status)).toEqual(['pending', 'pending', 'pending']);
    const confirmed = structured(await mcp.callTool({ name: 'confirm_booking_series', arguments: { id: created.id } }));
    expect((confirmed.bookings as { status: string }[]).map((booking) => booking.status)).toEqual(['active', 'active', 'active']);
    expect(confirmed).toEqual((await t.http.get(`/api/v2/booking-series/${String(created.id)}`).set(...bearer(host.token))).body);
    const again = errorBody(await mcp.callTool({ name: 'confirm_booking_series', arguments: { id: created.id } }));
    const restAgain = await t.http.post(`/api/v2/booking-series/${String(created.id)}/confirm`).set(...bearer(host.token)).send({});
    expect(restAgain.status).toBe(409);
    expect(again).toEqual(restAgain.body);
    expect(errorBody(await mcp.callTool({ name: 'decline_booking_series', arguments: { id: created.id } }))).toMatchObject({ title: 'Conflict' });

    // tRPC: declined at once with a reason; then nothing is pending.
    const client = trpcClient(t.siteUrl, { bearer: host.token });
    const other = await client.bookingSeries.create.mutate(seriesInput('2026-12-02T14:00:00Z', requests.id));
    const declined = await client.bookingSeries.decline.mutate({ id: other.id, reason: 'Away' });
    expect(declined.bookings.map((booking) => [booking.status, booking.declineReason])).toEqual(Array(3).fill(['declined', 'Away']));
    expect(await failure(client.bookingSeries.confirm.mutate({ id: other.id }))).toMatchObject({ status: 409 });
  });

  it('an Idempotency-Key replays the first answer instead of a 409', async () => {
    const body = seriesInput('2026-12-02T09:00:00Z');
    const first = await rest(body).set('Idempotency-Key', 'series-1');
    expect(first.status).toBe(201);
    const second = await t.http.post('/api/v2/booking-series').set(...bearer(host.token)).set('Idempotency-Key', 'series-1').send(body);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
  });
});

describe('the public booking page', () => {
  const publicCall = (path: string, input: unknown) =>
    t.http.post(`/trpc/publicBooking.${path}`).set('X-Forwarded-For', '203.0.113.41').send(superjson.serialize(input) as object);

  it('shows the event type’s recurrence and books a series, each occurrence with its own manage link', async () => {
    const [slugs] = await t.em().execute<{ user_slug: string; event_type_slug: string }[]>(
      'select u.slug as user_slug, et.slug as event_type_slug from event_type et join app_user u on u.id = et.owner_id where et.id = ?',
      [eventType.id],
    );
    const page = await t.http
      .get('/trpc/publicBooking.eventType')
      .set('X-Forwarded-For', '203.0.113.41')
      .query({ input: JSON.stringify(superjson.serialize({ userSlug: slugs!.user_slug, eventTypeSlug: slugs!.event_type_slug })) });
    expect(page.body.result.data.json.recurrence).toEqual({ maxCount: 6 });

    const res = await publicCall('bookSeries', seriesInput('2026-12-03T09:00:00Z'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const series = res.body.result.data.json;
    expect(series.hostId).toBeUndefined();
    expect(startsOf(series)).toEqual(['2026-12-03T09:00:00.000Z', '2026-12-10T09:00:00.000Z', '2026-12-17T09:00:00.000Z']);
    const manage = series.bookings.map((booking: { links: { manage: string }; calendarEvents?: unknown }) => {
      expect(booking.calendarEvents).toBeUndefined();
      return booking.links.manage;
    });
    expect(new Set(manage).size).toBe(3);

    // The second occurrence's link cancels that occurrence alone.
    const canceled = await publicCall('cancelManaged', { token: manage[1].split('/').at(-1) });
    expect(canceled.body.result.data.json.booking).toMatchObject({ id: series.bookings[1].id, status: 'canceled' });
    const stored = await t.http.get(`/api/v2/booking-series/${series.id}`).set(...bearer(host.token));
    expect(stored.body.bookings.map((booking: { status: string }) => booking.status)).toEqual(['active', 'canceled', 'active']);
  });

  it('a series the event type does not take is the public 409 too', async () => {
    const single = await createEventType(t.em(), host.id);
    const res = await publicCall('bookSeries', seriesInput('2026-12-04T09:00:00Z', single.id));
    expect(res.status).toBe(409);
  });
});

describe('teams', () => {
  async function team(kind: 'round_robin' | 'collective') {
    const members = await Promise.all([0, 1].map(() => createUserWithToken(t.em(), { timezone: 'UTC' })));
    for (const member of members) await setSchedule(t.em(), member.id, WEEKDAYS_9_TO_5);
    const ids = members.map((member) => member.id).sort();
    const owner = members.find((member) => member.id === ids[0])!;
    const other = members.find((member) => member.id === ids[1])!;
    const teamType = await createEventType(t.em(), owner.id, { kind, hosts: ids, recurrence: { maxCount: 6 } });
    return { owner, other, teamType };
  }
  /** `user` busy at `start` through an event type of their own. */
  const busy = async (user: TestUser, start: string) => {
    const own = await createEventType(t.em(), user.id);
    const res = await t.http.post('/api/v2/bookings').set(...bearer(user.token)).send({ eventTypeId: own.id, start, durationMin: 30, invitee: invitee() });
    expect(res.status).toBe(201);
  };

  it('round robin keeps one host for every occurrence: the fairest one free for all of them', async () => {
    const { owner, other, teamType } = await team('round_robin');
    // The owner (fairest by id) is busy on the second date: the other host takes the whole series.
    await busy(owner, '2026-12-08T11:00:00Z');
    const res = await rest(seriesInput('2026-12-01T11:00:00Z', teamType.id), owner);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.hostId).toBe(other.id);
    const hosts = await t.em().execute<{ host_id: string }[]>('select host_id from booking where series_id = ?', [res.body.id]);
    expect(hosts.map((row) => row.host_id)).toEqual([other.id, other.id, other.id]);

    // Each host busy on a different date: no one host is free for all, though each date has a free host. The 409
    // names the dates of the host that came closest (a tie: the fairest, the owner, never booked on this type).
    await busy(owner, '2026-12-08T12:00:00Z');
    await busy(other, '2026-12-15T12:00:00Z');
    const none = await rest(seriesInput('2026-12-01T12:00:00Z', teamType.id), owner);
    expect(none.status).toBe(409);
    expect(none.body.details).toEqual([expect.objectContaining({ code: 'booked', path: ['occurrences', 1], startAt: '2026-12-08T12:00:00.000Z' })]);
  });

  it('collective books every host for every occurrence, and refuses the series when one host is busy once', async () => {
    const { owner, other, teamType } = await team('collective');
    const res = await rest(seriesInput('2026-12-01T13:00:00Z', teamType.id), owner);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [{ blocks }] = await t.em().execute<[{ blocks: number }]>(
      `select count(*)::int as blocks from booking_busy_block l join booking b on b.id = l.booking_id where b.series_id = ?`,
      [res.body.id],
    );
    expect(blocks).toBe(6);
    await busy(other, '2026-12-22T14:00:00Z');
    const refused = await rest(seriesInput('2026-12-08T14:00:00Z', teamType.id), owner);
    expect(refused.status).toBe(409);
    expect(refused.body.details).toEqual([expect.objectContaining({ code: 'booked', startAt: '2026-12-22T14:00:00.000Z' })]);
  });
});
