import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

/**
 * What a 52-occurrence series costs inside its booking transaction, which holds the host's calendar lock from the
 * first statement to the commit: every other booking of that host waits meanwhile. The statements are read off
 * the real driver and pinned; the time inside the transaction is printed, not asserted (SERIES_RUNS=5 prints the
 * median of five series).
 */

interface Sent {
  name?: string;
  text: string;
  client: pg.Client;
  at: number;
  done?: number;
}

const sent: Sent[] = [];
const originalQuery = pg.Client.prototype.query;

function recordStatements(): void {
  sent.length = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [query] = args as [string | { name?: string; text?: string }];
    const statement: Sent =
      typeof query === 'string'
        ? { text: query, client: this, at: performance.now() }
        : { name: query.name, text: query.text ?? '', client: this, at: performance.now() };
    sent.push(statement);
    const result = (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) void result.finally(() => (statement.done = performance.now())).catch(() => {});
    return result;
  } as typeof pg.Client.prototype.query;
}

/** The series transaction's statements, `begin` to `commit` on its connection. */
function seriesTransaction(): Sent[] {
  const begin = sent.findIndex((statement) => statement.text === 'begin');
  expect(begin, 'a transaction').toBeGreaterThanOrEqual(0);
  const onItsConnection = sent.slice(begin).filter((statement) => statement.client === sent[begin]!.client);
  return onItsConnection.slice(0, onItsConnection.findIndex((statement) => statement.text === 'commit') + 1);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('round trips of POST /api/v2/booking-series', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;

  beforeAll(async () => {
    // Monday 2 March 2026: the series run weekly from the next day on.
    t = await startTestApp({ clock: fixedClock('2026-03-02T06:00:00Z'), env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    const hook = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(owner.token))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
    expect(hook.status).toBe(201);
    eventTypeId = (await createEventType(t.em(), owner.id, { durationsMin: [30], recurrence: { maxCount: 52 } })).id;
  });
  afterEach(() => {
    pg.Client.prototype.query = originalQuery;
  });
  afterAll(() => t.close());

  it('a 52-occurrence weekly series: its statements between begin and commit', async () => {
    const runs = Number(process.env.SERIES_RUNS ?? 1);
    const times: number[] = [];
    let names: string[] = [];
    for (let run = 0; run < runs; run++) {
      recordStatements();
      const startAt = `2026-03-03T${String(9 + run).padStart(2, '0')}:00:00Z`;
      const response = await t.http
        .post('/api/v2/booking-series')
        .set(...bearer(owner.token))
        .send({ eventTypeId, startAt, durationMin: 30, invitee: invitee(), recurrence: { frequency: 'weekly', interval: 1, count: 52 } });
      pg.Client.prototype.query = originalQuery;
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const inside = seriesTransaction();
      times.push(inside.at(-1)!.done! - inside[0]!.at);
      names = inside.map((statement) => statement.name?.replace(/:\d+$/, '') ?? statement.text.replace(/\s+/g, ' ').slice(0, 40));
    }
    console.log(`52-occurrence series: ${names.length} statements from begin to commit, ${median(times).toFixed(1)} ms inside the transaction (median of ${runs}: ${times.map((ms) => ms.toFixed(0)).join(', ')})`);
    const counts = new Map<string, number>();
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    console.log([...counts].map(([name, n]) => `${n} × ${name}`).join('\n'));
    expect(names).toEqual([
      'begin',
      'event-type',
      'with listed as ( select user_id from eve',
      'booking.host-locks-purging',
      // The hosts' busy time for the whole series, read once under their locks; every occurrence decided on it.
      'host-busy',
      'savepoint series_plan',
      'booking.busy-blocks',
      'release savepoint series_plan',
      // The series row, the 52 bookings and their links to their blocks.
      'booking-series.create',
      // The invitee's contact once, a webhook event and the reminders of each occurrence, 24 writes a statement.
      ...Array.from({ length: 5 }, () => expect.stringMatching(/^with /)),
      // The series' one confirmation per recipient.
      'booking-message.queue',
      'select s.id, s.owner_id, s.event_type_id',
      'select b.id, b.owner_id, b.host_id, b.ev',
      'commit',
    ]);
  });
});
