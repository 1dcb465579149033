import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { emitWebhookEvent } from '../../src/modules/webhooks/outbox.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type Receiver, startReceiver } from './support.ts';

const DAY_MS = 86_400_000;
const RECEIVER_ANSWER = 'receiver-answer-that-must-never-be-logged';

/** The wall clock moved by `offsetMs`: the worker's polls keep running while the test jumps hours and days ahead. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offsetMs = 0;
  return { now: () => new Date(Date.now() + offsetMs), advance: (ms) => void (offsetMs += ms) };
}

interface DeliveryView {
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

describe('delivery rules: the 5-day rule on the app clock, the body limit, nothing from receivers in the log', () => {
  const clock = movableClock();
  const log: string[] = [];
  let t: TestApp;
  let owner: TestUser;
  let status = 500;
  let receiver: Receiver;

  const register = async (events: string[]) => {
    const res = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: receiver.url, events });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const endpoint = async (id: string) => (await t.http.get(`/api/v2/webhooks/${id}`).set(...bearer(owner.token))).body;
  const ping = async (id: string) => (await t.http.post(`/api/v2/webhooks/${id}/test`).set(...bearer(owner.token)).send({})).body as { id: string };
  const delivery = async (webhookId: string, deliveryId: string): Promise<DeliveryView> => {
    const list = (await t.http.get(`/api/v2/webhooks/${webhookId}/deliveries`).set(...bearer(owner.token))).body.data as (DeliveryView & { id: string })[];
    return list.find((entry) => entry.id === deliveryId)!;
  };
  const near = (iso: string | null, expected: Date, withinMs = 10_000) =>
    expect(Math.abs(new Date(iso!).getTime() - expected.getTime())).toBeLessThan(withinMs);

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    t = await startTestApp({
      clock,
      logStream,
      env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h,1h,1h,1h,1h' },
    });
    owner = await createUserWithToken(t.em());
    receiver = await startReceiver(() => ({ status, body: RECEIVER_ANSWER }));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('disables an endpoint whose deliveries all failed for 5 days; PATCH active: true re-enables it with a new streak', async () => {
    const id = await register(['lead.created']);
    const first = await ping(id);
    const failed = await eventually(async () => {
      const view = await delivery(id, first.id);
      return view.lastError === null ? undefined : view;
    });
    expect(failed.attempts).toBe(1);
    // Every time the webhooks store comes from the app clock, the one createdAt uses.
    near(failed.createdAt, clock.now());
    near(failed.nextAttemptAt, new Date(clock.now().getTime() + 3_600_000));
    expect((await endpoint(id)).active).toBe(true);

    clock.advance(5 * DAY_MS);
    const disabled = await eventually(async () => {
      const view = await endpoint(id);
      return view.active ? undefined : view;
    });
    expect(disabled.disabledReason).toMatch(/^Every delivery failed from .* \(5 days\)$/);

    const enabled = await t.http.patch(`/api/v2/webhooks/${id}`).set(...bearer(owner.token)).send({ active: true });
    expect(enabled.body).toMatchObject({ active: true, disabledReason: null });
    // The streak starts again: one more failure does not disable it.
    const again = await ping(id);
    await eventually(async () => ((await delivery(id, again.id)).lastError === null ? undefined : true));
    expect(await endpoint(id)).toMatchObject({ active: true, disabledReason: null });

    status = 200;
    clock.advance(3_600_000);
    const success = await eventually(async () => {
      const view = await delivery(id, again.id);
      return view.status === 'succeeded' ? view : undefined;
    });
    near(success.deliveredAt, clock.now());
  });

  it('never sends an event whose body is over 256 KB: its delivery fails saying so', async () => {
    const id = await register(['lead.updated']);
    const before = receiver.received.length;
    await t.em().transactional((tx) => emitWebhookEvent(tx, owner.id, 'lead.updated', { id: 'lead_big', notes: 'x'.repeat(300 * 1024) }, clock.now()));
    const [row] = await eventually(async () => {
      const rows = await t.em().execute<{ status: string; last_error: string | null }[]>(
        'select status, last_error from webhook_delivery where endpoint_id = ?',
        [id],
      );
      return rows[0]?.status === 'failed' ? rows : undefined;
    });
    expect(row!.last_error).toMatch(/over the limit of 262144 \(256 KB\); it is never sent/);
    expect(receiver.received.length).toBe(before);
  });

  it('stores the first KB of a receiver\'s answer and never writes it to the log', async () => {
    status = 500;
    const id = await register(['lead.created']);
    const sent = await ping(id);
    await eventually(async () => ((await delivery(id, sent.id)).lastError === null ? undefined : true));
    const [row] = await t.em().execute<{ last_response_body: string }[]>('select last_response_body from webhook_delivery where id = ?', [sent.id]);
    expect(row!.last_response_body).toBe(RECEIVER_ANSWER);
    expect(log.join('')).toContain('"url":"/api/v2/webhooks/');
    expect(log.join('')).not.toContain(RECEIVER_ANSWER);
  });
});
