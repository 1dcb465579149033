import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitee, setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType, type EventTypeOptions } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { calendarWithEtag, startFeedServer } from './feed-server.ts';
import { until } from '../helpers/until.ts';

const DAY = 86_400_000;
const EVERY_DAY_9_TO_17 = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '09:00', end: '17:00' }]]),
);
/** A secret-looking path, as feed providers hand them out. */
const SECRET = 'private-7f3a9c1e5b2d4f6a8c0e';

/** A UTC day a few days ahead (host zone UTC, 09:00-17:00 every day). */
const day = new Date(Math.floor(Date.now() / DAY) * DAY + 3 * DAY);
const at = (hour: number) => new Date(day.getTime() + hour * 3_600_000);
const icsTime = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function feed(events: { uid: string; start: Date; end: Date }[]): string {
  const body = events.map(
    (event) =>
      `BEGIN:VEVENT\r\nUID:${event.uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${icsTime(event.start)}\r\nDTEND:${icsTime(event.end)}\r\nSUMMARY:Private meeting\r\nEND:VEVENT\r\n`,
  );
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body.join('')}END:VCALENDAR\r\n`;
}

describe('connected calendars (iCalendar feeds)', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  let host: TestUser;
  let other: TestUser;
  const log = new PassThrough();
  let logText = '';
  log.on('data', (chunk: Buffer) => {
    logText += chunk.toString();
  });

  beforeAll(async () => {
    server = await startFeedServer();
    t = await startTestApp({
      env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h', LOG_LEVEL: 'info' },
      logStream: log,
    });
    host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    other = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), host.id, EVERY_DAY_9_TO_17);
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const create = (user: TestUser, body: object) => t.http.post('/api/v2/calendar-connections').set(...bearer(user.token)).send(body);
  const read = (user: TestUser, id: string) => t.http.get(`/api/v2/calendar-connections/${id}`).set(...bearer(user.token));
  const synced = (user: TestUser, id: string) =>
    until(
      () => read(user, id),
      (res) => res.body.status !== 'pending' && res.body.lastSyncedAt !== null,
    );
  const syncedAgain = (user: TestUser, id: string, after: string | null) =>
    until(
      () => read(user, id),
      (res) => res.body.status === 'error' || (res.body.lastSyncedAt !== null && res.body.lastSyncedAt !== after),
    );
  const availability = (user: TestUser, eventTypeId: string) =>
    t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: at(0).toISOString(), to: at(24).toISOString() })
      .set(...bearer(user.token));
  const startsOf = (res: { body: { data: { start: string }[] } }) => res.body.data.map((slot) => slot.start);
  const book = (user: TestUser, eventTypeId: string, start: Date) =>
    t.http
      .post('/api/v2/bookings')
      .set(...bearer(user.token))
      .send({ eventTypeId, start: start.toISOString(), durationMin: 60, invitee: invitee() });
  async function eventTypeOf(user: TestUser, options: EventTypeOptions = {}) {
    return (await createEventType(t.em(), user.id, { durationsMin: [60], ...options })).id;
  }

  it('creates a pending connection without waiting, masks its URL, and syncs it to ok at once', async () => {
    const path = `/google/${SECRET}/basic.ics`;
    server.serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(feed([])));
    const created = await create(host, { kind: 'ics', url: server.url(path), name: 'Work' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'ics', name: 'Work', status: 'pending', lastSyncedAt: null, lastError: null });
    expect(created.body.calendars).toEqual([{ id: expect.any(String), name: 'Work', busy: true, bookingTarget: false }]);
    expect(created.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/….ics$/);
    expect(JSON.stringify(created.body)).not.toContain(SECRET);

    const done = await synced(host, created.body.id);
    expect(done.body).toMatchObject({ status: 'ok', lastError: null });

    const [row] = await t.em().execute('select * from calendar_connection where id = ?', [created.body.id]);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(logText).toContain('/api/v2/calendar-connections');
    expect(logText).not.toContain(SECRET);
  });

  it('lists, reads, renames and deletes; another user sees a 404; a booking target is refused', async () => {
    server.serve('/plain.ics', (_req, res) => res.writeHead(200).end(feed([])));
    const created = await create(host, { kind: 'ics', url: server.url('/plain.ics') });
    const id = created.body.id as string;
    expect(created.body.name).toBe('127.0.0.1');

    const list = await t.http.get('/api/v2/calendar-connections').set(...bearer(host.token));
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(id);
    expect((await read(other, id)).status).toBe(404);
    expect((await t.http.delete(`/api/v2/calendar-connections/${id}`).set(...bearer(other.token))).status).toBe(404);

    const calendarId = created.body.calendars[0].id as string;
    const renamed = await t.http
      .patch(`/api/v2/calendar-connections/${id}`)
      .set(...bearer(host.token))
      .send({ name: 'Home', calendars: [{ id: calendarId, busy: false }] });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Home', calendars: [{ id: calendarId, busy: false, bookingTarget: false }] });
    const target = await t.http
      .patch(`/api/v2/calendar-connections/${id}`)
      .set(...bearer(host.token))
      .send({ calendars: [{ id: calendarId, bookingTarget: true }] });
    expect(target.status).toBe(400);
    expect(JSON.stringify(target.body)).toContain('read-only');

    const sync = await t.http.post(`/api/v2/calendar-connections/${id}/sync`).set(...bearer(host.token));
    expect(sync.status).toBe(202);

    expect((await t.http.delete(`/api/v2/calendar-connections/${id}`).set(...bearer(host.token))).status).toBe(204);
    expect((await read(host, id)).status).toBe(404);
  });

  it('refuses an http URL or a private address unless allowed, and an 11th connection', async () => {
    const strict = await startTestApp({ database: t.database });
    try {
      const user = await createUserWithToken(strict.em());
      const refused = await strict.http
        .post('/api/v2/calendar-connections')
        .set(...bearer(user.token))
        .send({ kind: 'ics', url: server.url('/plain.ics') });
      expect(refused.status).toBe(400);
      const local = await strict.http
        .post('/api/v2/calendar-connections')
        .set(...bearer(user.token))
        .send({ kind: 'ics', url: 'https://127.0.0.1/feed.ics' });
      expect(local.status).toBe(400);
    } finally {
      await strict.close();
    }
    const many = await createUserWithToken(t.em());
    for (let i = 0; i < 10; i++) expect((await create(many, { kind: 'ics', url: server.url('/plain.ics') })).status).toBe(201);
    expect((await create(many, { kind: 'ics', url: server.url('/plain.ics') })).status).toBe(409);
  });

  it("removes a feed's busy times from availability and refuses a booking there; deleting the connection frees them", async () => {
    const eventTypeId = await eventTypeOf(host);
    const before = await availability(host, eventTypeId);
    expect(startsOf(before)).toContain(at(10).toISOString());

    const path = '/outlook/busy.ics';
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([{ uid: 'a', start: at(10), end: at(11) }])));
    const created = await create(host, { kind: 'ics', url: server.url(path) });
    await synced(host, created.body.id);

    const after = await availability(host, eventTypeId);
    expect(startsOf(after)).not.toContain(at(10).toISOString());
    expect(startsOf(after)).toContain(at(11).toISOString());
    expect(after.body.hosts).toEqual([
      { hostId: host.id, connections: expect.arrayContaining([{ id: created.body.id, status: 'ok', lastSyncedAt: expect.any(String) }]) },
    ]);
    expect((await book(host, eventTypeId, at(10))).status).toBe(409);
    // The explanation names the connection, never the event.
    const explained = await t.http
      .get('/api/v2/availability/explain')
      .query({ eventTypeId, start: at(10).toISOString(), durationMin: 60 })
      .set(...bearer(host.token));
    expect(explained.status).toBe(200);
    expect(explained.body).toMatchObject({
      available: false,
      reasons: [{ kind: 'calendar_busy', hostId: host.id, connectionId: created.body.id, connectionName: created.body.name }],
    });

    // A calendar no longer marked busy stops counting at once, and counts again when marked.
    const patch = (busy: boolean) =>
      t.http
        .patch(`/api/v2/calendar-connections/${created.body.id}`)
        .set(...bearer(host.token))
        .send({ calendars: [{ id: created.body.calendars[0].id, busy }] });
    expect((await patch(false)).status).toBe(200);
    expect(startsOf(await availability(host, eventTypeId))).toContain(at(10).toISOString());
    expect((await patch(true)).status).toBe(200);
    expect(startsOf(await availability(host, eventTypeId))).not.toContain(at(10).toISOString());

    await t.http.delete(`/api/v2/calendar-connections/${created.body.id}`).set(...bearer(host.token));
    expect(startsOf(await availability(host, eventTypeId))).toContain(at(10).toISOString());
    expect((await book(host, eventTypeId, at(10))).status).toBe(201);
  });

  it('reads busy time across midnight, over several days and off the whole minute as exactly as its events', async () => {
    const allDay = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const days = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
    await setSchedule(t.em(), allDay.id, Object.fromEntries(days.map((name) => [name, [{ start: '00:00', end: '24:00' }]])));
    const eventTypeId = (await createEventType(t.em(), allDay.id, { durationsMin: [30] })).id;
    const second = 1_000;
    const path = '/edges/busy.ics';
    server.serve(path, (_req, res) =>
      res.writeHead(200).end(
        feed([
          { uid: 'midnight', start: at(23.5), end: at(24.5) },
          { uid: 'seconds', start: new Date(at(10).getTime() + 30 * second), end: new Date(at(10.5).getTime() - 30 * second) },
          { uid: 'days', start: at(24 + 22), end: at(72 + 2) },
        ]),
      ),
    );
    const created = await create(allDay, { kind: 'ics', url: server.url(path) });
    await synced(allDay, created.body.id);
    const res = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: at(0).toISOString(), to: at(96).toISOString() })
      .set(...bearer(allDay.token));
    const starts = new Set(startsOf(res));
    const offered = (hour: number) => starts.has(at(hour).toISOString());
    // Rounded outward: 10:00:30-10:29:30 takes the 10:00 slot only.
    expect([9.5, 10, 10.5].map(offered)).toEqual([true, false, true]);
    expect([23, 23.5, 24, 24.5].map(offered)).toEqual([true, false, false, true]);
    // From 22:00 on the next day to 02:00 two days later: nothing in between.
    expect([45.5, 46, 60, 73.5, 74].map(offered)).toEqual([true, false, false, false, true]);
    expect(startsOf(res).filter((start) => Date.parse(start) >= at(46).getTime() && Date.parse(start) < at(74).getTime())).toEqual([]);

    // The next sync finds the long event gone: its days are free again, the rest stays busy.
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([{ uid: 'midnight', start: at(23.5), end: at(24.5) }])));
    const before = (await read(allDay, created.body.id)).body.lastSyncedAt;
    await t.http.post(`/api/v2/calendar-connections/${created.body.id}/sync`).set(...bearer(allDay.token)).send({});
    await syncedAgain(allDay, created.body.id, before);
    const again = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: at(0).toISOString(), to: at(96).toISOString() })
      .set(...bearer(allDay.token));
    const startsAgain = new Set(startsOf(again));
    expect([10, 23.5, 24, 46, 60, 73.5].map((hour) => startsAgain.has(at(hour).toISOString()))).toEqual([true, false, false, true, true, true]);

    await t.http.delete(`/api/v2/calendar-connections/${created.body.id}`).set(...bearer(allDay.token));
    const [left] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from calendar_busy_day where host_id = ?', [allDay.id]);
    expect(left?.n).toBe(0);
  });

  it("the public booking page offers the same slots, and says nothing of the host's calendars", async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const eventTypeId = await eventTypeOf(user);
    server.serve('/public.ics', (_req, res) => res.writeHead(200).end(feed([{ uid: 'p', start: at(11), end: at(12) }])));
    const created = await create(user, { kind: 'ics', url: server.url('/public.ics'), name: 'Therapy sessions' });
    await synced(user, created.body.id);
    // The owner's answer says what it knows; the public one never names, counts or dates a calendar.
    const owners = await availability(user, eventTypeId);
    expect(owners.body.hosts).toHaveLength(1);
    const input = { eventTypeId, from: at(0).toISOString(), to: at(24).toISOString() };
    const publicly = await t.http.get('/trpc/publicBooking.availability').query({ input: JSON.stringify({ json: input }) });
    expect(publicly.status).toBe(200);
    const answer = publicly.body.result.data.json;
    expect(Object.keys(answer)).toEqual(['data']);
    expect(answer.data).toEqual(owners.body.data);
    expect(startsOf({ body: answer })).not.toContain(at(11).toISOString());
    const text = JSON.stringify(publicly.body);
    for (const secret of [created.body.id, created.body.calendars[0].id, 'Therapy', 'lastSyncedAt', user.id]) expect(text).not.toContain(secret);
  });

  it('round robin assigns a free host; collective offers only times all hosts are free', async () => {
    const a = await createUserWithToken(t.em(), { timezone: 'UTC' });
    const b = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), a.id, EVERY_DAY_9_TO_17);
    await setSchedule(t.em(), b.id, EVERY_DAY_9_TO_17);
    server.serve('/a.ics', (_req, res) => res.writeHead(200).end(feed([{ uid: 'x', start: at(13), end: at(14) }])));
    const connection = await create(a, { kind: 'ics', url: server.url('/a.ics') });
    await synced(a, connection.body.id);

    const roundRobin = await eventTypeOf(a, { kind: 'round_robin', hosts: [a.id, b.id] });
    // Give b the latest booking, so that round robin would pick a next were it not for a's calendar.
    const hostOf = async (bookingId: string) =>
      (await t.em().execute<{ host_id: string }[]>('select host_id from booking where id = ?', [bookingId]))[0]!.host_id;
    if ((await hostOf((await book(a, roundRobin, at(9))).body.id)) !== b.id) {
      expect(await hostOf((await book(a, roundRobin, at(10))).body.id)).toBe(b.id);
    }
    expect(startsOf(await availability(a, roundRobin))).toContain(at(13).toISOString());
    const booked = await book(a, roundRobin, at(13));
    expect(booked.status).toBe(201);
    expect(await hostOf(booked.body.id)).toBe(b.id);

    const collective = await eventTypeOf(a, { kind: 'collective', hosts: [a.id, b.id] });
    expect(startsOf(await availability(a, collective))).not.toContain(at(13).toISOString());
    expect((await book(a, collective, at(13))).status).toBe(409);
  });

  it('sends the ETag back: a 304 keeps the stored busy times', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const path = '/etag.ics';
    server.serve(path, calendarWithEtag(feed([{ uid: 'e', start: at(9), end: at(10) }]), '"v1"'));
    const created = await create(user, { kind: 'ics', url: server.url(path) });
    const first = await synced(user, created.body.id);
    const hits = server.hits(path);

    await t.http.post(`/api/v2/calendar-connections/${created.body.id}/sync`).set(...bearer(user.token)).send({});
    const second = await syncedAgain(user, created.body.id, first.body.lastSyncedAt);
    expect(second.body.status).toBe('ok');
    expect(server.hits(path)).toBe(hits + 1);
    const [busy] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from calendar_busy where connection_id = ?', [created.body.id]);
    expect(busy!.n).toBe(1);
    expect(startsOf(await availability(user, await eventTypeOf(user)))).not.toContain(at(9).toISOString());
  });

  it('a feed that is not iCalendar, or a 404, turns the connection error and keeps the last good busy times', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const path = '/changing.ics';
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([{ uid: 'k', start: at(15), end: at(16) }])));
    const created = await create(user, { kind: 'ics', url: server.url(path) });
    const good = await synced(user, created.body.id);
    expect(good.body.status).toBe('ok');

    server.serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>'));
    await t.http.post(`/api/v2/calendar-connections/${created.body.id}/sync`).set(...bearer(user.token));
    const broken = await until(() => read(user, created.body.id), (res) => res.body.status === 'error');
    expect(broken.body.lastError).toContain('not a readable iCalendar document');
    expect(broken.body.lastSyncedAt).toBe(good.body.lastSyncedAt);
    expect(startsOf(await availability(user, await eventTypeOf(user)))).not.toContain(at(15).toISOString());

    server.serve(path, (_req, res) => res.writeHead(404).end());
    await t.http.post(`/api/v2/calendar-connections/${created.body.id}/sync`).set(...bearer(user.token));
    const missing = await until(() => read(user, created.body.id), (res) => res.body.lastError?.includes('404'));
    expect(missing.body).toMatchObject({ status: 'error', lastError: 'the calendar server answered 404' });
  });

  it('reads Google-, Outlook- and Apple-style feeds with recurring events', async () => {
    for (const style of ['google', 'outlook', 'apple']) {
      const user = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
      const text = readFileSync(new URL(`./fixtures/${style}.ics`, import.meta.url), 'utf8');
      server.serve(`/${style}.ics`, (_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(text));
      const created = await create(user, { kind: 'ics', url: server.url(`/${style}.ics`) });
      const done = await synced(user, created.body.id);
      expect(done.body, style).toMatchObject({ status: 'ok', lastError: null });
      const [busy] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from calendar_busy where connection_id = ?', [created.body.id]);
      // The Apple fixture's events all end before November 2026: nothing of it lies ahead.
      expect(busy!.n > 0, style).toBe(style !== 'apple' || Date.now() < Date.parse('2026-11-09T00:00:00Z'));
    }
  });

  it('stores every instance of a long series, more rows than one statement writes', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const hourly =
      'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:hourly\r\nDTSTAMP:20260101T000000Z\r\n' +
      `DTSTART:${icsTime(at(0))}\r\nDURATION:PT15M\r\nRRULE:FREQ=HOURLY;COUNT=6000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`;
    server.serve('/hourly.ics', (_req, res) => res.writeHead(200).end(hourly));
    const created = await create(user, { kind: 'ics', url: server.url('/hourly.ics') });
    expect((await synced(user, created.body.id)).body.status).toBe('ok');
    const [busy] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from calendar_busy where connection_id = ?', [created.body.id]);
    expect(busy!.n).toBe(6000);
    expect(startsOf(await availability(user, await eventTypeOf(user)))).toEqual([]);
  });

  it('a booking first refreshes a stale calendar (bounded), then decides on what it read', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const eventTypeId = await eventTypeOf(user);
    const path = '/stale.ics';
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([])));
    const created = await create(user, { kind: 'ics', url: server.url(path) });
    await synced(user, created.body.id);
    // Last synced long ago, and not due again for a while: only the booking's refresh can see the new event.
    await t.em().execute(
      "update calendar_connection set last_attempt_at = now() - interval '1 hour', next_sync_at = now() + interval '1 hour' where id = ?",
      [created.body.id],
    );
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([{ uid: 'new', start: at(12), end: at(13) }])));
    expect(startsOf(await availability(user, eventTypeId))).toContain(at(12).toISOString());
    expect((await book(user, eventTypeId, at(12))).status).toBe(409);
  });

  it("a reschedule, the owner's or the invitee's, first refreshes a stale calendar too", async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const eventTypeId = await eventTypeOf(user);
    const path = '/stale-reschedule.ics';
    let events: { uid: string; start: Date; end: Date }[] = [];
    server.serve(path, (_req, res) => res.writeHead(200).end(feed(events)));
    const created = await create(user, { kind: 'ics', url: server.url(path) });
    await synced(user, created.body.id);
    const owned = await book(user, eventTypeId, at(9));
    expect(owned.status).toBe(201);
    const booked = await t.http
      .post('/trpc/publicBooking.book')
      .send({ json: { eventTypeId, start: at(10).toISOString(), durationMin: 60, invitee: invitee() } });
    expect(booked.status).toBe(200);
    const token = (booked.body.result.data.json.links.manage as string).split('/').at(-1);
    // Last synced long ago, and not due again for a while: only the reschedule's refresh can see the new events.
    const stale = () =>
      t.em().execute(
        "update calendar_connection set last_attempt_at = now() - interval '1 hour', next_sync_at = now() + interval '1 hour' where id = ?",
        [created.body.id],
      );
    await stale();
    events = [{ uid: 'new', start: at(12), end: at(13) }];
    expect(startsOf(await availability(user, eventTypeId))).toContain(at(12).toISOString());
    const hits = server.hits(path);
    const moved = await t.http
      .post(`/api/v2/bookings/${owned.body.id}/reschedule`)
      .set(...bearer(user.token))
      .send({ start: at(12).toISOString() });
    expect(moved.status).toBe(409);
    expect(server.hits(path)).toBe(hits + 1);

    await stale();
    events = [{ uid: 'later', start: at(15), end: at(16) }];
    expect(startsOf(await availability(user, eventTypeId))).toContain(at(15).toISOString());
    const invitees = await t.http.post('/trpc/publicBooking.rescheduleManaged').send({ json: { token, start: at(15).toISOString() } });
    expect(invitees.status).toBe(409);
    expect(server.hits(path)).toBe(hits + 2);
    // A fresh calendar is not fetched again: the reschedule decides on the stored busy times at once.
    const free = await t.http.post('/trpc/publicBooking.rescheduleManaged').send({ json: { token, start: at(14).toISOString() } });
    expect(free.status).toBe(200);
    expect(server.hits(path)).toBe(hits + 2);
  });

  it('a booking waits at most 2 s for a stale calendar whose server hangs, then decides on the stored busy times', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const eventTypeId = await eventTypeOf(user);
    const path = '/slow.ics';
    server.serve(path, (_req, res) => res.writeHead(200).end(feed([{ uid: 's', start: at(14), end: at(15) }])));
    const created = await create(user, { kind: 'ics', url: server.url(path) });
    await synced(user, created.body.id);
    await t.em().execute(
      "update calendar_connection set last_attempt_at = now() - interval '1 hour', next_sync_at = now() + interval '1 hour' where id = ?",
      [created.body.id],
    );
    server.serve(path, () => undefined);
    const hits = server.hits(path);
    const started = Date.now();
    expect((await book(user, eventTypeId, at(14))).status).toBe(409);
    expect((await book(user, eventTypeId, at(16))).status).toBe(201);
    expect(server.hits(path)).toBe(hits + 1);
    expect(Date.now() - started).toBeLessThan(3_500);
  });

  it('a hung calendar server ends in error after 10 s, and availability never waits for it', async () => {
    const user = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, EVERY_DAY_9_TO_17);
    const eventTypeId = await eventTypeOf(user);
    server.serve('/hang.ics', () => undefined);
    const created = await create(user, { kind: 'ics', url: server.url('/hang.ics') });
    await until(() => Promise.resolve(server.hits('/hang.ics')), (hits) => hits > 0);
    const started = Date.now();
    expect((await availability(user, eventTypeId)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    const failed = await until(() => read(user, created.body.id), (res) => res.body.status === 'error', 15_000);
    expect(failed.body).toMatchObject({ status: 'error', lastError: 'no complete answer within 10 seconds', lastSyncedAt: null });
  }, 20_000);
});
