import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/lib/outbound-guard.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

const PUBLIC_URL = 'https://93.184.215.14/hooks';

describe('webhook endpoints over REST', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createUserWithToken(t.em());
    other = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  const create = (user: TestUser, body: object) => t.http.post('/api/v2/webhooks').set(...bearer(user.token)).send(body);

  it('creates an endpoint, shows its secret once, lists, reads, changes and deletes it', async () => {
    const created = await create(owner, { url: PUBLIC_URL, events: ['booking.created', 'lead.created'], description: 'CRM' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: PUBLIC_URL,
      events: ['booking.created', 'lead.created'],
      description: 'CRM',
      active: true,
      disabledReason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    const id = created.body.id as string;

    const list = await t.http.get('/api/v2/webhooks').set(...bearer(owner.token));
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const one = await t.http.get(`/api/v2/webhooks/${id}`).set(...bearer(owner.token));
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();

    const patched = await t.http
      .patch(`/api/v2/webhooks/${id}`)
      .set(...bearer(owner.token))
      .send({ events: ['booking.canceled'], active: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['booking.canceled'], active: false, description: 'CRM' });

    const rotated = await t.http.post(`/api/v2/webhooks/${id}/rotate-secret`).set(...bearer(owner.token)).send({});
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    const deleted = await t.http.delete(`/api/v2/webhooks/${id}`).set(...bearer(owner.token));
    expect(deleted.status).toBe(204);
    expect((await t.http.get(`/api/v2/webhooks/${id}`).set(...bearer(owner.token))).status).toBe(404);
  });

  it("answers 404 for another user's endpoint", async () => {
    const created = await create(owner, { url: PUBLIC_URL, events: ['booking.created'] });
    const id = created.body.id as string;
    const asOther = bearer(other.token);
    expect((await t.http.get(`/api/v2/webhooks/${id}`).set(...asOther)).status).toBe(404);
    expect((await t.http.patch(`/api/v2/webhooks/${id}`).set(...asOther).send({ active: false })).status).toBe(404);
    expect((await t.http.delete(`/api/v2/webhooks/${id}`).set(...asOther)).status).toBe(404);
    expect((await t.http.post(`/api/v2/webhooks/${id}/rotate-secret`).set(...asOther).send({})).status).toBe(404);
    expect((await t.http.post(`/api/v2/webhooks/${id}/test`).set(...asOther).send({})).status).toBe(404);
    expect((await t.http.get(`/api/v2/webhooks/${id}/deliveries`).set(...asOther)).status).toBe(404);
  });

  it('refuses ping as a subscription, and unknown fields', async () => {
    expect((await create(owner, { url: PUBLIC_URL, events: ['ping'] })).status).toBe(400);
    expect((await create(owner, { url: PUBLIC_URL, events: ['booking.created'], secret: 'x' })).status).toBe(400);
  });

  it('queues a test ping and redelivers it as a new delivery of the same event, newest first with a cursor', async () => {
    const created = await create(owner, { url: PUBLIC_URL, events: ['booking.created'] });
    const id = created.body.id as string;
    const ping = await t.http.post(`/api/v2/webhooks/${id}/test`).set(...bearer(owner.token)).send({});
    expect(ping.status).toBe(202);
    expect(ping.body).toMatchObject({ eventType: 'ping', status: 'pending', attempts: 0, lastStatusCode: null });
    expect(ping.body.eventId).toMatch(/^evt_/);

    const again = await t.http
      .post(`/api/v2/webhooks/${id}/deliveries/${ping.body.id}/redeliver`).send({})
      .set(...bearer(owner.token));
    expect(again.status).toBe(202);
    expect(again.body.eventId).toBe(ping.body.eventId);
    expect(again.body.id).not.toBe(ping.body.id);

    const first = await t.http.get(`/api/v2/webhooks/${id}/deliveries?limit=1`).set(...bearer(owner.token));
    expect(first.status).toBe(200);
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([again.body.id]);
    const second = await t.http
      .get(`/api/v2/webhooks/${id}/deliveries?limit=1&cursor=${first.body.nextCursor}`)
      .set(...bearer(owner.token));
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual([ping.body.id]);
    expect(second.body.nextCursor).toBeNull();
  });

  it('allows 20 endpoints per user and answers 409 for the 21st', async () => {
    const user = await createUserWithToken(t.em());
    for (let i = 0; i < 20; i++) expect((await create(user, { url: PUBLIC_URL, events: ['lead.created'] })).status).toBe(201);
    const refused = await create(user, { url: PUBLIC_URL, events: ['lead.created'] });
    expect(refused.status).toBe(409);
    expect(refused.body.title).toBe('Conflict');
  });

  it('needs read:webhooks to read and write:webhooks to write', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:webhooks'] });
    expect((await t.http.get('/api/v2/webhooks').set(...bearer(reader.token))).status).toBe(200);
    expect((await create(reader, { url: PUBLIC_URL, events: ['lead.created'] })).status).toBe(403);
  });

  it.each([
    'http://93.184.215.14/',
    'https://127.0.0.1/',
    'https://localhost/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://0.0.0.0/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[ff02::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b:1::1]/',
    'https://192.0.2.1/',
    'https://[2001:db8::1]/',
    'https://user:pw@93.184.215.14/',
  ])('refuses %s with 400', async (url) => {
    const res = await create(owner, { url, events: ['booking.created'] });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toEqual(['url']);
  });

  it('names WEBHOOK_ALLOW_PRIVATE_NETWORKS when it is what would admit the URL, and only then', async () => {
    for (const url of ['https://127.0.0.1:8080/hook', 'http://93.184.215.14/', 'https://192.168.1.1/']) {
      const res = await create(owner, { url, events: ['booking.created'] });
      expect(res.status, url).toBe(400);
      expect(res.body.details[0].message, url).toMatch(/\(WEBHOOK_ALLOW_PRIVATE_NETWORKS=true allows http:\/\/ and private addresses, for development only\)$/);
      expect(res.body.message, url).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    }
    const credentials = await create(owner, { url: 'https://user:pw@93.184.215.14/', events: ['booking.created'] });
    expect(credentials.body.details[0].message).toBe('must not carry credentials');
  });

  it('classifies addresses as a delivery-time check would', () => {
    expect(isForbiddenAddress('93.184.215.14')).toBe(false);
    expect(isForbiddenAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toBe(false);
    expect(isForbiddenAddress('::ffff:10.0.0.1')).toBe(true);
    expect(isForbiddenAddress('fd00:ec2::254')).toBe(true);
  });
});

describe('webhook endpoints with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(() => t.close());

  it('accepts http:// on a local address', async () => {
    const user = await createUserWithToken(t.em());
    const res = await t.http
      .post('/api/v2/webhooks')
      .set(...bearer(user.token))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['booking.created'] });
    expect(res.status).toBe(201);
  });
});

describe('the OpenAPI document', () => {
  it('describes every event body in the 3.1 webhooks section, reusing the Booking and Lead schemas', async () => {
    const { buildOpenApiDocument } = await import('../../src/router/openapi.ts');
    const document = buildOpenApiDocument('http://localhost:3000');
    const body = (type: string) =>
      (document.webhooks?.[type] as { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } })
        .post.requestBody.content['application/json']!.schema.properties;
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual(
      [
        'booking.canceled',
        'booking.confirmed',
        'booking.created',
        'booking.declined',
        'booking.no_show',
        'booking.requested',
        'booking.rescheduled',
        'lead.converted',
        'lead.created',
        'lead.updated',
        'ping',
      ],
    );
    expect(body('booking.created').data).toEqual({ $ref: '#/components/schemas/Booking' });
    expect(body('lead.updated').data).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(body('booking.canceled').type).toMatchObject({ const: 'booking.canceled' });
    expect(body('booking.declined').data).toEqual({ $ref: '#/components/schemas/Booking' });
  });
});
