import type { PostgreSqlConnection } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

/**
 * What a booking costs in round trips, pinned: each statement is a round trip holding the host's turn, and each
 * unprepared one is parsed and planned again by PostgreSQL. The statements are read off the real driver.
 */

interface Sent {
  /** The prepared statement's name; undefined for a statement sent as plain text. */
  name?: string;
  text: string;
  /** Which connection: the app's background work (principal cache, webhook worker) runs on others. */
  client: pg.Client;
}

const sent: Sent[] = [];
const originalQuery = pg.Client.prototype.query;

function recordStatements(): void {
  sent.length = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [query] = args as [string | { name?: string; text?: string }];
    sent.push(typeof query === 'string' ? { text: query, client: this } : { name: query.name, text: query.text ?? '', client: this });
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/** The booking transaction's statements, `begin` to `commit` on its connection, and the booking's last statement before it. */
function bookingTransaction(): { before: Sent | undefined; inside: Sent[] } {
  const begin = sent.findIndex((statement) => statement.text === 'begin');
  expect(begin, 'a transaction').toBeGreaterThan(0);
  const onItsConnection = sent.slice(begin).filter((statement) => statement.client === sent[begin]!.client);
  const commit = onItsConnection.findIndex((statement) => statement.text === 'commit');
  const before = sent.slice(0, begin).filter((statement) => statement.name?.startsWith('booking.')).at(-1);
  return { before, inside: onItsConnection.slice(0, commit + 1) };
}

describe('round trips of POST /api/v2/bookings', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;
  let teamEventTypeId: string;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock('2026-03-01T12:00:00Z') });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, { name: 'Intro', slug: 'intro', durationsMin: [30] })).id;
    const team = [owner.id];
    for (let n = 0; n < 2; n++) {
      const member = await createUserWithToken(t.em(), { timezone: 'UTC' });
      await setSchedule(t.em(), member.id, WEEKDAYS_9_TO_5);
      team.push(member.id);
    }
    teamEventTypeId = (await createEventType(t.em(), owner.id, { name: 'Team', slug: 'team', kind: 'round_robin', hosts: team })).id;
  });
  afterEach(() => {
    pg.Client.prototype.query = originalQuery;
  });
  afterAll(() => t.close());

  const book = (start: string, idempotencyKey?: string, ofEventType = eventTypeId) => {
    const request = t.http.post('/api/v2/bookings').set(...bearer(owner.token));
    if (idempotencyKey) request.set('Idempotency-Key', idempotencyKey);
    return request.send({ eventTypeId: ofEventType, start, durationMin: 30, invitee: invitee() });
  };

  it('without an Idempotency-Key: the event type and calendars read first, then 5 statements between begin and commit, all prepared', async () => {
    recordStatements();
    expect((await book('2026-03-02T10:00:00Z')).status).toBe(201);
    const { before, inside } = bookingTransaction();
    expect(before?.name).toMatch(/^booking\.event-type-calendars:/);
    // Before the transaction too (the rate limit, the hosts' stale calendars, the first look), every statement is
    // prepared; the principal cache's `select 1` proofs run on a connection of their own.
    const outside = sent.slice(0, sent.indexOf(inside[0]!)).filter((statement) => statement.text !== 'select 1');
    expect(outside.filter((statement) => statement.name === undefined).map((statement) => statement.text)).toEqual([]);
    expect(outside.map((statement) => statement.name?.replace(/:\d+$/, ''))).toContain('calendars.stale-connections');
    expect(inside.map((statement) => statement.name?.replace(/:\d+$/, '') ?? statement.text)).toEqual([
      'begin',
      // The hosts' locks, bounding the booking's lock waits and taking out their ended slot holds' blocks in the
      // same round trip.
      'booking.host-locks-purging',
      'host-busy',
      'booking.busy-block',
      'booking.create',
      // No calendar-event.queue: the decision under the locks saw that no calendar of the host receives bookings.
      // The writes that need no answer go in one statement: the contact, the webhook outbox, the e-mail outbox.
      'contact.refresh+webhook.emit+booking-message.queue',
      'commit',
    ]);
  });

  it('with an Idempotency-Key: the claim first in the transaction, the response stored last, all prepared', async () => {
    recordStatements();
    expect((await book('2026-03-02T11:00:00Z', 'round-trips-1')).status).toBe(201);
    const { inside } = bookingTransaction();
    const names = inside.map((statement) => statement.name?.replace(/:\d+$/, '') ?? statement.text);
    expect(names.slice(0, 4)).toEqual(['begin', 'idempotency.forget-expired', 'idempotency.claim', 'booking.event-type-calendars']);
    expect(names.slice(-2)).toEqual(['idempotency.store', 'commit']);
    expect(inside.filter((statement) => statement.name === undefined).map((statement) => statement.text)).toEqual(['begin', 'commit']);
  });

  it('keeps a generic plan of every statement it prepares, once PostgreSQL has made its first five custom ones', async () => {
    for (let hour = 9; hour < 17; hour++) {
      const at = `T${String(hour).padStart(2, '0')}:00:00Z`;
      expect((await book(`2026-03-03${at}`)).status).toBe(201);
      // A round robin's decision reads its three hosts' busy time in one statement.
      expect((await book(`2026-03-04${at}`, undefined, teamEventTypeId)).status).toBe(201);
    }
    const pool = await (t.orm.em.getConnection() as PostgreSqlConnection).getNativeClient();
    const idle = await Promise.all(Array.from({ length: pool.idleCount }, () => pool.connect()));
    try {
      const plans = [];
      for (const client of idle) {
        const { rows } = await client.query<{ name: string; custom_plans: string }>(
          "select name, custom_plans from pg_prepared_statements where name like 'booking.%' or name like 'host-busy%'",
        );
        plans.push(...rows);
      }
      expect(plans.map((plan) => plan.name)).toContainEqual(expect.stringMatching(/^host-busy:/));
      // A statement planned afresh on every call (PostgreSQL found its generic plan costlier) shows as more custom plans.
      expect(plans.filter((plan) => Number(plan.custom_plans) > 5)).toEqual([]);
    } finally {
      for (const client of idle) client.release();
    }
  });
});
