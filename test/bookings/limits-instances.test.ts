/**
 * A daily limit is exact across instances: two services (`npm start` in child processes, so no memory is shared)
 * on one database take 50 simultaneous bookings of 50 different slots of one day with `perDay: 3`, and exactly
 * three succeed. The count runs under the host's calendar lock (a PostgreSQL advisory lock), which every instance
 * takes before deciding; bookings of other hosts, sent at the same time, are not held up by it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { httpRequest, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { invitee, setSchedule } from './fixtures.ts';

const BOOKINGS = 50;
const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, ALL_DAY]));
/** Bookings waiting for the host's lock may wait this long on a loaded machine before their 409. */
const ENV = { BOOKING_WAIT_MS: '30000' };

describe('limits across two instances', () => {
  let database: TestDatabase;
  let orm: Orm;
  let services: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 2 });
    services = await Promise.all([startService({ DATABASE_URL: database.url, ...ENV }), startService({ DATABASE_URL: database.url, ...ENV })]);
  }, 120_000);
  afterAll(async () => {
    for (const service of services) service.kill();
    await orm.close();
    await database.drop();
  });

  async function hostWith(limits: { perDay: number } | null): Promise<{ user: TestUser; eventTypeId: string }> {
    const user = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
    await setSchedule(orm.em.fork(), user.id, EVERY_DAY);
    return { user, eventTypeId: (await createEventType(orm.em.fork(), user.id, { durationsMin: [15], limits })).id };
  }

  /** 15-minute slots of the day after tomorrow (UTC), from 00:00. */
  function slotsOfOneDay(count: number): string[] {
    const day = new Date();
    day.setUTCDate(day.getUTCDate() + 2);
    day.setUTCHours(0, 0, 0, 0);
    return Array.from({ length: count }, (_, i) => new Date(day.getTime() + i * 15 * 60_000).toISOString());
  }

  const book = (service: ServiceProcess, host: { user: TestUser; eventTypeId: string }, start: string) =>
    httpRequest(service.port, {
      method: 'POST',
      path: '/api/v2/bookings',
      headers: Object.fromEntries([bearer(host.user.token)]),
      body: { eventTypeId: host.eventTypeId, start, durationMin: 15, invitee: invitee() },
    });

  it(`${BOOKINGS} simultaneous bookings, half through each instance, with perDay 3: exactly three 201, the rest 409`, async () => {
    const limited = await hostWith({ perDay: 3 });
    const unrelated = await Promise.all(Array.from({ length: 10 }, () => hostWith(null)));
    const starts = slotsOfOneDay(BOOKINGS);
    const [outcomes, others] = await Promise.all([
      Promise.all(starts.map((start, i) => book(services[i % 2]!, limited, start))),
      Promise.all(unrelated.map((host, i) => book(services[i % 2]!, host, starts[i]!))),
    ]);
    const statuses = outcomes.map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(BOOKINGS - 3);
    for (const outcome of outcomes.filter((o) => o.status === 409)) {
      expect(outcome).toMatchObject({ body: { title: 'Conflict', message: expect.any(String) } });
    }
    expect(others.map((outcome) => outcome.status)).toEqual(Array(unrelated.length).fill(201));

    const [row] = await orm.em.fork().execute<{ bookings: number; blocks: number }[]>(
      `select (select count(*)::int from booking where event_type_id = ? and status = 'active') as bookings,
              (select count(*)::int from busy_block where event_type_id = ? and active) as blocks`,
      [limited.eventTypeId, limited.eventTypeId],
    );
    expect(row).toEqual({ bookings: 3, blocks: 3 });
  }, 120_000);
});
