import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type TestBooking, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';

const NOW = '2026-06-01T12:00:00.000Z';

interface BookingBody {
  id: string;
  startAt: string;
  status: string;
  canceledAt: string | null;
  cancelReason: string | null;
}

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW) });
});
afterAll(() => t.close());

describe('GET /api/v2/bookings', () => {
  let alice: TestUser;
  let bob: TestUser;
  let intro: TestEventType;
  let past: TestBooking;
  let canceled: TestBooking;
  let future: TestBooking;
  let bobs: TestBooking;
  let bobsTypeId: string;

  beforeAll(async () => {
    alice = await createUserWithToken(t.em());
    bob = await createUserWithToken(t.em());
    intro = await createEventType(t.em(), alice.id, { name: 'Intro call', slug: 'intro', bufferBeforeMin: 10, bufferAfterMin: 5 });
    const bobsType = await createEventType(t.em(), bob.id, { name: 'Bob call', slug: 'bob-call' });
    past = await createBooking(t.em(), {
      eventType: intro,
      startAt: '2026-05-20T09:00:00Z',
      durationMin: 30,
      invitee: { name: 'Pat Past', email: 'Pat.Past@Example.test', timezone: 'America/New_York' },
      location: null,
      createdAt: new Date('2026-05-01T08:00:00.250Z'),
    });
    canceled = await createBooking(t.em(), {
      eventType: intro,
      startAt: '2026-06-02T15:30:00Z',
      durationMin: 60,
      status: 'canceled',
      invitee: { name: 'Cass Cancel', email: 'cass@example.test', timezone: 'Asia/Tokyo' },
      location: { kind: 'phone', value: '+14155550123' },
      createdAt: new Date('2026-05-02T08:00:00Z'),
      canceledAt: new Date('2026-05-03T10:00:00Z'),
      cancelReason: 'Conflict',
    });
    future = await createBooking(t.em(), {
      eventType: intro,
      startAt: '2026-06-10T13:00:00Z',
      invitee: { name: 'Fran Future', email: 'fran@example.test', timezone: 'Europe/Paris' },
      location: { kind: 'video', value: null },
      createdAt: new Date('2026-05-04T08:00:00Z'),
    });
    bobs = await createBooking(t.em(), { eventType: bobsType, startAt: '2026-06-05T10:00:00Z' });
    bobsTypeId = bobsType.id;
  });

  it('lists the caller’s bookings newest (latest start) first, field for field', async () => {
    const res = await t.http.get('/api/v2/bookings').set(...bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          id: future.id,
          eventType: { id: intro.id, name: 'Intro call', slug: 'intro' },
          startAt: '2026-06-10T13:00:00.000Z',
          endAt: '2026-06-10T13:30:00.000Z',
          durationMin: 30,
          status: 'active',
          location: { kind: 'video', value: null },
          invitee: { name: 'Fran Future', email: 'fran@example.test', timezone: 'Europe/Paris' },
          notes: null,
          answers: [],
          guests: [],
          noShow: false,
          canceledAt: null,
          cancelReason: null,
          canceledBy: null,
          declinedAt: null,
          declineReason: null,
          seriesId: null,
          createdAt: '2026-05-04T08:00:00.000Z',
          calendarEvents: [],
        },
        {
          id: canceled.id,
          eventType: { id: intro.id, name: 'Intro call', slug: 'intro' },
          startAt: '2026-06-02T15:30:00.000Z',
          endAt: '2026-06-02T16:30:00.000Z',
          durationMin: 60,
          status: 'canceled',
          location: { kind: 'phone', value: '+14155550123' },
          invitee: { name: 'Cass Cancel', email: 'cass@example.test', timezone: 'Asia/Tokyo' },
          notes: null,
          answers: [],
          guests: [],
          noShow: false,
          canceledAt: '2026-05-03T10:00:00.000Z',
          cancelReason: 'Conflict',
          canceledBy: 'invitee',
          declinedAt: null,
          declineReason: null,
          seriesId: null,
          createdAt: '2026-05-02T08:00:00.000Z',
          calendarEvents: [],
        },
        {
          id: past.id,
          eventType: { id: intro.id, name: 'Intro call', slug: 'intro' },
          startAt: '2026-05-20T09:00:00.000Z',
          endAt: '2026-05-20T09:30:00.000Z',
          durationMin: 30,
          status: 'active',
          location: null,
          invitee: { name: 'Pat Past', email: 'Pat.Past@Example.test', timezone: 'America/New_York' },
          notes: null,
          answers: [],
          guests: [],
          noShow: false,
          canceledAt: null,
          cancelReason: null,
          canceledBy: null,
          declinedAt: null,
          declineReason: null,
          seriesId: null,
          createdAt: '2026-05-01T08:00:00.250Z',
          calendarEvents: [],
        },
      ],
      nextCursor: null,
    });
  });

  it('keeps users apart: each sees only their own bookings', async () => {
    const [asAlice, asBob] = await Promise.all([
      t.http.get('/api/v2/bookings').set(...bearer(alice.token)),
      t.http.get('/api/v2/bookings').set(...bearer(bob.token)),
    ]);
    expect(asBob.status).toBe(200);
    expect(asBob.body.data.map((b: BookingBody) => b.id)).toEqual([bobs.id]);
    expect(asAlice.body.data.map((b: BookingBody) => b.id)).not.toContain(bobs.id);
  });

  it('filters by status', async () => {
    const active = await t.http.get('/api/v2/bookings').query({ status: 'active' }).set(...bearer(alice.token));
    expect(active.status).toBe(200);
    expect(active.body.data.map((b: BookingBody) => b.id)).toEqual([future.id, past.id]);
    const cancelled = await t.http.get('/api/v2/bookings').query({ status: 'canceled' }).set(...bearer(alice.token));
    expect(cancelled.body.data.map((b: BookingBody) => b.id)).toEqual([canceled.id]);
  });

  it('filters by event type; another user’s event type or an unknown one lists nothing', async () => {
    const list = async (eventTypeId: string) =>
      (await t.http.get('/api/v2/bookings').query({ eventTypeId }).set(...bearer(alice.token))).body.data.map((b: BookingBody) => b.id);
    expect(await list(intro.id)).toEqual([future.id, canceled.id, past.id]);
    expect(await list(bobsTypeId)).toEqual([]);
    expect(await list('no-such-event-type')).toEqual([]);
    const bobsOwn = await t.http.get('/api/v2/bookings').query({ eventTypeId: bobsTypeId }).set(...bearer(bob.token));
    expect(bobsOwn.body.data.map((b: BookingBody) => b.id)).toEqual([bobs.id]);
  });

  it('filters by start: from and to are inclusive instants, any offset', async () => {
    const exact = await t.http
      .get('/api/v2/bookings')
      .query({ from: '2026-06-02T15:30:00Z', to: '2026-06-10T13:00:00Z' })
      .set(...bearer(alice.token));
    expect(exact.status).toBe(200);
    expect(exact.body.data.map((b: BookingBody) => b.id)).toEqual([future.id, canceled.id]);

    // 17:30:00.001 in +02:00 is one millisecond after the canceled booking's start.
    const offset = await t.http
      .get('/api/v2/bookings')
      .query({ from: '2026-06-02T17:30:00.001+02:00' })
      .set(...bearer(alice.token));
    expect(offset.body.data.map((b: BookingBody) => b.id)).toEqual([future.id]);

    const before = await t.http.get('/api/v2/bookings').query({ to: '2026-06-02T11:29:59-04:00' }).set(...bearer(alice.token));
    expect(before.body.data.map((b: BookingBody) => b.id)).toEqual([past.id]);

    const same = await t.http
      .get('/api/v2/bookings')
      .query({ from: '2026-05-20T09:00:00Z', to: '2026-05-20T09:00:00Z' })
      .set(...bearer(alice.token));
    expect(same.body.data.map((b: BookingBody) => b.id)).toEqual([past.id]);
  });

  it('refuses a missing token with 401 and a token without read:bookings with 403', async () => {
    const anonymous = await t.http.get('/api/v2/bookings');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ title: 'Unauthorized', message: expect.any(String) });

    const narrow = await createUserWithToken(t.em(), { scopes: ['write:bookings', 'read:profile'] });
    const res = await t.http.get('/api/v2/bookings').set(...bearer(narrow.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('read:bookings') });
  });

  it('refuses a bad limit with 400 and details', async () => {
    for (const limit of ['0', '101', 'abc', '2.5', '-1']) {
      const res = await t.http.get('/api/v2/bookings').query({ limit }).set(...bearer(alice.token));
      expectBadRequest(res, 'limit');
    }
    const max = await t.http.get('/api/v2/bookings').query({ limit: '100' }).set(...bearer(alice.token));
    expect(max.status).toBe(200);
  });

  it('refuses an unknown status with 400 and details', async () => {
    for (const status of ['waiting', 'ACTIVE', 'cancelled']) {
      const res = await t.http.get('/api/v2/bookings').query({ status }).set(...bearer(alice.token));
      expectBadRequest(res, 'status');
    }
  });

  it('refuses date-times that are not RFC 3339 with an offset', async () => {
    for (const from of ['2026-06-01', '2026-06-01T10:00:00', 'yesterday', '2026-13-01T10:00:00Z', '1717236000']) {
      const res = await t.http.get('/api/v2/bookings').query({ from }).set(...bearer(alice.token));
      expectBadRequest(res, 'from');
    }
    const to = await t.http.get('/api/v2/bookings').query({ to: '2026-06-01 10:00' }).set(...bearer(alice.token));
    expectBadRequest(to, 'to');
    // An unencoded "+" in a query string is a space; the message says how to write it.
    const raw = await t.http.get('/api/v2/bookings?from=2026-06-01T10:00:00+02:00').set(...bearer(alice.token));
    expectBadRequest(raw, 'from');
    expect(raw.body.details[0].message).toContain('%2B');
  });

  it('refuses from after to with 400', async () => {
    const res = await t.http
      .get('/api/v2/bookings')
      .query({ from: '2026-06-02T00:00:00Z', to: '2026-06-01T23:59:59Z' })
      .set(...bearer(alice.token));
    expectBadRequest(res, 'to');
    // The same instants written with different offsets are not "after".
    const equal = await t.http
      .get('/api/v2/bookings')
      .query({ from: '2026-06-02T02:00:00+02:00', to: '2026-06-02T00:00:00Z' })
      .set(...bearer(alice.token));
    expect(equal.status).toBe(200);
  });
});

describe('GET /api/v2/bookings paging', () => {
  let pager: TestUser;
  let other: TestUser;
  let group: TestEventType;
  let allIds: string[];

  // 23 bookings on 10 start instants: several start together (a group event type's seats).
  const perInstant = [4, 1, 3, 1, 1, 4, 2, 1, 5, 1];

  async function orderedIds(ownerId: string, status?: string): Promise<string[]> {
    const rows = await t
      .em()
      .execute<{ id: string }[]>(
        `select id from booking where owner_id = ? ${status ? 'and status = ?' : ''} order by start_at desc, id desc`,
        status ? [ownerId, status] : [ownerId],
      );
    return rows.map((row) => row.id);
  }

  async function collect(
    token: string,
    query: Record<string, string>,
    between?: (page: number, body: { data: BookingBody[]; nextCursor: string | null }) => Promise<void>,
  ): Promise<{ ids: string[]; pages: number; rows: BookingBody[] }> {
    const rows: BookingBody[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await t.http
        .get('/api/v2/bookings')
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .set(...bearer(token));
      expect(res.status).toBe(200);
      pages++;
      rows.push(...res.body.data);
      cursor = res.body.nextCursor ?? undefined;
      if (cursor) expect(res.body.data).toHaveLength(Number(query.limit));
      await between?.(pages, res.body);
      expect(pages).toBeLessThan(50);
    } while (cursor);
    return { ids: rows.map((row) => row.id), pages, rows };
  }

  beforeAll(async () => {
    pager = await createUserWithToken(t.em());
    other = await createUserWithToken(t.em());
    group = await createEventType(t.em(), pager.id, { kind: 'group', seatsPerSlot: 10, durationsMin: [45] });
    let n = 0;
    for (const [slot, count] of perInstant.entries()) {
      // Microseconds on purpose: a cursor must carry the exact instant, not a millisecond Date.
      const start = new Date(Date.UTC(2026, 6, 1, 8 + slot, 0, 0));
      for (let i = 0; i < count; i++) {
        const booking = await createBooking(t.em(), {
          eventType: group,
          startAt: start,
          status: n % 4 === 3 ? 'canceled' : 'active',
        });
        await t
          .em()
          .execute(
            `update booking set start_at = start_at + interval '0.000123 second', end_at = end_at + interval '0.000123 second' where id = ?`,
            [booking.id],
            'run',
          );
        n++;
      }
    }
    allIds = await orderedIds(pager.id);
    expect(allIds).toHaveLength(23);
  });

  it('visits every booking exactly once, in order, 5 at a time', async () => {
    const { ids, pages, rows } = await collect(pager.token, { limit: '5' });
    expect(pages).toBe(5);
    expect(ids).toEqual(allIds);
    expect(new Set(ids).size).toBe(23);
    const starts = rows.map((row) => Date.parse(row.startAt));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
  });

  it('visits every booking exactly once earliest first with order=asc, and binds the cursor to the order', async () => {
    const { ids, pages } = await collect(pager.token, { limit: '5', order: 'asc' });
    expect(pages).toBe(5);
    expect(ids).toEqual([...allIds].reverse());
    const first = await t.http.get('/api/v2/bookings').query({ limit: '5', order: 'asc' }).set(...bearer(pager.token));
    const mixed = await t.http.get('/api/v2/bookings').query({ limit: '5', cursor: first.body.nextCursor }).set(...bearer(pager.token));
    expect(mixed.status).toBe(400);
    const bad = await t.http.get('/api/v2/bookings').query({ order: 'sideways' }).set(...bearer(pager.token));
    expect(bad.status).toBe(400);
  });

  it('pages through a filtered list with the same filters', async () => {
    const { ids } = await collect(pager.token, { limit: '4', status: 'active' });
    expect(ids).toEqual(await orderedIds(pager.id, 'active'));
    const { ids: windowed } = await collect(pager.token, {
      limit: '3',
      from: '2026-07-01T09:00:00Z',
      to: '2026-07-01T14:00:00Z',
    });
    const inWindow = allIds.filter((id) => windowed.includes(id));
    expect(windowed).toEqual(inWindow);
    expect(windowed).toHaveLength(perInstant.slice(1, 6).reduce((a, b) => a + b, 0));
  });

  it('answers the last page with nextCursor null, and a limit of exactly the rest', async () => {
    const res = await t.http.get('/api/v2/bookings').query({ limit: '23' }).set(...bearer(pager.token));
    expect(res.body.data).toHaveLength(23);
    expect(res.body.nextCursor).toBeNull();
    const first = await t.http.get('/api/v2/bookings').query({ limit: '22' }).set(...bearer(pager.token));
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const rest = await t.http
      .get('/api/v2/bookings')
      .query({ limit: '22', cursor: first.body.nextCursor })
      .set(...bearer(pager.token));
    expect(rest.body.data.map((b: BookingBody) => b.id)).toEqual([allIds[22]]);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('neither skips nor repeats a row when bookings are added between pages', async () => {
    const added: { later: string; earliest: string; sameInstantAfter: string; sameInstantBefore: string } = {
      later: '',
      earliest: '',
      sameInstantAfter: '',
      sameInstantBefore: '',
    };
    const { ids } = await collect(pager.token, { limit: '5' }, async (page, body) => {
      if (page !== 2) return;
      const last = body.data.at(-1)!;
      const lastStart = (
        await t.em().execute<{ start_at: string }[]>(`select start_at::text from booking where id = ?`, [last.id])
      )[0]!.start_at;
      // Starts after everything already seen: it belongs to pages already read, so it is not visited.
      added.later = (await createBooking(t.em(), { eventType: group, startAt: '2026-07-01T23:00:00Z' })).id;
      // Starts before everything: the walk reaches it at the end.
      added.earliest = (await createBooking(t.em(), { eventType: group, startAt: '2026-07-01T01:00:00Z' })).id;
      // Same instant as the page's last row: the id decides on which side of the cursor it falls.
      for (const [key, id] of [
        ['sameInstantAfter', '00000000-0000-4000-8000-000000000000'],
        ['sameInstantBefore', 'ffffffff-ffff-4fff-bfff-ffffffffffff'],
      ] as const) {
        await createBooking(t.em(), { eventType: group, startAt: '2026-07-01T00:00:00Z', id });
        await t
          .em()
          .execute(
            `update booking set start_at = ?::timestamptz, end_at = ?::timestamptz + interval '45 minutes' where id = ?`,
            [lastStart, lastStart, id],
            'run',
          );
        added[key] = id;
      }
    });
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of allIds) expect(ids.filter((seen) => seen === id)).toHaveLength(1);
    expect(ids).toContain(added.earliest);
    expect(ids).toContain(added.sameInstantAfter);
    expect(ids).not.toContain(added.later);
    expect(ids).not.toContain(added.sameInstantBefore);
    expect(ids).toHaveLength(25);
    // Clean up so the other tests of this block see the original 23.
    await t
      .em()
      .execute('delete from booking where id in (?, ?, ?, ?)', [added.later, added.earliest, added.sameInstantAfter, added.sameInstantBefore], 'run');
  });

  it('refuses a tampered cursor with 400 invalid_cursor', async () => {
    const first = await t.http.get('/api/v2/bookings').query({ limit: '5' }).set(...bearer(pager.token));
    const cursor: string = first.body.nextCursor;
    const middle = Math.floor(cursor.length / 2);
    const flipped = cursor[middle] === 'A' ? 'B' : 'A';
    for (const tampered of [`${cursor.slice(0, middle)}${flipped}${cursor.slice(middle + 1)}`, `${cursor}x`, 'abc', cursor.slice(1)]) {
      const res = await t.http.get('/api/v2/bookings').query({ limit: '5', cursor: tampered }).set(...bearer(pager.token));
      expectBadRequest(res, 'cursor', 'invalid_cursor');
    }
  });

  it('refuses a cursor issued to another user', async () => {
    const first = await t.http.get('/api/v2/bookings').query({ limit: '5' }).set(...bearer(pager.token));
    const res = await t.http
      .get('/api/v2/bookings')
      .query({ limit: '5', cursor: first.body.nextCursor })
      .set(...bearer(other.token));
    expectBadRequest(res, 'cursor', 'invalid_cursor');
  });

  it('refuses a cursor reused with different filters, but not with a different limit', async () => {
    const first = await t.http.get('/api/v2/bookings').query({ limit: '5', status: 'active' }).set(...bearer(pager.token));
    const cursor: string = first.body.nextCursor;
    for (const query of [
      { status: 'canceled' },
      {},
      { status: 'active', from: '2026-07-01T00:00:00Z' },
      { status: 'active', to: '2026-08-01T00:00:00Z' },
    ]) {
      const res = await t.http
        .get('/api/v2/bookings')
        .query({ limit: '5', ...query, cursor })
        .set(...bearer(pager.token));
      expectBadRequest(res, 'cursor', 'invalid_cursor');
    }
    const resized = await t.http
      .get('/api/v2/bookings')
      .query({ limit: '7', status: 'active', cursor })
      .set(...bearer(pager.token));
    expect(resized.status).toBe(200);
    const active = await orderedIds(pager.id, 'active');
    expect(resized.body.data.map((b: BookingBody) => b.id)).toEqual(active.slice(5, 12));
  });

  it('accepts the same filters written differently (the same instant in another offset)', async () => {
    const first = await t.http
      .get('/api/v2/bookings')
      .query({ limit: '2', from: '2026-07-01T10:00:00Z' })
      .set(...bearer(pager.token));
    const next = await t.http
      .get('/api/v2/bookings')
      .query({ limit: '2', from: '2026-07-01T12:00:00+02:00', cursor: first.body.nextCursor })
      .set(...bearer(pager.token));
    expect(next.status).toBe(200);
  });
});

describe('DELETE /api/v2/bookings/{id}', () => {
  let host: TestUser;
  let stranger: TestUser;
  let intro: TestEventType;
  let group: TestEventType;

  beforeAll(async () => {
    host = await createUserWithToken(t.em());
    stranger = await createUserWithToken(t.em());
    intro = await createEventType(t.em(), host.id, { name: 'Consult', slug: 'consult', bufferBeforeMin: 15, bufferAfterMin: 15 });
    group = await createEventType(t.em(), host.id, { name: 'Class', slug: 'class', kind: 'group', seatsPerSlot: 5 });
  });

  async function block(id: string): Promise<{ active: boolean; seats_taken: number }> {
    const [row] = await t
      .em()
      .execute<{ active: boolean; seats_taken: number }[]>('select active, seats_taken from busy_block where id = ?', [id]);
    return row!;
  }

  async function contactMeetings(ownerToken: string, email: string): Promise<number> {
    const res = await t.http.get('/api/v2/contacts').query({ q: email }).set(...bearer(ownerToken));
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    return res.body.data[0].meetings;
  }

  it('cancels as the host, frees the busy block and updates the contact, idempotently', async () => {
    const email = 'Dana.Doe@example.test';
    const booking = await createBooking(t.em(), {
      eventType: intro,
      startAt: '2026-06-03T10:00:00Z',
      invitee: { name: 'Dana Doe', email, timezone: 'Europe/Berlin' },
      createdAt: new Date('2026-05-20T10:00:00Z'),
    });
    await createBooking(t.em(), { eventType: intro, startAt: '2026-06-04T10:00:00Z', invitee: { email: 'dana.doe@EXAMPLE.test' } });
    expect(await contactMeetings(host.token, email)).toBe(2);

    const res = await t.http
      .delete(`/api/v2/bookings/${booking.id}`)
      .query({ reason: 'Host is ill' })
      .set(...bearer(host.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: booking.id,
      eventType: { id: intro.id, name: 'Consult', slug: 'consult' },
      startAt: '2026-06-03T10:00:00.000Z',
      endAt: '2026-06-03T10:30:00.000Z',
      durationMin: 30,
      status: 'canceled',
      location: { kind: 'video', value: 'https://meet.example.test/abc' },
      invitee: { name: 'Dana Doe', email, timezone: 'Europe/Berlin' },
      notes: null,
      answers: [],
      guests: [],
      noShow: false,
      canceledAt: NOW,
      cancelReason: 'Host is ill',
      canceledBy: 'host',
      declinedAt: null,
      declineReason: null,
      seriesId: null,
      createdAt: '2026-05-20T10:00:00.000Z',
      calendarEvents: [],
    });
    expect(await block(booking.busyBlockId)).toEqual({ active: false, seats_taken: 0 });
    expect(await contactMeetings(host.token, email)).toBe(1);

    // The time is free again: a new active block over the same range (buffers included) is accepted.
    await t.em().execute(
      `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy)
       values (?, ?, ?, '2026-06-03T10:00:00Z', '2026-06-03T10:30:00Z', tstzrange('2026-06-03T09:45:00Z', '2026-06-03T10:45:00Z', '[)'))`,
      [newId(), host.id, intro.id],
      'run',
    );

    const again = await t.http
      .delete(`/api/v2/bookings/${booking.id}`)
      .query({ reason: 'Another reason' })
      .set(...bearer(host.token));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    const listed = await t.http.get('/api/v2/bookings').query({ status: 'canceled' }).set(...bearer(host.token));
    expect(listed.body.data).toContainEqual(res.body);
    expect(await contactMeetings(host.token, email)).toBe(1);
  });

  it('keeps a shared group block active until its last booking is canceled', async () => {
    const first = await createBooking(t.em(), { eventType: group, startAt: '2026-06-08T16:00:00Z' });
    const second = await createBooking(t.em(), { eventType: group, startAt: '2026-06-08T16:00:00Z' });
    expect(second.busyBlockId).toBe(first.busyBlockId);
    expect(await block(first.busyBlockId)).toEqual({ active: true, seats_taken: 2 });

    const one = await t.http.delete(`/api/v2/bookings/${first.id}`).set(...bearer(host.token));
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ status: 'canceled', cancelReason: null, canceledBy: 'host', canceledAt: NOW });
    expect(await block(first.busyBlockId)).toEqual({ active: true, seats_taken: 1 });

    await t.http.delete(`/api/v2/bookings/${second.id}`).set(...bearer(host.token)).expect(200);
    expect(await block(first.busyBlockId)).toEqual({ active: false, seats_taken: 0 });
  });

  it('is safe under concurrent cancels of one booking and of a block’s last two bookings', async () => {
    const single = await createBooking(t.em(), { eventType: group, startAt: '2026-06-09T09:00:00Z' });
    const same = await Promise.all(
      [1, 2, 3].map((i) => t.http.delete(`/api/v2/bookings/${single.id}`).query({ reason: `try ${i}` }).set(...bearer(host.token))),
    );
    expect(same.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(new Set(same.map((res) => JSON.stringify(res.body))).size).toBe(1);
    expect(await block(single.busyBlockId)).toEqual({ active: false, seats_taken: 0 });

    const a = await createBooking(t.em(), { eventType: group, startAt: '2026-06-09T11:00:00Z' });
    const b = await createBooking(t.em(), { eventType: group, startAt: '2026-06-09T11:00:00Z' });
    const both = await Promise.all([a, b].map((x) => t.http.delete(`/api/v2/bookings/${x.id}`).set(...bearer(host.token))));
    expect(both.map((res) => res.status)).toEqual([200, 200]);
    expect(await block(a.busyBlockId)).toEqual({ active: false, seats_taken: 0 });
  });

  it('answers 404 alike for a missing booking and for another user’s', async () => {
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-06-12T10:00:00Z' });
    const foreign = await t.http.delete(`/api/v2/bookings/${booking.id}`).set(...bearer(stranger.token));
    const missing = await t.http.delete(`/api/v2/bookings/${newId()}`).set(...bearer(stranger.token));
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.body).toEqual({ title: 'Not Found', message: expect.any(String) });
    expect(foreign.body).toEqual(missing.body);
    // Untouched by the stranger's attempt.
    expect(await block(booking.busyBlockId)).toEqual({ active: true, seats_taken: 1 });
    const [row] = await t.em().execute<{ status: string }[]>('select status from booking where id = ?', [booking.id]);
    expect(row?.status).toBe('active');
  });

  it('accepts a reason of 500 characters and refuses 501 with 400', async () => {
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-06-15T10:00:00Z' });
    const tooLong = await t.http
      .delete(`/api/v2/bookings/${booking.id}`)
      .query({ reason: 'x'.repeat(501) })
      .set(...bearer(host.token));
    expectBadRequest(tooLong, 'reason');
    const [row] = await t.em().execute<{ status: string }[]>('select status from booking where id = ?', [booking.id]);
    expect(row?.status).toBe('active');

    const ok = await t.http
      .delete(`/api/v2/bookings/${booking.id}`)
      .query({ reason: 'é'.repeat(500) })
      .set(...bearer(host.token));
    expect(ok.status).toBe(200);
    expect(ok.body.cancelReason).toBe('é'.repeat(500));
  });

  it('refuses a missing token with 401 and a token without write:bookings with 403', async () => {
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-06-16T10:00:00Z' });
    const anonymous = await t.http.delete(`/api/v2/bookings/${booking.id}`);
    expect(anonymous.status).toBe(401);
    const readOnly = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const res = await t.http.delete(`/api/v2/bookings/${booking.id}`).set(...bearer(readOnly.token));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ title: 'Forbidden', message: expect.stringContaining('write:bookings') });
    expect(await block(booking.busyBlockId)).toEqual({ active: true, seats_taken: 1 });
  });
});
