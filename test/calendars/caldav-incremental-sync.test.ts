import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { at, caldavHost, connectedAccount } from '../helpers/caldav-hosts.ts';
import { bearer, type TestUser } from '../helpers/factories.ts';
import { type CannedAnswer, type ProxiedRequest, type Radicale, type RadicaleAccount, startRadicale } from '../helpers/radicale.ts';
import { icsUtc, vcalendar, vevent } from './caldav-objects.ts';
import { until } from '../helpers/until.ts';

const iso = (day: number, hour: number) => at(day, hour).toISOString();
const event = (uid: string, day: number, hour: number) =>
  vcalendar(vevent([`UID:${uid}`, `DTSTART:${icsUtc(at(day, hour))}`, `DTEND:${icsUtc(at(day, hour + 1))}`]));
const isSyncCollection = (request: ProxiedRequest) => request.method === 'REPORT' && request.body.includes('sync-collection');

describe('incremental CalDAV sync (RFC 6578, against Radicale)', () => {
  let t: TestApp;
  let radicale: Radicale;
  let accounts = 0;

  beforeAll(async () => {
    radicale = await startRadicale();
    t = await startTestApp({ env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' } });
  });
  afterAll(async () => {
    await t?.close();
    await radicale?.close();
  });

  interface Setup {
    host: TestUser;
    account: RadicaleAccount;
    work: string;
    connectionId: string;
  }

  /** A host whose calendar Work holds these events (`name` → day and hour), connected and synced once. */
  async function connected(events: Record<string, [number, number]>): Promise<Setup> {
    const { host, account } = await caldavHost(t, radicale, accounts++);
    const work = await account.makeCalendar('work', 'Work');
    for (const [name, [day, hour]] of Object.entries(events)) await account.putObject(work, name, event(name, day, hour));
    const connection = await connectedAccount(t, host, radicale, account);
    return { host, account, work, connectionId: connection.id };
  }
  const read = (setup: Setup) => t.http.get(`/api/v2/calendar-connections/${setup.connectionId}`).set(...bearer(setup.host.token));
  /** Syncs now; the REPORTs the sync sent to the calendar, and the connection after it. */
  async function sync(setup: Setup) {
    const before = (await read(setup)).body as { lastSyncedAt: string; status: string };
    const mark = radicale.reports(setup.work).length;
    expect((await t.http.post(`/api/v2/calendar-connections/${setup.connectionId}/sync`).set(...bearer(setup.host.token))).status).toBe(202);
    const after = await until(
      () => read(setup),
      (res) => (res.body.status === 'error' && before.status !== 'error') || res.body.lastSyncedAt !== before.lastSyncedAt,
    );
    return { connection: after.body, reports: radicale.reports(setup.work).slice(mark) };
  }
  /** The stored busy intervals, each with the object it came from. */
  async function busy(setup: Setup): Promise<string[]> {
    const rows = await t.em().execute<{ href: string; s: number }[]>(
      `select object_href as href, extract(epoch from lower(busy)) * 1000 as s from calendar_busy where connection_id = ? order by 2, 1`,
      [setup.connectionId],
    );
    return rows.map((row) => `${row.href.replace(setup.work, '')} ${new Date(Number(row.s)).toISOString()}`);
  }
  const stored = async (setup: Setup) =>
    (
      await t.em().execute<{ sync_token: string; read_at: Date }[]>('select sync_token, read_at from connected_calendar where connection_id = ?', [
        setup.connectionId,
      ])
    )[0]!;
  const kinds = (reports: { kind: string }[]) => reports.map((report) => report.kind);
  async function slotStarts(setup: Setup, day: number): Promise<string[]> {
    const eventTypeId = (await createEventType(t.em(), setup.host.id, { durationsMin: [60], slotIntervalMin: 60 })).id;
    const res = await t.http
      .get('/api/v2/availability')
      .query({ eventTypeId, from: at(day, 0).toISOString(), to: at(day + 1, 0).toISOString() })
      .set(...bearer(setup.host.token));
    expect(res.status).toBe(200);
    return res.body.data.map((slot: { start: string }) => slot.start);
  }

  it('reads only what changed: one added, one moved, one deleted; the untouched one stays busy', async () => {
    const setup = await connected({ a: [1, 9], b: [1, 11], d: [2, 15] });
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 9)}`, `b.ics ${iso(1, 11)}`, `d.ics ${iso(2, 15)}`]);
    const wholeRead = (await stored(setup)).read_at;

    await setup.account.putObject(setup.work, 'c', event('c', 2, 9));
    await setup.account.putObject(setup.work, 'a', event('a', 1, 14));
    await setup.account.deleteObject(setup.work, 'b');
    const { connection, reports } = await sync(setup);
    expect(connection).toMatchObject({ status: 'ok', lastError: null });

    expect(kinds(reports)).toEqual(['sync-collection', 'calendar-multiget']);
    expect(reports[1]!.hrefs.sort()).toEqual([`${setup.work}a.ics`, `${setup.work}c.ics`]);
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 14)}`, `c.ics ${iso(2, 9)}`, `d.ics ${iso(2, 15)}`]);
    // The busy days follow: the moved and deleted times are free, the new ones busy.
    const day1 = await slotStarts(setup, 1);
    expect(day1).toContain(iso(1, 9));
    expect(day1).toContain(iso(1, 11));
    expect(day1).not.toContain(iso(1, 14));
    const day2 = await slotStarts(setup, 2);
    expect(day2).not.toContain(iso(2, 9));
    expect(day2).not.toContain(iso(2, 15));
    // A read in part is not a whole read: the daily whole read stays due.
    expect((await stored(setup)).read_at).toEqual(wholeRead);

    const quiet = await sync(setup);
    expect(kinds(quiet.reports)).toEqual([]);
  });

  it('an expired sync token: the server refuses it, the calendar is read whole with the new token, then incrementally again', async () => {
    const setup = await connected({ a: [1, 9] });
    const unknown = `http://radicale.org/ns/sync/${'0'.repeat(64)}`;
    await t.em().execute('update connected_calendar set sync_token = ? where connection_id = ?', [unknown, setup.connectionId], 'run');
    await setup.account.putObject(setup.work, 'b', event('b', 1, 11));

    const expired = await sync(setup);
    expect(expired.connection).toMatchObject({ status: 'ok', lastError: null });
    expect(kinds(expired.reports)).toEqual(['sync-collection', 'calendar-query']);
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 9)}`, `b.ics ${iso(1, 11)}`]);
    expect((await stored(setup)).sync_token).not.toBe(unknown);

    await setup.account.deleteObject(setup.work, 'a');
    const again = await sync(setup);
    expect(kinds(again.reports)).toEqual(['sync-collection']);
    expect(await busy(setup)).toEqual([`b.ics ${iso(1, 11)}`]);
  });

  it.each<[string, (setup: Setup) => CannedAnswer]>([
    ['a server without sync-collection (403 supported-report)', () => ({ status: 403, body: davError('supported-report') })],
    ['a token the server answers 409 valid-sync-token to', () => ({ status: 409, body: davError('valid-sync-token') })],
    ['a truncated answer (507 on the collection)', (setup) => ({ status: 207, body: truncated(setup.work) })],
  ])('%s: the calendar is read whole, never "credentials refused"', async (_, answer) => {
    const setup = await connected({ a: [1, 9] });
    await setup.account.putObject(setup.work, 'b', event('b', 1, 11));
    const token = (await stored(setup)).sync_token;
    radicale.intercept((request) => (isSyncCollection(request) ? answer(setup) : undefined));
    try {
      const { connection, reports } = await sync(setup);
      expect(connection).toMatchObject({ status: 'ok', lastError: null });
      expect(kinds(reports)).toEqual(['sync-collection', 'calendar-query']);
    } finally {
      radicale.intercept(null);
    }
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 9)}`, `b.ics ${iso(1, 11)}`]);
    const after = (await stored(setup)).sync_token;
    expect(after).not.toBe(token);
    expect(after).toMatch(/^http:\/\/radicale\.org\/ns\/sync\/[0-9a-f]{64}$/);
  });

  it('a failed multiget is the connection in error with a clear lastError; the busy times and the token stay until it heals', async () => {
    const setup = await connected({ a: [1, 9] });
    const token = (await stored(setup)).sync_token;
    await setup.account.putObject(setup.work, 'a', event('a', 1, 14));
    radicale.intercept((request) => (request.method === 'REPORT' && request.body.includes('calendar-multiget') ? { status: 500, body: '' } : undefined));
    try {
      const { connection } = await sync(setup);
      expect(connection).toMatchObject({ status: 'error', lastError: 'the calendar could not be read (the server answered 500)' });
    } finally {
      radicale.intercept(null);
    }
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 9)}`]);
    expect((await stored(setup)).sync_token).toBe(token);

    const healed = await sync(setup);
    expect(healed.connection).toMatchObject({ status: 'ok', lastError: null });
    expect(kinds(healed.reports)).toEqual(['sync-collection', 'calendar-multiget']);
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 14)}`]);
  });

  it('a day after its last whole read a changed calendar is read whole again, whatever its token', async () => {
    const setup = await connected({ a: [1, 9] });
    await t.em().execute(`update connected_calendar set read_at = now() - interval '25 hours' where connection_id = ?`, [setup.connectionId], 'run');
    await setup.account.putObject(setup.work, 'b', event('b', 1, 11));
    const { reports } = await sync(setup);
    expect(kinds(reports)).toEqual(['calendar-query']);
    expect(await busy(setup)).toEqual([`a.ics ${iso(1, 9)}`, `b.ics ${iso(1, 11)}`]);
    expect(new Date((await stored(setup)).read_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });
});

function davError(condition: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><D:error xmlns:D="DAV:"><D:${condition}/></D:error>`;
}

/** RFC 6578 3.6: a 507 for the collection itself says the changes listed are not all of them. */
function truncated(collection: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><D:multistatus xmlns:D="DAV:">
<D:response><D:href>${collection}</D:href><D:status>HTTP/1.1 507 Insufficient Storage</D:status></D:response>
<D:sync-token>http://radicale.org/ns/sync/${'1'.repeat(64)}</D:sync-token></D:multistatus>`;
}
