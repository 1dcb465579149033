import superjson from 'superjson';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { eventually, startReceiver } from './support.ts';

const ALL_EVENTS = ['booking.created', 'booking.rescheduled', 'booking.canceled', 'booking.no_show', 'lead.created', 'lead.updated', 'lead.converted'];
// Retries 100 ms apart, so an attempt waits for little more than the worker's next poll.
const ENV = { ...BEHIND_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' };

describe('webhook delivery to real receivers', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventType: TestEventType;
  const receivers: { close(): Promise<void> }[] = [];

  /** Answers with the next scripted status (then 200), with a body longer than a delivery keeps. */
  const receiver = async (statuses: number[] = []) => {
    const started = await startReceiver(() => ({ status: statuses.shift() ?? 200, body: 'x'.repeat(3000) }));
    receivers.push(started);
    return started;
  };
  const register = async (user: TestUser, url: string, events: string[] = ALL_EVENTS) => {
    const res = await t.http.post('/api/v2/webhooks').set(...bearer(user.token)).send({ url, events });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const deliveries = async (user: TestUser, id: string) =>
    (await t.http.get(`/api/v2/webhooks/${id}/deliveries`).set(...bearer(user.token))).body.data as {
      status: string;
      attempts: number;
      eventId: string;
      lastStatusCode: number | null;
      lastError: string | null;
      deliveredAt: string | null;
      body: string;
    }[];

  beforeAll(async () => {
    t = await startTestApp({ env: ENV });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventType = await createEventType(t.em(), owner.id);
  });
  afterAll(async () => {
    await t.close();
    for (const started of receivers) await started.close();
  });

  it('delivers every event kind, signed and verifiable with standardwebhooks, the body being the REST resource and shown in the log', async () => {
    const inbox = await receiver();
    const endpoint = await register(owner, inbox.url);
    const verifier = new Webhook(endpoint.secret);
    const day = new Date(Date.now() + 7 * 86_400_000);
    day.setUTCHours(0, 0, 0, 0);
    while ([0, 6].includes(day.getUTCDay())) day.setUTCDate(day.getUTCDate() + 1);
    const at = (hour: number) => new Date(day.getTime() + hour * 3_600_000).toISOString();

    const created = await t.http.post('/api/v2/bookings').set(...bearer(owner.token))
      .send({ eventTypeId: eventType.id, start: at(9), durationMin: 30, invitee: invitee() });
    expect(created.status).toBe(201);
    await t.http.post(`/api/v2/bookings/${created.body.id}/reschedule`).set(...bearer(owner.token)).send({ start: at(10) });
    await t.http.delete(`/api/v2/bookings/${created.body.id}`).set(...bearer(owner.token)).send({});
    const past = await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - 86_400_000) });
    await t.http.post(`/api/v2/bookings/${past.id}/no-show`).set(...bearer(owner.token)).send({});
    const publicCall = (path: string, input: unknown) =>
      t.http.post(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.7').send(superjson.serialize(input) as object);
    const email = 'lena.lead@example.test';
    await publicCall('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Lena', email, timezone: 'UTC' });
    const [lead] = await t.em().execute<{ id: string }[]>('select id from lead where owner_id = ?', [owner.id]);
    await t.http.patch(`/api/v2/leads/${lead!.id}`).set(...bearer(owner.token)).send({ status: 'qualified' });
    await publicCall('publicBooking.book', { eventTypeId: eventType.id, start: at(11), durationMin: 30, invitee: { name: 'Lena', email, timezone: 'UTC' } });

    await eventually(() => (inbox.received.length >= 8 ? true : undefined));
    const bodies = inbox.received.map((request) => verifier.verify(request.body, request.headers as Record<string, string>) as { id: string; type: string; data: { id: string } });
    expect(new Set(bodies.map((body) => body.type))).toEqual(new Set(ALL_EVENTS));
    for (const request of inbox.received) expect(request.headers['webhook-id']).toBe(JSON.parse(request.body).id);
    const createdEvent = bodies.find((body) => body.type === 'booking.created' && body.data.id === created.body.id);
    expect(createdEvent?.data).toEqual(created.body);
    const done = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list.every((delivery) => delivery.status === 'succeeded') ? list : undefined;
    });
    expect(done).toHaveLength(8);
    // The log shows each body exactly as it was sent (and signed).
    const sent = new Map(inbox.received.map((request) => [String(request.headers['webhook-id']), request.body]));
    for (const delivery of done) expect(delivery.body).toBe(sent.get(delivery.eventId));
    const [stored] = await t.em().execute<{ length: number }[]>(
      'select max(length(last_response_body))::int as length from webhook_delivery where endpoint_id = ?',
      [endpoint.id],
    );
    expect(stored!.length).toBe(1024);
  });

  it('retries 500, 500 then 200 with one webhook-id and ends succeeded after 3 attempts', async () => {
    const flaky = await receiver([500, 500, 200]);
    const endpoint = await register(owner, flaky.url);
    const ping = await t.http.post(`/api/v2/webhooks/${endpoint.id}/test`).set(...bearer(owner.token)).send({});
    expect(ping.status).toBe(202);
    const [delivery] = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    });
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 200 });
    expect(flaky.received).toHaveLength(3);
    expect(new Set(flaky.received.map((request) => request.headers['webhook-id']))).toEqual(new Set([ping.body.eventId]));
    expect(JSON.parse(flaky.received[0]!.body)).toMatchObject({ type: 'ping', data: { webhookId: endpoint.id } });
  });

  it('ends failed after 1 + N attempts of the retry schedule, recording the last status', async () => {
    const broken = await receiver([503, 503, 503, 200]);
    const endpoint = await register(owner, broken.url);
    await t.http.post(`/api/v2/webhooks/${endpoint.id}/test`).set(...bearer(owner.token)).send({});
    const [delivery] = await eventually(async () => {
      const list = await deliveries(owner, endpoint.id);
      return list[0]?.status === 'failed' ? list : undefined;
    });
    expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 503, deliveredAt: null });
    expect(broken.received).toHaveLength(3);
  });

  it('signs with the old and the new secret after a rotation (two signatures, both valid)', async () => {
    const inbox = await receiver();
    const endpoint = await register(owner, inbox.url);
    const rotated = await t.http.post(`/api/v2/webhooks/${endpoint.id}/rotate-secret`).set(...bearer(owner.token)).send({});
    await t.http.post(`/api/v2/webhooks/${endpoint.id}/test`).set(...bearer(owner.token)).send({});
    const [request] = await eventually(() => (inbox.received.length > 0 ? inbox.received : undefined));
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = request!.headers as Record<string, string>;
    expect(new Webhook(endpoint.secret).verify(request!.body, headers)).toMatchObject({ type: 'ping' });
    expect(new Webhook(rotated.body.secret).verify(request!.body, headers)).toMatchObject({ type: 'ping' });
  });

  it('disables the endpoint on 410 Gone; its pending deliveries then fail; PATCH active: true re-enables it', async () => {
    const gone = await receiver([410]);
    const endpoint = await register(owner, gone.url, ['booking.canceled']);
    await t.http.post(`/api/v2/webhooks/${endpoint.id}/test`).set(...bearer(owner.token)).send({});
    const disabled = await eventually(async () => {
      const res = await t.http.get(`/api/v2/webhooks/${endpoint.id}`).set(...bearer(owner.token));
      return res.body.active === false ? res.body : undefined;
    });
    expect(disabled.disabledReason).toMatch(/410 Gone/);
    const [delivery] = await deliveries(owner, endpoint.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });

    const enabled = await t.http.patch(`/api/v2/webhooks/${endpoint.id}`).set(...bearer(owner.token)).send({ active: true });
    expect(enabled.body).toMatchObject({ active: true, disabledReason: null });
  });

  it('never contacts a forbidden address without WEBHOOK_ALLOW_PRIVATE_NETWORKS, even if the URL changed after creation', async () => {
    const strict = await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '100ms' } });
    try {
      const user = await createUserWithToken(strict.em());
      const inbox = await receiver();
      const res = await strict.http.post('/api/v2/webhooks').set(...bearer(user.token)).send({ url: 'https://93.184.215.14/hook', events: ['lead.created'] });
      expect(res.status).toBe(201);
      // As if the name had been re-pointed: the row now names a loopback address.
      await strict.em().execute('update webhook_endpoint set url = ? where id = ?', [inbox.url, res.body.id], 'run');
      await strict.http.post(`/api/v2/webhooks/${res.body.id}/test`).set(...bearer(user.token)).send({});
      const [delivery] = await eventually(async () => {
        const list = (await strict.http.get(`/api/v2/webhooks/${res.body.id}/deliveries`).set(...bearer(user.token))).body.data;
        return list[0]?.status === 'failed' ? list : undefined;
      });
      expect(delivery.lastError).toMatch(/private, loopback/);
      expect(inbox.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});
