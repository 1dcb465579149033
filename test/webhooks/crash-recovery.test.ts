import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { httpRequest, type ServiceProcess, startService } from '../helpers/service-process.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { emitLeadEvents, eventually, type Received, startReceiver } from './support.ts';

/** More than one claim's batch (10), so some deliveries are in flight and others still wait when the service dies. */
const EVENTS = 12;

/**
 * The service as operators run it, killed with SIGKILL while deliveries are pending (one claimed batch in flight
 * to a receiver that does not answer, the rest not yet claimed): started again, it delivers every one of them, the
 * claimed ones once their lease (shortened by WEBHOOK_LEASE_MS) has run out.
 */
describe('webhook deliveries survive a SIGKILL of the service', () => {
  let database: TestDatabase;
  let orm: Orm;
  let owner: TestUser;
  let service: ServiceProcess | undefined;

  const env = () => ({
    DATABASE_URL: database.url,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_LEASE_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
  });
  const api = (method: string, path: string, body?: unknown) =>
    httpRequest(service!.port, { method, path: `/api/v2${path}`, headers: { Authorization: `Bearer ${owner.token}` }, body });
  const deliveryStates = () =>
    orm.em.fork().execute<{ status: string; attempts: number }[]>('select status, attempts from webhook_delivery');

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 2 });
    owner = await createUserWithToken(orm.em.fork());
  });
  afterAll(async () => {
    service?.kill();
    await orm.close();
    await database.drop();
  });

  it('delivers, after a restart, the deliveries that were in flight or waiting when the process was killed', async () => {
    let answering = false;
    const answered: Received[] = [];
    const receiver = await startReceiver((request) => {
      if (!answering) return 'hang';
      answered.push(request);
      return { status: 200 };
    });
    try {
      service = await startService(env());
      const endpoint = await api('POST', '/webhooks', { url: receiver.url, events: ['lead.created'] });
      expect(endpoint.status).toBe(201);
      const eventIds = await emitLeadEvents(orm.em.fork(), owner.id, EVENTS);
      expect(eventIds).toHaveLength(EVENTS);
      // The worker waits for its claimed batch (at most 10) before claiming more: the receiver holds them all.
      await eventually(() => (receiver.received.length > 0 ? true : undefined));
      await new Promise((resolve) => setTimeout(resolve, 1000));

      service.kill();
      expect((await service.exited).signal).toBe('SIGKILL');
      const states = await deliveryStates();
      expect(states.filter((state) => state.status === 'pending')).toHaveLength(EVENTS);
      const inFlight = states.filter((state) => state.attempts === 1).length;
      expect(inFlight).toBe(receiver.received.length);
      expect(inFlight).toBeGreaterThan(0);
      expect(inFlight).toBeLessThanOrEqual(10);

      answering = true;
      service = await startService(env());
      await eventually(async () => ((await deliveryStates()).every((state) => state.status === 'succeeded') ? true : undefined), 30_000);
      expect(new Set(answered.map((request) => request.headers['webhook-id']))).toEqual(new Set(eventIds));
    } finally {
      service?.kill();
      await receiver.close();
    }
  });
});
