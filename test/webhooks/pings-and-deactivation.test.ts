import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { emitPing } from '../../src/modules/webhooks/outbox.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type Receiver, startReceiver } from './support.ts';

/** The wall clock moved by `offsetMs`, so a test can step past the ping window while the worker keeps polling. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offsetMs = 0;
  return { now: () => new Date(Date.now() + offsetMs), advance: (ms) => void (offsetMs += ms) };
}

interface DeliveryView {
  id: string;
  status: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
}

describe('test pings and deactivated endpoints', () => {
  const clock = movableClock();
  let t: TestApp;
  let owner: TestUser;
  let status = 500;
  let receiver: Receiver;

  const register = async () => {
    const res = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: receiver.url, events: ['lead.created'] });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const ping = (id: string) => t.http.post(`/api/v2/webhooks/${id}/test`).set(...bearer(owner.token)).send({});
  const setActive = (id: string, active: boolean) =>
    t.http.patch(`/api/v2/webhooks/${id}`).set(...bearer(owner.token)).send({ active });
  const deliveries = async (id: string) =>
    (await t.http.get(`/api/v2/webhooks/${id}/deliveries`).set(...bearer(owner.token))).body.data as DeliveryView[];
  const receivedFor = (id: string) => receiver.received.filter((request) => request.body.includes(id)).length;

  beforeAll(async () => {
    t = await startTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h,1h' } });
    owner = await createUserWithToken(t.em());
    receiver = await startReceiver(() => ({ status }));
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('queues 5 test pings a minute per endpoint, then answers 429 with Retry-After until the minute has passed', async () => {
    const id = await register();
    const other = await register();
    for (let i = 0; i < 5; i++) expect((await ping(id)).status).toBe(202);

    const refused = await ping(id);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ title: 'Too Many Requests', message: expect.stringMatching(/at most 5 test events a minute/i) });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(refused.headers[header]).toBeDefined();
    expect(await deliveries(id)).toHaveLength(5);
    // The budget is the endpoint's own.
    expect((await ping(other)).status).toBe(202);

    clock.advance(retryAfter * 1000);
    expect((await ping(id)).status).toBe(202);
  });

  it('counts a redelivered ping against the same limit: 429, nothing queued', async () => {
    const id = await register();
    for (let i = 0; i < 5; i++) expect((await ping(id)).status).toBe(202);
    const [aPing] = await deliveries(id);
    const redeliver = (deliveryId: string) =>
      t.http.post(`/api/v2/webhooks/${id}/deliveries/${deliveryId}/redeliver`).set(...bearer(owner.token));
    const refused = await redeliver(aPing!.id);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await deliveries(id)).toHaveLength(5);
  });

  it('refuses a test ping to a deactivated endpoint with 409, queuing nothing', async () => {
    const id = await register();
    expect((await setActive(id, false)).status).toBe(200);
    const refused = await ping(id);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ title: 'Conflict', message: expect.stringMatching(/disabled/) });
    expect(await deliveries(id)).toEqual([]);
  });

  it('ends the pending deliveries of an endpoint its owner deactivates as failed, at once', async () => {
    status = 500;
    const id = await register();
    const sent = (await ping(id)).body as DeliveryView;
    // The first attempt failed; the next is an hour away.
    await eventually(async () => ((await deliveries(id))[0]?.attempts === 1 ? true : undefined));
    expect((await deliveries(id))[0]).toMatchObject({ id: sent.id, status: 'pending' });

    expect((await setActive(id, false)).status).toBe(200);
    expect((await deliveries(id))[0]).toMatchObject({ id: sent.id, status: 'failed', nextAttemptAt: null, lastError: expect.stringMatching(/disabled/) });
  });

  it('ends the pending deliveries as failed when a 410 Gone disables the endpoint', async () => {
    status = 500;
    const id = await register();
    const waiting = (await ping(id)).body as DeliveryView;
    await eventually(async () => ((await deliveries(id)).find((d) => d.id === waiting.id)?.attempts === 1 ? true : undefined));
    status = 410;
    await ping(id);
    await eventually(async () => ((await t.http.get(`/api/v2/webhooks/${id}`).set(...bearer(owner.token))).body.active ? undefined : true));
    expect((await deliveries(id)).find((d) => d.id === waiting.id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
  });

  it('never delivers anything, a ping included, to an endpoint that is deactivated', async () => {
    status = 200;
    const id = await register();
    await t.em().execute('update webhook_endpoint set active = false where id = ?', [id], 'run');
    // As if queued an instant before the endpoint was turned off.
    const deliveryId = await t.em().transactional((tx) => emitPing(tx, owner.id, id, clock.now()));
    const ended = await eventually(async () => {
      const found = (await deliveries(id)).find((d) => d.id === deliveryId);
      return found?.status === 'pending' ? undefined : found;
    });
    expect(ended).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/disabled/) });
    expect(receivedFor(id)).toBe(0);
  });
});
