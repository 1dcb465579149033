import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { emitLeadEvents, eventually, startReceiver } from './support.ts';

const EVENTS = 50;
/** Longer than a poll (500 ms): while one instance waits for its batch, the other polls again and again. */
const ANSWER_AFTER_MS = 800;
/** One instance sends at most one claimed batch (10) at a time. */
const BATCH = 10;

/**
 * Two app instances on one database, each with its delivery worker: each event reaches the receiver exactly
 * once. The receiver answers slowly, so every delivery is still pending (in flight) while the other instance
 * polls: a claim that did not lock and lease its rows in one statement would hand it to both.
 */
describe('two instances on one database', () => {
  let first: TestApp;
  let second: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' };
    first = await startTestApp({ env });
    second = await startTestApp({ env, database: first.database });
    owner = await createUserWithToken(first.em());
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it(`deliver each of ${EVENTS} events exactly once, both sending at the same time`, async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const receiver = await startReceiver(() => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      setTimeout(() => inFlight--, ANSWER_AFTER_MS);
      return { status: 200, delayMs: ANSWER_AFTER_MS };
    });
    try {
      const res = await first.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: receiver.url, events: ['lead.created'] });
      expect(res.status).toBe(201);
      const eventIds = await emitLeadEvents(first.em(), owner.id, EVENTS);
      await eventually(async () => {
        const [row] = await first.em().execute<{ done: number }[]>(
          "select count(*)::int as done from webhook_delivery where endpoint_id = ? and status = 'succeeded'",
          [res.body.id],
        );
        return row!.done === EVENTS ? true : undefined;
      }, 30_000);
      // A late duplicate would arrive within one more poll and answer.
      await new Promise((resolve) => setTimeout(resolve, 1500));

      const perId = new Map<string, number>();
      for (const request of receiver.received) {
        const id = String(request.headers['webhook-id']);
        perId.set(id, (perId.get(id) ?? 0) + 1);
      }
      expect(new Set(perId.keys())).toEqual(new Set(eventIds));
      expect([...perId.values()].filter((count) => count !== 1)).toEqual([]);
      // More than one batch in flight at once: both instances were sending, not one alone.
      expect(mostInFlight).toBeGreaterThan(BATCH);
    } finally {
      await receiver.close();
    }
  });
});
