import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { startFeedServer } from '../calendars/feed-server.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Midnight UTC a few days ahead, inside the window calendars are synced over. */
const day = Math.floor(Date.now() / DAY) * DAY + 3 * DAY;
const at = (hour: number) => new Date(day + hour * HOUR);
const iso = (hour: number) => at(hour).toISOString();
const icsTime = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function feed(events: [number, number][]): string {
  const body = events.map(
    ([start, end], i) =>
      `BEGIN:VEVENT\r\nUID:e${i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${icsTime(at(start))}\r\nDTEND:${icsTime(at(end))}\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n`,
  );
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body.join('')}END:VCALENDAR\r\n`;
}

describe('GET /api/v2/availability/busy', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof startFeedServer>>;

  beforeAll(async () => {
    server = await startFeedServer();
    t = await startTestApp({ env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' } });
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const busy = (user: TestUser, from = iso(0), to = iso(24)) =>
    t.http.get('/api/v2/availability/busy').query({ from, to }).set(...bearer(user.token));

  /** Connects a feed of `events` for `user` and waits for its first sync. */
  async function connectFeed(user: TestUser, path: string, events: [number, number][], name: string): Promise<string> {
    server.serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(feed(events)));
    const created = await t.http.post('/api/v2/calendar-connections').set(...bearer(user.token)).send({ kind: 'ics', url: server.url(path), name });
    expect(created.status).toBe(201);
    await expect
      .poll(async () => (await t.http.get(`/api/v2/calendar-connections/${created.body.id}`).set(...bearer(user.token))).body.status, { timeout: 8_000 })
      .toBe('ok');
    return created.body.id as string;
  }

  it('lists the meetings booked with you, naming only your own bookings, without their buffers', async () => {
    const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const colleague = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const mine = await createEventType(t.em(), host.id, { durationsMin: [30], bufferBeforeMin: 15 });
    const theirs = await createEventType(t.em(), colleague.id, { durationsMin: [60], kind: 'round_robin' });
    const booking = await createBooking(t.em(), { eventType: mine, startAt: iso(9) });
    await createBooking(t.em(), { eventType: theirs, startAt: iso(13), hostId: host.id });
    await createBooking(t.em(), { eventType: mine, startAt: iso(15), status: 'canceled' });
    await createBooking(t.em(), { eventType: mine, startAt: iso(25) });

    const res = await busy(host);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { source: 'booking', start: iso(9), end: new Date(at(9).getTime() + 30 * 60_000).toISOString(), bookingIds: [booking.id] },
        { source: 'booking', start: iso(13), end: iso(14), bookingIds: [] },
      ],
    });
    expect((await busy(colleague)).body).toEqual({ data: [] });
  });

  it("lists your connected calendars' busy times merged per connection and clipped to the window, while they count", async () => {
    const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const stranger = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const work = await connectFeed(host, '/busy/work.ics', [[10, 11], [10.5, 12], [20, 30]], 'Work');
    await connectFeed(stranger, '/busy/stranger.ics', [[10, 11]], 'Private');

    const res = await busy(host);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { source: 'calendar', start: iso(10), end: iso(12), connectionId: work, connectionName: 'Work' },
      { source: 'calendar', start: iso(20), end: iso(24), connectionId: work, connectionName: 'Work' },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('Dentist');
    expect((await busy(stranger)).body.data.map((item: { connectionName: string }) => item.connectionName)).toEqual(['Private']);

    const connection = await t.http.get(`/api/v2/calendar-connections/${work}`).set(...bearer(host.token));
    const calendarId = connection.body.calendars[0].id as string;
    await t.http.patch(`/api/v2/calendar-connections/${work}`).set(...bearer(host.token)).send({ calendars: [{ id: calendarId, busy: false }] });
    expect((await busy(host)).body).toEqual({ data: [] });
  });

  it('is a tRPC query and an MCP tool answering as REST does', async () => {
    const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const eventType = await createEventType(t.em(), host.id, { durationsMin: [60] });
    await createBooking(t.em(), { eventType, startAt: iso(9) });
    const rest = await busy(host);
    const input = JSON.stringify({ json: { from: iso(0), to: iso(24) } });
    const trpc = await t.http.get('/trpc/availability.busy').query({ input }).set(...bearer(host.token));
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.json).toEqual(rest.body);
    const mcp = await t.http
      .post('/mcp')
      .set(...bearer(host.token))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_busy_times', arguments: { from: iso(0), to: iso(24) } } });
    expect(mcp.status).toBe(200);
    expect(mcp.body.result.structuredContent).toEqual(rest.body);
  });

  it('refuses a bad window (400) and a token without read:availability (403)', async () => {
    const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    for (const [from, to] of [
      [iso(10), iso(9)],
      [iso(0), new Date(day + 32 * DAY).toISOString()],
      ['yesterday', iso(9)],
    ] as const) {
      const res = await busy(host, from, to);
      expect(res.status, `${from} → ${to}`).toBe(400);
      expect(res.body).toMatchObject({ title: expect.any(String), message: expect.any(String), details: expect.any(Array) });
    }
    expect((await t.http.get('/api/v2/availability/busy').query({ from: iso(0) }).set(...bearer(host.token))).status).toBe(400);
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    expect((await busy(narrow)).status).toBe(403);
  });
});
