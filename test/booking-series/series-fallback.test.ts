/**
 * When the exclusion constraint refuses a series' combined write of its blocks although the decision under the
 * hosts' locks granted every occurrence, the occurrences are written one by one to name those it refuses.
 *
 * Every writer of busy time takes the hosts' locks, and the decision reads their time once it holds them, so it
 * sees every block the constraint checks, but one: a slot hold written by a transaction that held the host's lock
 * while the series waited for it, and that has ended by the series' clock (the writer's transaction outlasted the
 * hold, or its instance's clock lags). The series' lock statement deletes the hosts' ended holds, but from the
 * snapshot it took before waiting, which does not hold that one; the read after it leaves the hold out as ended;
 * the constraint still counts its block. Here a plain connection plays that writer, with real SQL and real locks.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

// Monday 30 November 2026; the host works 9 to 5 on weekdays, in UTC.
const NOW = '2026-11-30T06:00:00.000Z';
const TUESDAYS = ['2026-12-01T10:00:00.000Z', '2026-12-08T10:00:00.000Z', '2026-12-15T10:00:00.000Z', '2026-12-22T10:00:00.000Z'];
const MINUTE = 60_000;

/** The names of the statements the app sends (prepared ones by name), to see which way the blocks were written. */
const sent: string[] = [];
const originalQuery = pg.Client.prototype.query;
function recordStatements(): void {
  sent.length = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [query] = args as [string | { name?: string; text?: string }];
    sent.push(typeof query === 'string' ? query : (query.name?.replace(/:\d+$/, '') ?? query.text ?? ''));
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
}

describe('a series whose combined write the exclusion constraint refuses', () => {
  let t: TestApp;
  let host: TestUser;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    host = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
    const hook = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(host.token))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
    expect(hook.status).toBe(201);
    eventType = await createEventType(t.em(), host.id, { durationsMin: [30], recurrence: { maxCount: 10 } });
  });
  afterEach(() => {
    pg.Client.prototype.query = originalQuery;
  });
  afterAll(() => t.close());

  const bookSeries = () =>
    t.http
      .post('/api/v2/booking-series')
      .set(...bearer(host.token))
      .send({ eventTypeId: eventType.id, startAt: TUESDAYS[0], durationMin: 30, invitee: invitee(), recurrence: { frequency: 'weekly', interval: 1, count: 4 } });

  /** Everything a series writes, in this file's own database. */
  async function footprint() {
    const [row] = await t.em().execute<Record<string, number>[]>(
      `select (select count(*)::int from booking_series) as series,
              (select count(*)::int from booking) as bookings,
              (select count(*)::int from busy_block) as blocks,
              (select count(*)::int from booking_busy_block) as links,
              (select count(*)::int from webhook_event) as events,
              (select count(*)::int from booking_message) as messages,
              (select count(*)::int from booking_calendar_event) as calendar_events`,
    );
    return row!;
  }

  /** Waits until a connection of this database waits for an advisory lock (the series, for the host's lock). */
  async function seriesWaitsForTheLock(): Promise<void> {
    const watcher = new pg.Client({ connectionString: t.database.url });
    await watcher.connect();
    try {
      for (const until = Date.now() + 1_500; Date.now() < until; ) {
        const { rows } = await watcher.query(
          `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
        );
        if (rows.length > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the series never waited for the host’s lock');
    } finally {
      await watcher.end();
    }
  }

  it('a 409 naming the occurrence whose block it refuses, and nothing of the series left behind', async () => {
    const before = await footprint();
    // The writer: the host's lock, then a hold on the second Tuesday that ended five minutes before the series' clock.
    const writer = new pg.Client({ connectionString: t.database.url });
    await writer.connect();
    const start = new Date(TUESDAYS[1]!);
    const end = new Date(start.getTime() + 30 * MINUTE);
    const holdId = newId();
    const expiresAt = new Date(Date.parse(NOW) - 5 * MINUTE);
    let response: Awaited<ReturnType<typeof bookSeries>>;
    try {
      await writer.query('begin');
      await writer.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`host-calendar:${host.id}`]);
      await writer.query(
        `insert into slot_hold (id, event_type_id, host_id, holder, start_at, end_at, duration_min, expires_at, created_at)
         values ($1, $2, $3, $4, $5, $6, 30, $7, $8)`,
        [holdId, eventType.id, host.id, `user:${host.id}`, start, end, expiresAt, new Date(expiresAt.getTime() - 5 * MINUTE)],
      );
      await writer.query(
        `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at, hold_id, hold_expires_at)
         values ($1, $2, $3, $4, $5, tstzrange($4, $5, '[)'), 1, true, $6, $7, $8)`,
        [newId(), host.id, eventType.id, start, end, expiresAt, holdId, expiresAt],
      );
      recordStatements();
      const booking = bookSeries().then((res) => res);
      await seriesWaitsForTheLock();
      await writer.query('commit');
      response = await booking;
    } finally {
      pg.Client.prototype.query = originalQuery;
      await writer.end();
    }

    expect(response.status, JSON.stringify(response.body)).toBe(409);
    expect(response.body).toEqual({
      title: 'Conflict',
      message: expect.stringContaining("1 of the series' 4 occurrences cannot be booked"),
      details: [{ code: 'taken', path: ['occurrences', 1], startAt: TUESDAYS[1], message: `${TUESDAYS[1]}: That slot was just taken. Pick another slot from /availability.` }],
    });
    // The combined statement, refused, then each occurrence alone.
    expect(sent.filter((name) => name === 'booking.busy-blocks')).toHaveLength(1 + 4);
    expect(sent).toContain('rollback to savepoint series_occurrence');
    // Nothing of the series: only the writer's ended hold is left.
    expect(await footprint()).toEqual({ ...before, blocks: before.blocks! + 1 });

    // The hold had ended: the same series again (its lock statement now sees the hold, and deletes it) is booked.
    const again = await bookSeries();
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.body.bookings.map((booking: { startAt: string }) => booking.startAt)).toEqual(TUESDAYS);
    expect(await t.em().execute('select id from busy_block where hold_id = ?', [holdId])).toEqual([]);
  });
});
