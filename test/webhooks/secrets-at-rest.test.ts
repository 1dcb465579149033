import { PassThrough } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migration20261126172000_webhook_secrets_sealed as SealWebhookSecrets } from '../../src/db/migrations/Migration20261126172000_webhook_secrets_sealed.ts';
import { openSecret } from '../../src/lib/sealed-secrets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type Receiver, startReceiver } from './support.ts';

interface StoredSecrets {
  secret: string;
  previous_secret: string | null;
}

describe('webhook signing secrets at rest', () => {
  const log: string[] = [];
  let t: TestApp;
  let owner: TestUser;
  let receiver: Receiver;

  const stored = async (id: string): Promise<StoredSecrets> =>
    (await t.em().execute<StoredSecrets[]>('select secret, previous_secret from webhook_endpoint where id = ?', [id]))[0]!;
  const register = async () => {
    const res = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: receiver.url, events: ['lead.created'] });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  };
  const ping = async (id: string) => {
    const res = await t.http.post(`/api/v2/webhooks/${id}/test`).set(...bearer(owner.token)).send({});
    expect(res.status).toBe(202);
    return res.body as { eventId: string };
  };
  const receivedEvent = (eventId: string) =>
    eventually(() => receiver.received.find((request) => request.headers['webhook-id'] === eventId));

  beforeAll(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
    t = await startTestApp({ logStream, env: { LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h' } });
    owner = await createUserWithToken(t.em());
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('stores the secret sealed, and deliveries verify with the secret shown at creation', async () => {
    const endpoint = await register();
    const row = await stored(endpoint.id);
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(endpoint.secret);
    expect(row.secret).not.toContain(endpoint.secret.slice('whsec_'.length));
    expect(await openSecret(t.em(), 'webhook-signing-secret', row.secret)).toBe(endpoint.secret);

    const request = await receivedEvent((await ping(endpoint.id)).eventId);
    expect(new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'ping' });
    expect(log.join('')).not.toContain(endpoint.secret.slice('whsec_'.length));
  });

  it('keeps both secrets sealed after a rotation, and signs with both', async () => {
    const endpoint = await register();
    const rotated = await t.http.post(`/api/v2/webhooks/${endpoint.id}/rotate-secret`).set(...bearer(owner.token)).send({});
    expect(rotated.status).toBe(200);
    const row = await stored(endpoint.id);
    for (const value of [row.secret, row.previous_secret!]) expect(value).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(rotated.body.secret.slice('whsec_'.length));
    expect(JSON.stringify(row)).not.toContain(endpoint.secret.slice('whsec_'.length));

    const request = await receivedEvent((await ping(endpoint.id)).eventId);
    const headers = request.headers as Record<string, string>;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(endpoint.secret).verify(request.body, headers)).toMatchObject({ type: 'ping' });
    expect(new Webhook(rotated.body.secret).verify(request.body, headers)).toMatchObject({ type: 'ping' });
    expect(log.join('')).not.toContain(rotated.body.secret.slice('whsec_'.length));
  });

  it('refuses a clear secret written to the table', async () => {
    const endpoint = await register();
    await expect(
      t.em().execute('update webhook_endpoint set secret = ? where id = ?', [endpoint.secret, endpoint.id], 'run'),
    ).rejects.toThrow(/webhook_endpoint_secrets_sealed/);
  });

  it('sends nothing when a secret cannot be opened, and logs the fault without any secret', async () => {
    const endpoint = await register();
    const row = await stored(endpoint.id);
    const [version, iv, body] = row.secret.split('.') as [string, string, string];
    const altered = `${version}.${iv}.${body.startsWith('A') ? 'B' : 'A'}${body.slice(1)}`;
    await t.em().execute('update webhook_endpoint set secret = ? where id = ?', [altered, endpoint.id], 'run');
    const before = receiver.received.length;
    await ping(endpoint.id);
    await eventually(() => (log.join('').includes('A sealed webhook-signing-secret cannot be opened') ? true : undefined));
    expect(receiver.received.length).toBe(before);
    expect(log.join('')).not.toContain(altered);
    expect(log.join('')).not.toContain(endpoint.secret.slice('whsec_'.length));
  });
});

describe('migration: webhook signing secrets sealed', () => {
  let t: TestApp;
  let owner: TestUser;
  let receiver: Receiver;

  /** Runs the migration on the test's database as the migrator would: in one transaction. */
  async function run(direction: 'up' | 'down'): Promise<void> {
    await t.em().transactional(async (tx) => {
      const migration = new SealWebhookSecrets(t.orm.em.getDriver(), t.orm.config);
      migration.setTransactionContext(tx.getTransactionContext()!);
      await migration[direction]();
      for (const sql of migration.getQueries()) await tx.execute(String(sql), [], 'run');
    });
  }

  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1h' } });
    owner = await createUserWithToken(t.em());
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('seals a secret stored in clear before it, and deliveries still verify with that secret', async () => {
    const created = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: receiver.url, events: ['lead.created'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const legacy = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;

    // The table as it was: secrets in clear.
    await run('down');
    const [opened] = await t.em().execute<StoredSecrets[]>('select secret from webhook_endpoint where id = ?', [id]);
    expect(opened!.secret).toBe(created.body.secret);
    await t.em().execute(
      `update webhook_endpoint set secret = ?, previous_secret = ?, previous_secret_expires_at = now() + interval '1 day' where id = ?`,
      [legacy, previous, id],
      'run',
    );

    await run('up');
    const [row] = await t.em().execute<StoredSecrets[]>('select secret, previous_secret from webhook_endpoint where id = ?', [id]);
    expect(row!.secret).toMatch(/^v1\./);
    expect(row!.previous_secret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(legacy.slice('whsec_'.length));
    expect(JSON.stringify(row)).not.toContain(previous.slice('whsec_'.length));

    const ping = await t.http.post(`/api/v2/webhooks/${id}/test`).set(...bearer(owner.token)).send({});
    expect(ping.status).toBe(202);
    const request = await eventually(() => receiver.received.find((r) => r.headers['webhook-id'] === ping.body.eventId));
    const headers = request.headers as Record<string, string>;
    expect(new Webhook(legacy).verify(request.body, headers)).toMatchObject({ type: 'ping' });
    expect(new Webhook(previous).verify(request.body, headers)).toMatchObject({ type: 'ping' });
  });
});
