import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { createBooking } from '../../src/modules/bookings/booking-creation.service.ts';
import { invitee } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { at, caldavHost, connectedAccount } from '../helpers/caldav-hosts.ts';
import { bearer, type TestUser } from '../helpers/factories.ts';
import { type Radicale, type RadicaleAccount, startRadicale } from '../helpers/radicale.ts';
import { icsUtc } from './caldav-objects.ts';
import { until } from '../helpers/until.ts';


/** iCalendar text with its folded lines joined again. */
const unfolded = (text: string) => text.replace(/\r\n[ \t]/g, '');

describe('bookings written back to a CalDAV calendar (Radicale)', () => {
  let t: TestApp;
  let radicale: Radicale;
  let accounts = 0;
  /** The app's clock runs this far ahead of the real one: a test moves it to make a retry due. */
  let ahead = 0;
  const clock: Clock = { now: () => new Date(Date.now() + ahead) };

  beforeAll(async () => {
    radicale = await startRadicale(12);
    t = await startTestApp({ clock, env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' } });
  });
  afterAll(async () => {
    await t?.close();
    await radicale?.close();
  });

  interface Setup {
    host: TestUser;
    account: RadicaleAccount;
    calendarPath: string;
    connectionId: string;
    eventTypeId: string;
  }

  /** A host whose Radicale calendar `Work` receives bookings. */
  async function hostWithTarget(): Promise<Setup> {
    const { host, account } = await caldavHost(t, radicale, accounts++);
    const calendarPath = await account.makeCalendar('work', 'Work');
    const synced = await connectedAccount(t, host, radicale, account);
    const connectionId = synced.id;
    const patched = await t.http
      .patch(`/api/v2/calendar-connections/${connectionId}`)
      .set(...bearer(host.token))
      .send({ calendars: [{ id: synced.calendars[0]!.id, bookingTarget: true }] });
    expect(patched.status).toBe(200);
    const eventTypeId = (await createEventType(t.em(), host.id, { name: 'Intro call', durationsMin: [60], slotIntervalMin: 60 })).id;
    return { host, account, calendarPath, connectionId, eventTypeId };
  }

  const book = (setup: Setup, start: Date, who = invitee()) =>
    t.http
      .post('/api/v2/bookings')
      .set(...bearer(setup.host.token))
      .send({ eventTypeId: setup.eventTypeId, start: start.toISOString(), durationMin: 60, invitee: who, locationInput: 'Café Central, Vienna' });
  const bookingOf = (setup: Setup, id: string) => t.http.get(`/api/v2/bookings/${id}`).set(...bearer(setup.host.token));
  const eventStatus = (setup: Setup, id: string, status: string) =>
    until(
      () => bookingOf(setup, id),
      (res) => res.body.calendarEvents?.[0]?.status === status,
    );

  it('writes a booking into the target calendar, rewrites it on reschedule with SEQUENCE + 1, deletes it on cancel', async () => {
    const setup = await hostWithTarget();
    const who = invitee();
    const created = await book(setup, at(1, 10), who);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.calendarEvents).toEqual([{ hostId: setup.host.id, status: 'pending', lastError: null }]);

    expect((await eventStatus(setup, id, 'written')).body.calendarEvents).toEqual([{ hostId: setup.host.id, status: 'written', lastError: null }]);
    const written = unfolded(await setup.account.calendarText(setup.calendarPath));
    expect(written).toContain(`UID:${id}@localhost`);
    expect(written).toContain('SEQUENCE:0');
    expect(written).toContain(`DTSTART:${icsUtc(at(1, 10))}`);
    expect(written).toMatch(new RegExp(`ATTENDEE;[^\\r\\n]*SCHEDULE-AGENT=CLIENT[^\\r\\n]*:MAILTO:${who.email}`));
    expect(written).toContain('LOCATION:Café Central\\, Vienna');
    expect(written).toContain(`URL;VALUE=URI:http://localhost:3000/app/bookings?booking=${id}`);
    expect(written).toContain('SUMMARY:Intro call with Ivy Invitee');

    // Synced back, the event the service wrote is not counted as busy a second time.
    const before = (await t.http.get(`/api/v2/calendar-connections/${setup.connectionId}`).set(...bearer(setup.host.token))).body.lastSyncedAt;
    await t.http.post(`/api/v2/calendar-connections/${setup.connectionId}/sync`).set(...bearer(setup.host.token));
    await until(
      () => t.http.get(`/api/v2/calendar-connections/${setup.connectionId}`).set(...bearer(setup.host.token)),
      (res) => res.body.lastSyncedAt !== before,
    );
    const [busy] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from calendar_busy where host_id = ?', [setup.host.id]);
    expect(busy!.n).toBe(0);
    // Read as a change since the first sync, not the whole calendar again.
    expect(radicale.reports(setup.calendarPath).map((report) => report.kind)).toEqual(['calendar-query', 'sync-collection', 'calendar-multiget']);

    const moved = await t.http
      .post(`/api/v2/bookings/${id}/reschedule`)
      .set(...bearer(setup.host.token))
      .send({ start: at(1, 14).toISOString() });
    expect(moved.status).toBe(200);
    expect(moved.body.calendarEvents).toEqual([{ hostId: setup.host.id, status: 'pending', lastError: null }]);
    await eventStatus(setup, id, 'written');
    const rewritten = unfolded(await setup.account.calendarText(setup.calendarPath));
    expect(rewritten).toContain('SEQUENCE:1');
    expect(rewritten).toContain(`DTSTART:${icsUtc(at(1, 14))}`);
    expect(rewritten.match(/BEGIN:VEVENT/g)).toHaveLength(1);

    const canceled = await t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(setup.host.token)).send({});
    expect(canceled.status).toBe(200);
    await eventStatus(setup, id, 'deleted');
    expect(await setup.account.calendarText(setup.calendarPath)).not.toContain(id);
    const connection = await t.http.get(`/api/v2/calendar-connections/${setup.connectionId}`).set(...bearer(setup.host.token));
    expect(connection.body.bookingEvents).toEqual({ pending: 0, failed: 0, lastError: null });
  });

  it('an online meeting is written with its link as LOCATION and URL, the booking’s page in the description', async () => {
    const setup = await hostWithTarget();
    const link = 'https://meet.example.com/hanna';
    const patched = await t.http
      .patch(`/api/v2/event-types/${setup.eventTypeId}`)
      .set(...bearer(setup.host.token))
      .send({ locations: [{ kind: 'link', url: link }, { kind: 'invitee_phone' }] });
    expect(patched.status).toBe(200);
    const created = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(setup.host.token))
      .send({ eventTypeId: setup.eventTypeId, start: at(2, 9).toISOString(), durationMin: 60, invitee: invitee(), location: { kind: 'link' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventStatus(setup, created.body.id, 'written');
    const written = unfolded(await setup.account.calendarText(setup.calendarPath));
    expect(written).toContain(`LOCATION:${link}`);
    expect(written).toContain(`URL;VALUE=URI:${link}`);
    expect(written).toContain(`Booking: http://localhost:3000/app/bookings?booking=${created.body.id}`);
    expect(written).toContain(`Where: Online at ${link}`);
  });

  it("writes a booking made on the public page, shows the invitee nothing of it, and deletes it on the invitee's cancellation", async () => {
    const setup = await hostWithTarget();
    const trpc = (path: string, input: unknown) => t.http.post(`/trpc/${path}`).send(superjson.serialize(input) as object);
    const res = await trpc('publicBooking.book', { eventTypeId: setup.eventTypeId, start: at(4, 10).toISOString(), durationMin: 60, invitee: invitee() });
    expect(res.status).toBe(200);
    const booked = res.body.result.data.json as { id: string; links: { manage: string } };
    expect(booked).not.toHaveProperty('calendarEvents');
    await eventStatus(setup, booked.id, 'written');
    expect(await setup.account.calendarText(setup.calendarPath)).toContain(`UID:${booked.id}@localhost`);

    const token = booked.links.manage.split('/').at(-1);
    expect((await trpc('publicBooking.cancelManaged', { token })).status).toBe(200);
    await eventStatus(setup, booked.id, 'deleted');
    expect(await setup.account.calendarText(setup.calendarPath)).not.toContain(booked.id);
  });

  it('writes nothing for a booking whose transaction rolled back', async () => {
    const setup = await hostWithTarget();
    const puts = () => radicale.requests.filter((request) => request.method === 'PUT' && request.path.startsWith(setup.calendarPath)).length;
    const input = { eventTypeId: setup.eventTypeId, start: at(2, 10).toISOString(), durationMin: 60, invitee: invitee() };
    await expect(
      createBooking(t.em(), input, { caller: { kind: 'owner', userId: setup.host.id }, now: clock.now(), deadline: AbortSignal.abort() }),
    ).rejects.toThrow();
    const [rows] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from booking_calendar_event where host_id = ?', [setup.host.id]);
    expect(rows!.n).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(puts()).toBe(0);

    // The same booking, committed, is written: the check above could have failed.
    const created = await book(setup, at(2, 10));
    expect(created.status).toBe(201);
    await eventStatus(setup, created.body.id, 'written');
    expect(puts()).toBe(1);
  });

  it('retries a failed write with a wait, showing the error on the booking and the connection meanwhile', async () => {
    const setup = await hostWithTarget();
    radicale.failWith(503, ['PUT']);
    let id: string;
    try {
      const created = await book(setup, at(3, 10));
      id = created.body.id as string;
      const failing = await until(
        () => bookingOf(setup, id),
        (res) => res.body.calendarEvents?.[0]?.lastError !== null,
      );
      expect(failing.body.calendarEvents).toEqual([{ hostId: setup.host.id, status: 'pending', lastError: expect.stringContaining('503') }]);
      const [row] = await t.em().execute<{ attempts: number; wait_ms: number }[]>(
        `select attempts, (extract(epoch from next_attempt_at - updated_at) * 1000)::int as wait_ms from booking_calendar_event where booking_id = ?`,
        [id],
      );
      expect(row).toMatchObject({ attempts: 1, wait_ms: 10_000 });
      const connection = await t.http.get(`/api/v2/calendar-connections/${setup.connectionId}`).set(...bearer(setup.host.token));
      expect(connection.body.bookingEvents).toEqual({ pending: 1, failed: 0, lastError: expect.stringContaining('503') });
    } finally {
      radicale.failWith(null);
    }
    // Not before its wait is over: then it is written.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await bookingOf(setup, id)).body.calendarEvents[0].status).toBe('pending');
    ahead += 11_000;
    const written = await eventStatus(setup, id, 'written');
    expect(written.body.calendarEvents).toEqual([{ hostId: setup.host.id, status: 'written', lastError: null }]);
  });

  describe('conditional writes (ETags)', () => {
    const ALARM = 'BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Prepare\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n';
    /** The host's calendar app adds an alarm and a category to the event, as a client does: read, change, PUT. */
    const hostEdits = async (setup: Setup, name: string) => {
      const text = await setup.account.objectText(setup.calendarPath, name);
      await setup.account.putObject(setup.calendarPath, name, text.replace('END:VEVENT', `CATEGORIES:Clients\r\n${ALARM}END:VEVENT`));
    };
    const stored = async (id: string) =>
      (await t.em().execute<{ etag: string | null; object_name: string | null }[]>('select etag, object_name from booking_calendar_event where booking_id = ?', [id]))[0]!;
    /** The methods of the requests to one calendar object from the `from`th request on. */
    const requestsTo = (setup: Setup, name: string, from: number) =>
      radicale.requests.slice(from).filter((request) => request.path === `${setup.calendarPath}${name}`).map((request) => request.method);
    const reschedule = (setup: Setup, id: string, start: Date) =>
      t.http.post(`/api/v2/bookings/${id}/reschedule`).set(...bearer(setup.host.token)).send({ start: start.toISOString() });

    it("creates with If-None-Match and keeps the ETag; a reschedule after the host's edit keeps their alarm and takes the new time", async () => {
      const setup = await hostWithTarget();
      const created = await book(setup, at(5, 10));
      const id = created.body.id as string;
      await eventStatus(setup, id, 'written');
      const first = await stored(id);
      expect(first).toEqual({ etag: expect.stringMatching(/.+/), object_name: null });

      // Not edited in the calendar: a reschedule is one PUT, which the ETag lets through.
      const untouched = radicale.requests.length;
      expect((await reschedule(setup, id, at(5, 12))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      expect(requestsTo(setup, `${id}.ics`, untouched)).toEqual(['PUT']);

      await hostEdits(setup, id);
      const mark = radicale.requests.length;
      expect((await reschedule(setup, id, at(5, 15))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      // The PUT against the written copy's ETag failed (412), the host's version was read and written over.
      expect(requestsTo(setup, `${id}.ics`, mark)).toEqual(['PUT', 'GET', 'PUT']);
      const text = unfolded(await setup.account.objectText(setup.calendarPath, id));
      expect(text).toContain(`DTSTART:${icsUtc(at(5, 15))}`);
      expect(text).toContain('SEQUENCE:2');
      expect(text).toContain('TRIGGER:-PT15M');
      expect(text).toContain('CATEGORIES:Clients');
      expect(text.match(/BEGIN:VEVENT/g)).toHaveLength(1);
      const second = await stored(id);
      expect(second.etag).not.toBeNull();
      expect(second.etag).not.toBe(first.etag);

      // The copy now carries the host's alarm, which the ETag cannot keep: the next rewrite reads it first.
      const again = radicale.requests.length;
      expect((await reschedule(setup, id, at(5, 17))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      expect(requestsTo(setup, `${id}.ics`, again)).toEqual(['GET', 'PUT']);
      const last = unfolded(await setup.account.objectText(setup.calendarPath, id));
      expect(last).toContain(`DTSTART:${icsUtc(at(5, 17))}`);
      expect(last).toContain('TRIGGER:-PT15M');
    });

    it('a cancellation deletes the event even after the host changed it', async () => {
      const setup = await hostWithTarget();
      const id = (await book(setup, at(6, 10))).body.id as string;
      await eventStatus(setup, id, 'written');
      await hostEdits(setup, id);
      const mark = radicale.requests.length;
      expect((await t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(setup.host.token)).send({})).status).toBe(200);
      await eventStatus(setup, id, 'deleted');
      expect(requestsTo(setup, `${id}.ics`, mark)).toEqual(['DELETE', 'GET', 'DELETE']);
      expect(await setup.account.calendarText(setup.calendarPath)).not.toContain(id);
      expect((await stored(id)).etag).toBeNull();
    });

    it('never overwrites a resource of the same name: the event takes a name of its own, and its changes leave that resource alone', async () => {
      const setup = await hostWithTarget();
      radicale.failWith(503, ['PUT']);
      let id: string;
      try {
        id = (await book(setup, at(7, 10))).body.id as string;
        await until(
          () => bookingOf(setup, id),
          (res) => res.body.calendarEvents?.[0]?.lastError !== null,
        );
      } finally {
        radicale.failWith(null);
      }
      const foreign = [
        'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Elsewhere//EN', 'BEGIN:VEVENT', 'UID:someone-else@example.org',
        `DTSTAMP:${icsUtc(at(0, 0))}`, `DTSTART:${icsUtc(at(7, 8))}`, `DTEND:${icsUtc(at(7, 9))}`, 'SUMMARY:Not a booking', 'END:VEVENT', 'END:VCALENDAR', '',
      ].join('\r\n');
      await setup.account.putObject(setup.calendarPath, id, foreign);
      ahead += 11_000;
      await eventStatus(setup, id, 'written');

      const { object_name: name } = await stored(id);
      expect(name).toMatch(new RegExp(`^${id}-[0-9a-f]{8}\\.ics$`));
      const ours = unfolded(await setup.account.objectText(setup.calendarPath, name!.replace(/\.ics$/, '')));
      expect(ours).toContain(`UID:${id}@localhost`);
      expect(await setup.account.objectText(setup.calendarPath, id)).toContain('UID:someone-else@example.org');

      expect((await reschedule(setup, id, at(7, 14))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      expect(unfolded(await setup.account.objectText(setup.calendarPath, name!.replace(/\.ics$/, '')))).toContain(`DTSTART:${icsUtc(at(7, 14))}`);
      expect(await setup.account.calendarText(setup.calendarPath)).toContain('SUMMARY:Not a booking');

      expect((await t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(setup.host.token)).send({})).status).toBe(200);
      await eventStatus(setup, id, 'deleted');
      const left = unfolded(await setup.account.calendarText(setup.calendarPath));
      expect(left).not.toContain(`UID:${id}@localhost`);
      expect(left).toContain('UID:someone-else@example.org');
    });

    it('an event whose ETag is not known is recognised by its UID, and one the host deleted is written again', async () => {
      const setup = await hostWithTarget();
      const id = (await book(setup, at(8, 10))).body.id as string;
      await eventStatus(setup, id, 'written');
      // As for an event written before ETags were kept, or by a server that gave none.
      await t.em().execute('update booking_calendar_event set etag = null where booking_id = ?', [id], 'run');
      await hostEdits(setup, id);
      const mark = radicale.requests.length;
      expect((await reschedule(setup, id, at(8, 14))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      expect(requestsTo(setup, `${id}.ics`, mark)).toEqual(['PUT', 'GET', 'PUT']);
      const text = unfolded(await setup.account.objectText(setup.calendarPath, id));
      expect(text).toContain(`DTSTART:${icsUtc(at(8, 14))}`);
      expect(text).toContain('TRIGGER:-PT15M');
      expect((await stored(id)).etag).not.toBeNull();

      await setup.account.deleteObject(setup.calendarPath, id);
      expect((await reschedule(setup, id, at(8, 16))).status).toBe(200);
      await eventStatus(setup, id, 'written');
      const recreated = unfolded(await setup.account.objectText(setup.calendarPath, id));
      expect(recreated).toContain(`DTSTART:${icsUtc(at(8, 16))}`);
      expect(recreated).toContain('SEQUENCE:2');
      expect(recreated).not.toContain('TRIGGER:-PT15M');
    });
  });
});
