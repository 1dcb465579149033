import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/lib/errors.ts';
import {
  createOAuthClient,
  listOAuthClientsForOwner,
  rotateClientSecret,
} from '../../src/oauth/clients.ts';
import { listGrantsForUser, revokeGrant } from '../../src/oauth/grants.ts';
import { OAuthClientEntity } from '../../src/oauth/oauth-client.entity.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, obtainCode, obtainTokens, redeem, signIn } from './support.ts';

/** The service functions the developer-settings pages build on. */
describe('OAuth app and grant services', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ publicRateLimitPerMinute: 100_000 });
  });
  afterAll(() => t.close());
  const now = () => t.app.services.clock.now();

  it('creates a confidential app with a secret shown once and stored as a hash, and a public one without', async () => {
    const dev = await createPasswordUser(t.em());
    const confidential = await createOAuthClient(t.em(), {
      ownerUserId: dev.id,
      name: '  Server App  ',
      redirectUris: ['https://srv.example.test/cb'],
      type: 'confidential',
    }, now());
    expect(confidential.clientId).toMatch(/^oci_/);
    expect(confidential.clientSecret).toMatch(/^ocs_[a-z2-7]{59}$/);
    const row = await t.em().findOneOrFail(OAuthClientEntity, { clientId: confidential.clientId });
    expect(row.secretHash).not.toBe(confidential.clientSecret);
    expect(row.name).toBe('Server App');
    expect(row.dynamicallyRegistered).toBe(false);

    const pub = await createOAuthClient(t.em(), {
      ownerUserId: dev.id,
      name: 'Mobile',
      redirectUris: ['http://127.0.0.1/cb'],
      type: 'public',
    }, now());
    expect(pub.clientSecret).toBeUndefined();
    const listed = await listOAuthClientsForOwner(t.em(), dev.id);
    expect(listed.map((app) => app.clientId)).toEqual([confidential.clientId, pub.clientId]);
    expect(listed.map((app) => app.type)).toEqual(['confidential', 'public']);
  });

  it('validates name and redirect URIs with the registration rules (400 DomainError with details)', async () => {
    const dev = await createPasswordUser(t.em());
    const attempt = (input: { name?: string; redirectUris?: string[] }) =>
      createOAuthClient(t.em(), {
        ownerUserId: dev.id,
        name: input.name ?? 'ok',
        redirectUris: input.redirectUris ?? ['https://ok.example.test/cb'],
        type: 'public',
      }, now());
    for (const input of [{ name: '' }, { redirectUris: [] }, { redirectUris: ['http://plain.example.test/cb'] }]) {
      const error = await attempt(input).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('invalid_request');
      expect((error as DomainError).details?.length).toBe(1);
    }
  });

  it('rotates a secret: the new one authenticates, the old one no longer does', async () => {
    const dev = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, dev);
    const created = await createOAuthClient(t.em(), {
      ownerUserId: dev.id,
      name: 'Rotating',
      redirectUris: ['https://rot.example.test/cb'],
      type: 'confidential',
    }, now());
    const client = { clientId: created.clientId, clientSecret: created.clientSecret, redirectUri: 'https://rot.example.test/cb' };
    const { clientSecret } = await rotateClientSecret(t.em(), { ownerUserId: dev.id, clientId: created.clientId });
    expect(clientSecret).not.toBe(created.clientSecret);
    const code = await obtainCode(t.http, cookie, client);
    expect((await redeem(t.http, client, code)).status).toBe(401);
    expect((await redeem(t.http, { ...client, clientSecret }, code)).status).toBe(200);

    const stranger = await createPasswordUser(t.em());
    await expect(rotateClientSecret(t.em(), { ownerUserId: stranger.id, clientId: created.clientId })).rejects.toMatchObject({
      code: 'not_found',
    });
    const pub = await createOAuthClient(t.em(), {
      ownerUserId: dev.id,
      name: 'Public',
      redirectUris: ['https://p.example.test/cb'],
      type: 'public',
    }, now());
    await expect(rotateClientSecret(t.em(), { ownerUserId: dev.id, clientId: pub.clientId })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('lists the apps a user authorized (live grants only, newest first) and revokes one', async () => {
    const dev = await createPasswordUser(t.em());
    const user = await createPasswordUser(t.em());
    const cookie = await signIn(t.http, user);
    const app = await createOAuthClient(t.em(), {
      ownerUserId: dev.id,
      name: 'Listed App',
      redirectUris: ['https://l.example.test/cb'],
      type: 'public',
    }, now());
    const client = { clientId: app.clientId, redirectUri: 'https://l.example.test/cb' };
    const first = await obtainTokens(t.http, cookie, client, { scope: 'read:profile' });
    const second = await obtainTokens(t.http, cookie, client, { scope: 'read:bookings read:leads' });
    // An approval whose code was never redeemed holds no tokens: not listed.
    await obtainCode(t.http, cookie, client);

    const grants = await listGrantsForUser(t.em(), user.id, now());
    expect(grants).toHaveLength(2);
    expect(grants[0]).toMatchObject({
      client: { clientId: app.clientId, name: 'Listed App', verified: true },
      scopes: ['read:bookings', 'read:leads'],
      resource: null,
      createdAt: expect.any(Date),
      lastTokenIssuedAt: expect.any(Date),
    });
    expect(await listGrantsForUser(t.em(), dev.id, now())).toEqual([]);

    expect(await revokeGrant(t.em(), dev.id, grants[0]?.id ?? '', now())).toBe(false);
    expect(await revokeGrant(t.em(), user.id, grants[0]?.id ?? '', now())).toBe(true);
    expect(await revokeGrant(t.em(), user.id, grants[0]?.id ?? '', now())).toBe(false);
    expect((await t.http.get('/api/v2/bookings').set(...bearer(second.access_token))).status).toBe(401);
    expect((await t.http.get('/api/v2/me').set(...bearer(first.access_token))).status).toBe(200);
    expect((await listGrantsForUser(t.em(), user.id, now())).map((grant) => grant.scopes)).toEqual([['read:profile']]);
  });
});
