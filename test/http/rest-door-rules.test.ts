import type { Response, Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/** Rules of the /api/v2 door that hold for every operation, whatever its procedure. */

const PUBLIC_URL = 'https://93.184.215.14/hooks';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  user = await createUserWithToken(t.em());
});
afterAll(() => t.close());

function expectSpecError(res: Response, status: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(status === 400 ? ['details', 'message', 'title'] : ['message', 'title']);
}

const post = (path: string) => t.http.post(`/api/v2${path}`).set(...bearer(user.token));

async function createWebhook(): Promise<string> {
  const res = await post('/webhooks').send({ url: PUBLIC_URL, events: ['booking.created'] });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function deliveryCount(endpointId: string): Promise<number> {
  const [row] = await t.em().execute<{ count: string }[]>('select count(*) from webhook_delivery where endpoint_id = ?', [endpointId]);
  return Number(row!.count);
}

async function webhookSecret(endpointId: string): Promise<string> {
  const [row] = await t.em().execute<{ secret: string }[]>('select secret from webhook_endpoint where id = ?', [endpointId]);
  return row!.secret;
}

async function privateLinkKeyHash(eventTypeId: string): Promise<string> {
  const [row] = await t.em().execute<{ private_link_key_hash: string }[]>('select private_link_key_hash from event_type where id = ?', [eventTypeId]);
  return row!.private_link_key_hash;
}

/** An action that takes no body, and what it changes in the database (a value that differs after each call). */
interface BodylessAction {
  name: string;
  prepare(): Promise<{ path: string; state(): Promise<unknown> }>;
}

const ACTIONS: BodylessAction[] = [
  {
    name: 'POST /webhooks/{id}/test',
    async prepare() {
      const id = await createWebhook();
      return { path: `/webhooks/${id}/test`, state: () => deliveryCount(id) };
    },
  },
  {
    name: 'POST /webhooks/{id}/rotate-secret',
    async prepare() {
      const id = await createWebhook();
      return { path: `/webhooks/${id}/rotate-secret`, state: () => webhookSecret(id) };
    },
  },
  {
    name: 'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver',
    async prepare() {
      const id = await createWebhook();
      const ping = await post(`/webhooks/${id}/test`);
      expect(ping.status, ping.text).toBe(202);
      return { path: `/webhooks/${id}/deliveries/${ping.body.id}/redeliver`, state: () => deliveryCount(id) };
    },
  },
  {
    name: 'POST /event-types/{id}/private-link',
    async prepare() {
      const { id } = await createEventType(t.em(), user.id, { secret: true, privateLinkKey: `key-${Math.random()}` });
      return { path: `/event-types/${id}/private-link`, state: () => privateLinkKeyHash(id) };
    },
  },
];

describe.each(ACTIONS)('$name, an operation without a request body', (action) => {
  let path: string;
  let state: () => Promise<unknown>;

  beforeAll(async () => {
    ({ path, state } = await action.prepare());
  });

  it.each<[string, (request: Test) => Test]>([
    ['no body and no Content-Type, as the OpenAPI document and curl send it', (request) => request],
    ['an empty body with Content-Type: application/json', (request) => request.set('Content-Type', 'application/json').send('')],
    ['an empty body with a form Content-Type, as `curl -d ""` sends it', (request) => request.type('form').send('')],
    ['{}', (request) => request.send({})],
  ])('runs with %s', async (_label, send) => {
    const before = await state();
    const res = await send(post(path));
    expect(res.status, res.text).toBeLessThan(300);
    expect(await state()).not.toEqual(before);
  });

  it.each(['false', '[]', '"x"', 'null', '0', '{"evil":1}', '{"id":"other"}'])('refuses the body %s with 400 and does nothing', async (body) => {
    const before = await state();
    const res = await post(path).set('Content-Type', 'application/json').send(body);
    expectSpecError(res, 400);
    expect(res.body.details.length).toBeGreaterThan(0);
    expect(await state()).toEqual(before);
  });

  it('refuses a body of another media type with 415 and does nothing', async () => {
    const before = await state();
    expectSpecError(await post(path).set('Content-Type', 'text/plain').send('x'), 415);
    expectSpecError(await post(path).type('form').send('evil=1'), 415);
    expect(await state()).toEqual(before);
  });
});

describe('operations that take a body', () => {
  it('still refuse a missing body (415) and an empty JSON body (400)', async () => {
    expectSpecError(await post('/event-types'), 415);
    const empty = await post('/event-types').set('Content-Type', 'application/json').send('');
    expectSpecError(empty, 400);
    expect(empty.body.message).toBe('The request body is not valid JSON.');
  });
});

describe('path parameters', () => {
  it('refuse a NUL with 400 naming the parameter, not a 404', async () => {
    const read = await t.http.get('/api/v2/event-types/a%00b').set(...bearer(user.token));
    expectSpecError(read, 400);
    expect(read.body.details.map((detail: { path: string[] }) => detail.path.join('.'))).toEqual(['id']);
    expectSpecError(await post('/webhooks/a%00b/test'), 400);
  });

  it('may not be repeated in the body: a body key `id` is refused like any unknown key, nothing changes', async () => {
    const { id } = await createEventType(t.em(), user.id, { color: '#111111' });
    const other = await createEventType(t.em(), user.id, { color: '#222222' });
    const res = await t.http.patch(`/api/v2/event-types/${id}`).set(...bearer(user.token)).send({ id: other.id, color: '#333333' });
    expectSpecError(res, 400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: ['id'] })]);
    const colors = await t.em().execute<{ color: string }[]>('select color from event_type where id in (?, ?) order by color', [id, other.id]);
    expect(colors.map((row) => row.color)).toEqual(['#111111', '#222222']);
  });
});

describe('HEAD on /api/v2', () => {
  it('is the 404 GET gives on an unknown path, without a body', async () => {
    const get = await t.http.get('/api/v2/nope').set(...bearer(user.token));
    expect(get.status).toBe(404);
    const head = await t.http.head('/api/v2/nope').set(...bearer(user.token));
    expect(head.status).toBe(404);
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    expect(head.text ?? '').toBe('');
  });

  it('is the 405 GET gives on a path only other methods serve', async () => {
    const res = await t.http.head('/api/v2/webhooks/x/test').set(...bearer(user.token));
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});
