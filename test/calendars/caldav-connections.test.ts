import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClockToInstant } from '../../src/modules/availability/wall-clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { at, caldavHost, HOUR } from '../helpers/caldav-hosts.ts';
import { bearer, type TestUser } from '../helpers/factories.ts';
import { type Radicale, type RadicaleAccount, startRadicale } from '../helpers/radicale.ts';
import { BERLIN, icsDate, icsLocal, icsUtc, NEW_YORK, vcalendar, vevent } from './caldav-objects.ts';
import { until } from '../helpers/until.ts';

/** UTC midnight of the n-th day (the host's zone is UTC). */
const day = (n: number) => at(n, 0);
/** A wall-clock hour of day n in a zone, as an instant. */
function zoned(n: number, hour: number, zone: string): Date {
  const date = day(n);
  return new Date(wallClockToInstant({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }, hour * 60, zone));
}

describe('connected calendars (CalDAV, against Radicale)', () => {
  let t: TestApp;
  let radicale: Radicale;
  let accounts = 0;
  const log = new PassThrough();
  let logText = '';
  log.on('data', (chunk: Buffer) => {
    logText += chunk.toString();
  });

  beforeAll(async () => {
    radicale = await startRadicale();
    t = await startTestApp({ env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h', LOG_LEVEL: 'info' }, logStream: log });
  });
  afterAll(async () => {
    await t?.close();
    await radicale?.close();
  });

  const newHost = () => caldavHost(t, radicale, accounts++);
  const connect = (user: TestUser, account: RadicaleAccount, extra: object = {}) =>
    t.http
      .post('/api/v2/calendar-connections')
      .set(...bearer(user.token))
      .send({ kind: 'caldav', serverUrl: radicale.url, username: account.username, password: account.password, ...extra });
  const read = (user: TestUser, id: string) => t.http.get(`/api/v2/calendar-connections/${id}`).set(...bearer(user.token));
  const syncedAfter = (user: TestUser, id: string, after: string | null = null) =>
    until(
      () => read(user, id),
      (res) => res.body.status === 'error' || (res.body.lastSyncedAt !== null && res.body.lastSyncedAt !== after),
    );
  const syncNow = async (user: TestUser, id: string) => {
    const before = (await read(user, id)).body.lastSyncedAt as string;
    expect((await t.http.post(`/api/v2/calendar-connections/${id}/sync`).set(...bearer(user.token))).status).toBe(202);
    return syncedAfter(user, id, before);
  };
  async function slotStarts(user: TestUser, eventTypeId: string, from: number, to: number): Promise<string[]> {
    const res = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: day(from).toISOString(), to: day(to).toISOString() })
      .set(...bearer(user.token));
    expect(res.status).toBe(200);
    return res.body.data.map((slot: { start: string }) => slot.start);
  }
  const eventTypeOf = async (user: TestUser) => (await createEventType(t.em(), user.id, { durationsMin: [60], slotIntervalMin: 60 })).id;

  it('answers 201 pending at once, never shows or logs the credentials, and discovers the calendars, each busy', async () => {
    const { host, account } = await newHost();
    await account.makeCalendar('work', 'Work');
    await account.makeCalendar('family', 'Family');
    const created = await connect(host, account, { name: 'Radicale' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'caldav', name: 'Radicale', status: 'pending', lastSyncedAt: null, calendars: [] });
    expect(created.body.url).toBe(new URL(radicale.url).origin);
    expect(JSON.stringify(created.body)).not.toContain(account.password);
    expect(JSON.stringify(created.body)).not.toContain(account.username);

    const synced = await syncedAfter(host, created.body.id);
    expect(synced.body).toMatchObject({ status: 'ok', lastError: null });
    expect(synced.body.calendars).toEqual([
      { id: expect.any(String), name: 'Family', busy: true, bookingTarget: false },
      { id: expect.any(String), name: 'Work', busy: true, bookingTarget: false },
    ]);

    const [row] = await t.em().execute('select * from calendar_connection where id = ?', [created.body.id]);
    expect(JSON.stringify(row)).not.toContain(account.password);
    expect(logText).toContain('/api/v2/calendar-connections');
    expect(logText).not.toContain(account.password);
  });

  it('excludes recurring events (a moved and a cancelled instance), all-day and zoned events; a calendar unmarked busy stops counting', async () => {
    const { host, account } = await newHost();
    const work = await account.makeCalendar('work', 'Work');
    const family = await account.makeCalendar('family', 'Family');
    const berlin = (n: number, hour: number) => icsLocal(day(n), hour);
    await account.putObject(
      work,
      'standup',
      vcalendar(
        BERLIN,
        vevent(['UID:standup', `DTSTART;TZID=Europe/Berlin:${berlin(0, 11)}`, `DTEND;TZID=Europe/Berlin:${berlin(0, 12)}`, 'RRULE:FREQ=DAILY;COUNT=4']),
        vevent([
          'UID:standup',
          `RECURRENCE-ID;TZID=Europe/Berlin:${berlin(1, 11)}`,
          `DTSTART;TZID=Europe/Berlin:${berlin(1, 15)}`,
          `DTEND;TZID=Europe/Berlin:${berlin(1, 16)}`,
        ]),
        vevent([
          'UID:standup',
          `RECURRENCE-ID;TZID=Europe/Berlin:${berlin(2, 11)}`,
          `DTSTART;TZID=Europe/Berlin:${berlin(2, 11)}`,
          `DTEND;TZID=Europe/Berlin:${berlin(2, 12)}`,
          'STATUS:CANCELLED',
        ]),
      ),
    );
    await account.putObject(work, 'offsite', vcalendar(vevent(['UID:offsite', `DTSTART;VALUE=DATE:${icsDate(day(4))}`, `DTEND;VALUE=DATE:${icsDate(day(5))}`])));
    await account.putObject(
      work,
      'ny-call',
      vcalendar(NEW_YORK, vevent(['UID:ny-call', `DTSTART;TZID=America/New_York:${icsLocal(day(5), 9)}`, `DTEND;TZID=America/New_York:${icsLocal(day(5), 10)}`])),
    );
    await account.putObject(
      family,
      'dentist',
      vcalendar(vevent(['UID:dentist', `DTSTART:${icsUtc(new Date(day(6).getTime() + 10 * HOUR))}`, `DTEND:${icsUtc(new Date(day(6).getTime() + 11 * HOUR))}`])),
    );
    const created = await connect(host, account);
    expect((await syncedAfter(host, created.body.id)).body.status).toBe('ok');

    const eventTypeId = await eventTypeOf(host);
    const starts = await slotStarts(host, eventTypeId, 0, 7);
    const iso = (date: Date) => date.toISOString();
    expect(starts).not.toContain(iso(zoned(0, 11, 'Europe/Berlin')));
    expect(starts).toContain(iso(zoned(1, 11, 'Europe/Berlin')));
    expect(starts).not.toContain(iso(zoned(1, 15, 'Europe/Berlin')));
    expect(starts).toContain(iso(zoned(2, 11, 'Europe/Berlin')));
    expect(starts).not.toContain(iso(zoned(3, 11, 'Europe/Berlin')));
    expect(starts.filter((start) => start.startsWith(iso(day(4)).slice(0, 10)))).toEqual([]);
    expect(starts.filter((start) => start.startsWith(iso(day(3)).slice(0, 10)))).toHaveLength(15);
    expect(starts).not.toContain(iso(zoned(5, 9, 'America/New_York')));
    expect(starts).toContain(iso(zoned(5, 10, 'America/New_York')));
    const dentist = iso(new Date(day(6).getTime() + 10 * HOUR));
    expect(starts).not.toContain(dentist);

    const calendars = (await read(host, created.body.id)).body.calendars as { id: string; name: string }[];
    const familyId = calendars.find((calendar) => calendar.name === 'Family')!.id;
    const patched = await t.http
      .patch(`/api/v2/calendar-connections/${created.body.id}`)
      .set(...bearer(host.token))
      .send({ calendars: [{ id: familyId, busy: false }] });
    expect(patched.status).toBe(200);
    expect(await slotStarts(host, eventTypeId, 6, 7)).toContain(dentist);
  });

  it('does not download a calendar whose ctag did not change, and reads what changed in one that did', async () => {
    const { host, account } = await newHost();
    const work = await account.makeCalendar('work', 'Work');
    const quiet = await account.makeCalendar('quiet', 'Quiet');
    const created = await connect(host, account);
    expect((await syncedAfter(host, created.body.id)).body.status).toBe('ok');
    const reports = (path: string) => radicale.requests.filter((request) => request.method === 'REPORT' && request.path === path).length;
    const listings = () => radicale.requests.filter((request) => request.method === 'PROPFIND' && request.path === `/${account.username}/`).length;
    expect(reports(work)).toBe(1);
    expect(reports(quiet)).toBe(1);

    const listed = listings();
    expect((await syncNow(host, created.body.id)).body.status).toBe('ok');
    expect(listings()).toBeGreaterThan(listed);
    expect(reports(work)).toBe(1);
    expect(reports(quiet)).toBe(1);

    const start = new Date(day(2).getTime() + 9 * HOUR);
    await account.putObject(work, 'new', vcalendar(vevent(['UID:new', `DTSTART:${icsUtc(start)}`, `DTEND:${icsUtc(new Date(start.getTime() + HOUR))}`])));
    expect((await syncNow(host, created.body.id)).body.status).toBe('ok');
    expect(radicale.reports(work).map((report) => report.kind)).toEqual(['calendar-query', 'sync-collection', 'calendar-multiget']);
    expect(reports(quiet)).toBe(1);
    expect(await slotStarts(host, await eventTypeOf(host), 2, 3)).not.toContain(start.toISOString());
  });

  it('answers 201 pending for a wrong password, then turns it into error "credentials refused"', async () => {
    const { host, account } = await newHost();
    const created = await connect(host, account, { password: 'not-the-password' });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('pending');
    const failed = await syncedAfter(host, created.body.id);
    expect(failed.body.status).toBe('error');
    expect(failed.body.lastError).toMatch(/^credentials refused/);
    expect(failed.body.lastError).not.toContain('not-the-password');
  });

  it('keeps the last good busy times when the server fails or cannot be reached, with a clear lastError', async () => {
    const { host, account } = await newHost();
    const work = await account.makeCalendar('work', 'Work');
    const start = new Date(day(1).getTime() + 8 * HOUR);
    await account.putObject(work, 'kept', vcalendar(vevent(['UID:kept', `DTSTART:${icsUtc(start)}`, `DTEND:${icsUtc(new Date(start.getTime() + HOUR))}`])));
    const created = await connect(host, account);
    expect((await syncedAfter(host, created.body.id)).body.status).toBe('ok');
    const eventTypeId = await eventTypeOf(host);
    expect(await slotStarts(host, eventTypeId, 1, 2)).not.toContain(start.toISOString());

    radicale.failWith(503);
    try {
      const failed = await until(
        async () => {
          await t.http.post(`/api/v2/calendar-connections/${created.body.id}/sync`).set(...bearer(host.token));
          return read(host, created.body.id);
        },
        (res) => res.body.status === 'error',
      );
      expect(failed.body).toMatchObject({ status: 'error', lastError: expect.stringContaining('503') });
      expect(await slotStarts(host, eventTypeId, 1, 2)).not.toContain(start.toISOString());
    } finally {
      radicale.failWith(null);
    }

    const closed = await connect(host, account, { serverUrl: 'http://127.0.0.1:9/' });
    expect(closed.status).toBe(201);
    const unreachable = await syncedAfter(host, closed.body.id);
    expect(unreachable.body).toMatchObject({ status: 'error', lastError: expect.stringMatching(/^connection failed/) });
  });

  it('refuses missing credentials, a non-https server unless allowed, and a second booking target', async () => {
    const { host, account } = await newHost();
    const missing = await t.http
      .post('/api/v2/calendar-connections')
      .set(...bearer(host.token))
      .send({ kind: 'caldav', serverUrl: radicale.url, username: account.username });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('password');

    const strict = await startTestApp({ database: t.database });
    try {
      const refused = await strict.http
        .post('/api/v2/calendar-connections')
        .set(...bearer(host.token))
        .send({ kind: 'caldav', serverUrl: radicale.url, username: account.username, password: account.password });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('serverUrl');
    } finally {
      await strict.close();
    }

    await account.makeCalendar('a', 'A');
    await account.makeCalendar('b', 'B');
    const first = await connect(host, account);
    const second = await connect(host, account);
    const calendarsOf = async (id: string) => (await syncedAfter(host, id)).body.calendars as { id: string; name: string }[];
    const [a] = await calendarsOf(first.body.id);
    const [, b] = await calendarsOf(second.body.id);
    const target = (id: string, calendarId: string) =>
      t.http
        .patch(`/api/v2/calendar-connections/${id}`)
        .set(...bearer(host.token))
        .send({ calendars: [{ id: calendarId, bookingTarget: true }] });
    const ok = await target(first.body.id, a!.id);
    expect(ok.status).toBe(200);
    expect(ok.body.calendars.find((calendar: { id: string }) => calendar.id === a!.id)).toMatchObject({ bookingTarget: true });
    const again = await target(second.body.id, b!.id);
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.body)).toContain('at most one calendar');
  });
});
