/**
 * Slot holds are exact across instances: two services (`npm start` in child processes, so no memory is shared) on
 * one database. Holds are busy blocks under the exclusion constraint bookings use, written under the same host
 * locks, so two holds of one slot, or a hold and a booking, racing through different instances end in one 201;
 * a short SLOT_HOLD_TTL frees the slot everywhere without any job; a hold is its maker's on every instance, and
 * keeps the first date of a series booked with it on another.
 */
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { type HttpOutcome, httpRequest, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { invitee, setSchedule } from '../bookings/fixtures.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, ALL_DAY]));
const TTL_MS = 8_000;
/** Requests waiting for the host's lock may wait this long on a loaded machine before their 409. */
const ENV = { BOOKING_WAIT_MS: '30000', SLOT_HOLD_TTL: `${TTL_MS / 1000}s` };

describe('slot holds across two instances', () => {
  let database: TestDatabase;
  let orm: Orm;
  let services: ServiceProcess[] = [];
  let host: TestUser;
  let eventTypeId: string;
  let nextSlot = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 2 });
    services = await Promise.all([startService({ DATABASE_URL: database.url, ...ENV }), startService({ DATABASE_URL: database.url, ...ENV })]);
    host = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
    await setSchedule(orm.em.fork(), host.id, EVERY_DAY);
    eventTypeId = (await createEventType(orm.em.fork(), host.id, { durationsMin: [15] })).id;
  }, 120_000);
  afterAll(async () => {
    for (const service of services) service.kill();
    await orm.close();
    await database.drop();
  });

  /** A fresh 15-minute slot of the day after tomorrow (UTC) for each call. */
  function freshSlot(): string {
    const day = new Date();
    day.setUTCDate(day.getUTCDate() + 2);
    day.setUTCHours(0, 0, 0, 0);
    return new Date(day.getTime() + nextSlot++ * 15 * 60_000).toISOString();
  }
  const via = (i: number, token = host.token) => {
    const port = services[i]!.port;
    const headers = Object.fromEntries([bearer(token)]);
    return {
      hold: (startAt: string) => httpRequest(port, { method: 'POST', path: '/api/v2/slot-holds', headers, body: { eventTypeId, startAt, durationMin: 15 } }),
      book: (start: string, extra: object = {}) =>
        httpRequest(port, { method: 'POST', path: '/api/v2/bookings', headers, body: { eventTypeId, start, durationMin: 15, invitee: invitee(), ...extra } }),
      offers: async (start: string) => {
        const to = new Date(Date.parse(start) + 15 * 60_000).toISOString();
        const res = await httpRequest(port, { path: `/api/v2/availability?eventTypeId=${eventTypeId}&from=${start}&to=${to}`, headers });
        expect(res.status).toBe(200);
        return ((res as { body: { data: unknown[] } }).body.data).length === 1;
      },
      page: (procedure: string, input: object) =>
        httpRequest(port, { method: 'POST', path: `/trpc/publicBooking.${procedure}`, body: superjson.serialize(input) }),
    };
  };
  const statuses = (outcomes: HttpOutcome[]) => outcomes.map((outcome) => outcome.status);
  const activeBlocks = async (start: string) =>
    (await orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from busy_block where host_id = ? and start_at = ? and active', [host.id, start]))[0]!.n;

  it('two holds of one slot, one through each instance: exactly one 201 and one 409, ten times over', async () => {
    for (let round = 0; round < 10; round++) {
      const start = freshSlot();
      const outcomes = await Promise.all([via(0).hold(start), via(1).hold(start)]);
      expect(statuses(outcomes).sort(), start).toEqual([201, 409]);
      expect(await activeBlocks(start)).toBe(1);
    }
  }, 120_000);

  it('twenty holds of one slot at once, half through each instance: exactly one 201', async () => {
    const start = freshSlot();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => via(i % 2).hold(start)));
    expect(statuses(outcomes).filter((status) => status === 201)).toHaveLength(1);
    expect(statuses(outcomes).filter((status) => status === 409)).toHaveLength(19);
    expect(await activeBlocks(start)).toBe(1);
  }, 120_000);

  it('a hold and a booking racing through different instances: one wins, ten times over, in either order', async () => {
    for (let round = 0; round < 10; round++) {
      const start = freshSlot();
      const [hold, booking] = round % 2 === 0 ? [via(0).hold(start), via(1).book(start)] : [via(1).hold(start), via(0).book(start)];
      const outcomes = await Promise.all([hold, booking]);
      expect(statuses(outcomes).sort(), start).toEqual([201, 409]);
      expect(await activeBlocks(start)).toBe(1);
    }
  }, 120_000);

  it('keeps the slot from the other instance until SLOT_HOLD_TTL ends, then it is offered and booked there', async () => {
    const start = freshSlot();
    const held = await via(0).hold(start);
    expect(held.status).toBe(201);
    const { expiresAt } = (held as { body: { expiresAt: string } }).body;
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(TTL_MS);
    expect(await via(1).offers(start)).toBe(false);
    expect((await via(1).book(start)).status).toBe(409);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 200));
    expect(await via(1).offers(start)).toBe(true);
    expect((await via(1).book(start)).status).toBe(201);
    expect(await activeBlocks(start)).toBe(1);
  }, 60_000);

  it('answers a hold used by another principal with 404 on either instance, and books it for its maker', async () => {
    const start = freshSlot();
    const held = await via(0).page('hold', { eventTypeId, startAt: start, durationMin: 15 });
    expect(held.status).toBe(200);
    const hold = (held as { body: { result: { data: { json: { id: string; holdToken: string } } } } }).body.result.data.json;
    const body = { eventTypeId, start, durationMin: 15, invitee: invitee() };
    // The host's own token, and another page with another token, through the other instance.
    expect((await via(1).book(start, { holdId: hold.id })).status).toBe(404);
    const otherPage = await via(1).page('book', { ...body, holdId: hold.id, holdToken: 'hld_someone-else' });
    expect(otherPage.status).toBe(404);
    const released = await via(1).page('releaseHold', { holdId: hold.id, holdToken: 'hld_someone-else' });
    expect(released.status).toBe(404);
    const booked = await via(1).page('book', { ...body, holdId: hold.id, holdToken: hold.holdToken });
    expect(booked.status).toBe(200);
    expect(await activeBlocks(start)).toBe(1);
  }, 60_000);

  it('a series from a hold on its first date: another series over it, through the other instance, is 409 there; the hold’s own books', async () => {
    const seriesTypeId = (await createEventType(orm.em.fork(), host.id, { durationsMin: [15], recurrence: { maxCount: 4 } })).id;
    const start = freshSlot();
    const headers = Object.fromEntries([bearer(host.token)]);
    const held = await httpRequest(services[0]!.port, {
      method: 'POST',
      path: '/api/v2/slot-holds',
      headers,
      body: { eventTypeId: seriesTypeId, startAt: start, durationMin: 15 },
    });
    expect(held.status).toBe(201);
    const holdId = (held as { body: { id: string } }).body.id;
    const body = { eventTypeId: seriesTypeId, startAt: start, durationMin: 15, invitee: invitee(), recurrence: { frequency: 'daily', interval: 1, count: 2 } };
    const theirs = await via(1).page('bookSeries', body);
    expect(theirs.status).toBe(409);
    const details = (theirs as { body: { error: { json: { details: { code: string; path: unknown[] }[] } } } }).body.error.json.details;
    expect(details).toEqual([expect.objectContaining({ code: 'held', path: ['occurrences', 0] })]);
    const mine = await httpRequest(services[1]!.port, { method: 'POST', path: '/api/v2/booking-series', headers, body: { ...body, holdId } });
    expect(mine.status, JSON.stringify(mine)).toBe(201);
    expect(await activeBlocks(start)).toBe(1);
    const [row] = await orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from slot_hold where id = ?', [holdId]);
    expect(row!.n).toBe(0);
  }, 60_000);
});
