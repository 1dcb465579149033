/**
 * A series racing a single booking on one of its dates, over two instances (`npm start` in child processes, one
 * database, no memory shared): exactly one of them wins each time, and a losing series leaves nothing behind (no
 * booking, series, busy time, webhook event or e-mail). Both sides queue on the host's calendar lock, which every
 * instance takes before deciding; the exclusion constraint keeps the last word. Two series whose days a daily
 * limit allows only once: one books, the other is refused with each occurrence named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { SKIPPED } from '../../src/modules/booking-messages/message-plan.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { httpRequest, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { invitee, setSchedule } from '../bookings/fixtures.ts';

const ROUNDS = 8;
const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, ALL_DAY]));
const ENV = { BOOKING_WAIT_MS: '30000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
const WEEK = 7 * 86_400_000;

describe('a series racing a single booking, over two instances', () => {
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

  const post = async (service: ServiceProcess, user: TestUser, path: string, body: object) => {
    const outcome = await httpRequest(service.port, { method: 'POST', path, headers: Object.fromEntries([bearer(user.token)]), body });
    if (outcome.status === 'error') throw new Error(`POST ${path}: ${outcome.error}`);
    return outcome;
  };

  async function footprint(ownerId: string) {
    const [row] = await orm.em.fork().execute<{ bookings: number; series: number; blocks: number; events: number; messages: number }[]>(
      `select (select count(*)::int from booking where owner_id = ?) as bookings,
              (select count(*)::int from booking_series where owner_id = ?) as series,
              (select count(*)::int from busy_block where host_id = ? and active) as blocks,
              (select count(*)::int from webhook_event where owner_id = ?) as events,
              (select count(*)::int from booking_message m join booking b on b.id = m.booking_id where b.owner_id = ? and m.last_error is distinct from ?) as messages`,
      [ownerId, ownerId, ownerId, ownerId, ownerId, SKIPPED.inSeries],
    );
    return row!;
  }

  it(`${ROUNDS} rounds: exactly one of the two wins; a losing series leaves nothing, a winning one all four`, async () => {
    const first = new Date();
    first.setUTCDate(first.getUTCDate() + 2);
    first.setUTCHours(10, 0, 0, 0);
    const outcomes: string[] = [];
    const perBooking = new Set<number>();
    for (let round = 0; round < ROUNDS; round++) {
      const user = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
      await setSchedule(orm.em.fork(), user.id, EVERY_DAY);
      const eventType = await createEventType(orm.em.fork(), user.id, { durationsMin: [30], recurrence: { maxCount: 4 } });
      const hook = await post(services[0]!, user, '/api/v2/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
      expect(hook.status).toBe(201);

      const third = new Date(first.getTime() + 2 * WEEK).toISOString();
      const [seriesService, singleService] = round % 2 === 0 ? [services[0]!, services[1]!] : [services[1]!, services[0]!];
      const [series, single] = await Promise.all([
        post(seriesService, user, '/api/v2/booking-series', {
          eventTypeId: eventType.id,
          startAt: first.toISOString(),
          durationMin: 30,
          invitee: invitee(),
          recurrence: { frequency: 'weekly', interval: 1, count: 4 },
        }),
        post(singleService, user, '/api/v2/bookings', { eventTypeId: eventType.id, start: third, durationMin: 30, invitee: invitee() }),
      ]);
      expect([series.status, single.status].sort()).toEqual([201, 409]);
      const after = await footprint(user.id);
      if (series.status === 201) {
        outcomes.push('series');
        expect((series.body as { bookings: unknown[] }).bookings).toHaveLength(4);
        expect(after).toMatchObject({ bookings: 4, series: 1, blocks: 4, events: 4 });
        expect(single.body).toMatchObject({ title: 'Conflict' });
      } else {
        outcomes.push('single');
        expect(series.body).toMatchObject({ title: 'Conflict', details: [{ code: 'booked', path: ['occurrences', 2], startAt: third }] });
        expect(after).toMatchObject({ bookings: 1, series: 0, blocks: 1, events: 1 });
      }
      // Whoever won announced itself once (the invitee's confirmation, the host's note) and planned as many reminders
      // per booking: a losing series left none of its own.
      expect(after.messages).toBeGreaterThan(2);
      perBooking.add((after.messages - 2) / after.bookings);
    }
    expect([...perBooking]).toHaveLength(1);
    // Which side wins is up to the race; the test prints it so a run that never saw one side is visible.
    console.info(`series racing a single booking: ${outcomes.join(', ')}`);
  }, 180_000);

  it('two daily series on the same days at other times, one through each instance, with perDay 1: exactly one books', async () => {
    const user = await createUserWithToken(orm.em.fork(), { timezone: 'UTC' });
    await setSchedule(orm.em.fork(), user.id, EVERY_DAY);
    const eventType = await createEventType(orm.em.fork(), user.id, { durationsMin: [30], limits: { perDay: 1 }, recurrence: { maxCount: 5 } });
    const day = new Date();
    day.setUTCDate(day.getUTCDate() + 3);
    const at = (hour: number) => new Date(day.setUTCHours(hour, 0, 0, 0)).toISOString();
    const daily = (service: ServiceProcess, startAt: string) =>
      post(service, user, '/api/v2/booking-series', {
        eventTypeId: eventType.id,
        startAt,
        durationMin: 30,
        invitee: invitee(),
        recurrence: { frequency: 'daily', interval: 1, count: 3 },
      });
    const outcomes = await Promise.all([daily(services[0]!, at(9)), daily(services[1]!, at(15))]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([201, 409]);
    const lost = outcomes.find((outcome) => outcome.status === 409)!;
    expect((lost.body as { details: { code: string }[] }).details.map((detail) => detail.code)).toEqual(['daily_limit', 'daily_limit', 'daily_limit']);
    expect(await footprint(user.id)).toMatchObject({ bookings: 3, series: 1, blocks: 3 });
  }, 60_000);
});
