import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import { createPasswordUser, obtainTokens, type PasswordUser, startListeningApp, tokenRequest } from '../oauth/support.ts';
import { failure, type SignedIn, signInClient, trpcClient } from './support.ts';

const NOW = () => Date.now();

describe('developer settings over tRPC', () => {
  let t: TestApp & { siteUrl: string };
  let owner: PasswordUser;
  let session: SignedIn;

  beforeAll(async () => {
    t = await startListeningApp();
    owner = await createPasswordUser(t.em(), { plan: 'team', name: 'Dana Developer' });
    session = await signInClient(t, owner);
  });
  afterAll(() => t.close());

  describe('personal access tokens', () => {
    it('shows a new token once, lists it without the secret, accepts it on /api/v2, and 401s it after revoking', async () => {
      const expiresAt = new Date(NOW() + 30 * 86_400_000).toISOString();
      const created = await session.client.developerSettings.tokens.create.mutate({
        name: 'CI deploy',
        scopes: ['read:profile', 'read:bookings'],
        expiresAt,
      });
      expect(created.secret).toMatch(/^pat_[a-z2-7]{59}$/);
      expect(created.token).toEqual({
        id: expect.any(String),
        name: 'CI deploy',
        prefix: created.secret.slice(0, 10),
        scopes: ['read:profile', 'read:bookings'],
        createdAt: expect.any(String),
        lastUsedAt: null,
        expiresAt,
        expired: false,
      });

      const listed = await session.client.developerSettings.tokens.list.query();
      expect(listed.map((token) => token.id)).toContain(created.token.id);
      expect(JSON.stringify(listed)).not.toContain(created.secret);
      expect(JSON.stringify(listed)).not.toContain(created.secret.slice(10));

      const me = await t.http.get('/api/v2/me').set(...bearer(created.secret));
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(owner.email);
      // Only the scopes it was given.
      expect((await t.http.get('/api/v2/contacts').set(...bearer(created.secret))).status).toBe(403);
      const used = (await session.client.developerSettings.tokens.list.query()).find((token) => token.id === created.token.id);
      expect(used?.lastUsedAt).not.toBeNull();

      expect(await session.client.developerSettings.tokens.revoke.mutate({ id: created.token.id })).toEqual({ ok: true });
      expect((await t.http.get('/api/v2/me').set(...bearer(created.secret))).status).toBe(401);
      const after = await session.client.developerSettings.tokens.list.query();
      expect(after.map((token) => token.id)).not.toContain(created.token.id);
      // Revoking again is fine.
      expect(await session.client.developerSettings.tokens.revoke.mutate({ id: created.token.id })).toEqual({ ok: true });
    });

    it('creates a token without expiry, and refuses an expiry in the past or an empty scope list', async () => {
      const forever = await session.client.developerSettings.tokens.create.mutate({ name: 'no expiry', scopes: ALL_SCOPES });
      expect(forever.token.expiresAt).toBeNull();
      expect(forever.token.scopes).toEqual(ALL_SCOPES);

      const past = await failure(
        session.client.developerSettings.tokens.create.mutate({
          name: 'old',
          scopes: ['read:profile'],
          expiresAt: new Date(NOW() - 60_000).toISOString(),
        }),
      );
      expect(past.status).toBe(400);
      expect(past.message).toContain('expiresAt');
      const noScopes = await failure(session.client.developerSettings.tokens.create.mutate({ name: 'none', scopes: [] }));
      expect(noScopes.status).toBe(400);
    });

    it("cannot see or revoke another user's token", async () => {
      const other = await createPasswordUser(t.em(), { plan: 'team' });
      const otherSession = await signInClient(t, other);
      const theirs = await otherSession.client.developerSettings.tokens.create.mutate({ name: 'theirs', scopes: ['read:profile'] });
      const mine = await session.client.developerSettings.tokens.list.query();
      expect(mine.map((token) => token.id)).not.toContain(theirs.token.id);
      const revoke = await failure(session.client.developerSettings.tokens.revoke.mutate({ id: theirs.token.id }));
      expect(revoke.status).toBe(404);
      expect((await t.http.get('/api/v2/me').set(...bearer(theirs.secret))).status).toBe(200);
    });

    it('refuses bearer tokens: a token cannot mint tokens or list them', async () => {
      const holder = await createUserWithToken(t.em());
      const viaToken = trpcClient(t.siteUrl, { bearer: holder.token });
      const mint = await failure(viaToken.developerSettings.tokens.create.mutate({ name: 'minted', scopes: ['read:profile'] }));
      expect(mint.status).toBe(403);
      expect(mint.message).toMatch(/signed-in session/);
      expect((await failure(viaToken.developerSettings.tokens.list.query())).status).toBe(403);
      expect((await failure(viaToken.developerSettings.apps.list.query())).status).toBe(403);
    });

    it('is not reachable without signing in', async () => {
      const anonymous = trpcClient(t.siteUrl);
      expect((await failure(anonymous.developerSettings.tokens.list.query())).status).toBe(401);
    });

    it('lists the scope catalogue with descriptions', async () => {
      const catalog = await session.client.developerSettings.scopes.query();
      expect(catalog.map((entry) => entry.scope)).toEqual(ALL_SCOPES);
      expect(catalog.every((entry) => entry.description.length > 0)).toBe(true);
    });
  });

  describe('OAuth apps', () => {
    it('creates a confidential app with its secret shown once, rotates it, edits and deletes it', async () => {
      const created = await session.client.developerSettings.apps.create.mutate({
        name: 'Acme CRM',
        redirectUris: ['https://crm.example.test/callback', 'http://localhost:8080/cb'],
        type: 'confidential',
      });
      expect(created.app).toEqual({
        id: expect.any(String),
        clientId: expect.stringMatching(/^oci_/),
        name: 'Acme CRM',
        redirectUris: ['https://crm.example.test/callback', 'http://localhost:8080/cb'],
        type: 'confidential',
        createdAt: expect.any(String),
      });
      const firstSecret = created.clientSecret ?? '';
      expect(firstSecret).toMatch(/^ocs_/);
      const listed = await session.client.developerSettings.apps.list.query();
      expect(listed.map((app) => app.id)).toContain(created.app.id);
      expect(JSON.stringify(listed)).not.toContain(firstSecret);

      // The token endpoint authenticates the app with its secret (the refresh token is bogus, so the
      // grant fails after client authentication: invalid_grant means the secret was accepted).
      const withSecret = (secret: string) =>
        tokenRequest(t.http, { grant_type: 'refresh_token', refresh_token: 'ort_bogus' }, [created.app.clientId, secret]);
      expect((await withSecret(firstSecret)).body.error).toBe('invalid_grant');

      const rotated = await session.client.developerSettings.apps.rotateSecret.mutate({ id: created.app.id });
      expect(rotated.clientSecret).toMatch(/^ocs_/);
      expect(rotated.clientSecret).not.toBe(firstSecret);
      expect((await withSecret(firstSecret)).body.error).toBe('invalid_client');
      expect((await withSecret(rotated.clientSecret ?? '')).body.error).toBe('invalid_grant');

      const updated = await session.client.developerSettings.apps.update.mutate({
        id: created.app.id,
        name: 'Acme CRM (staging)',
        redirectUris: ['https://staging.crm.example.test/callback'],
      });
      expect(updated).toMatchObject({
        name: 'Acme CRM (staging)',
        redirectUris: ['https://staging.crm.example.test/callback'],
        type: 'confidential',
        clientId: created.app.clientId,
      });

      expect(await session.client.developerSettings.apps.delete.mutate({ id: created.app.id })).toEqual({ ok: true });
      const afterDelete = await session.client.developerSettings.apps.list.query();
      expect(afterDelete.map((app) => app.id)).not.toContain(created.app.id);
      expect((await withSecret(rotated.clientSecret ?? '')).body.error).toBe('invalid_client');
      expect((await failure(session.client.developerSettings.apps.delete.mutate({ id: created.app.id }))).status).toBe(404);
    });

    it('creates a public app without a secret, which has none to rotate', async () => {
      const created = await session.client.developerSettings.apps.create.mutate({
        name: 'Pocket CLI',
        redirectUris: ['http://127.0.0.1/callback'],
        type: 'public',
      });
      expect(created.clientSecret).toBeNull();
      expect(created.app.type).toBe('public');
      const rotate = await failure(session.client.developerSettings.apps.rotateSecret.mutate({ id: created.app.id }));
      expect(rotate.status).toBe(409);
    });

    it('refuses redirect URIs that are not https (except on loopback), on create and on edit', async () => {
      const create = await failure(
        session.client.developerSettings.apps.create.mutate({
          name: 'Plain http',
          redirectUris: ['http://crm.example.test/callback'],
          type: 'confidential',
        }),
      );
      expect(create.status).toBe(400);
      expect(create.message).toContain('https');

      const app = await session.client.developerSettings.apps.create.mutate({
        name: 'Valid',
        redirectUris: ['https://ok.example.test/cb'],
        type: 'public',
      });
      const edit = await failure(
        session.client.developerSettings.apps.update.mutate({ id: app.app.id, redirectUris: ['https://ok.example.test/cb#frag'] }),
      );
      expect(edit.status).toBe(400);
      const unchanged = (await session.client.developerSettings.apps.list.query()).find((a) => a.id === app.app.id);
      expect(unchanged?.redirectUris).toEqual(['https://ok.example.test/cb']);
    });

    it('refuses app names with bidi or invisible characters or mixed-script look-alikes, on create and on rename', async () => {
      const create = await failure(
        session.client.developerSettings.apps.create.mutate({
          name: 'Safe App\u202Eexe.ppa',
          redirectUris: ['https://ok.example.test/cb'],
          type: 'public',
        }),
      );
      expect(create.status).toBe(400);
      const app = await session.client.developerSettings.apps.create.mutate({
        name: 'Plain',
        redirectUris: ['https://ok.example.test/cb'],
        type: 'public',
      });
      for (const name of ['G\u043E\u043Egle', 'Zero\u200Bwidth']) {
        const rename = await failure(session.client.developerSettings.apps.update.mutate({ id: app.app.id, name }));
        expect(rename.status, name).toBe(400);
      }
      const renamed = await session.client.developerSettings.apps.update.mutate({ id: app.app.id, name: 'Ｆｕｌｌ width' });
      expect(renamed.name).toBe('Full width');
    });

    it("cannot edit, rotate or delete another developer's app", async () => {
      const other = await createPasswordUser(t.em(), { plan: 'team' });
      const otherSession = await signInClient(t, other);
      const theirs = await otherSession.client.developerSettings.apps.create.mutate({
        name: 'Not yours',
        redirectUris: ['https://theirs.example.test/cb'],
        type: 'confidential',
      });
      const id = theirs.app.id;
      expect((await failure(session.client.developerSettings.apps.update.mutate({ id, name: 'Mine now' }))).status).toBe(404);
      expect((await failure(session.client.developerSettings.apps.rotateSecret.mutate({ id }))).status).toBe(404);
      expect((await failure(session.client.developerSettings.apps.delete.mutate({ id }))).status).toBe(404);
      expect((await session.client.developerSettings.apps.list.query()).map((app) => app.id)).not.toContain(id);
    });
  });

  describe('authorized apps', () => {
    it('lists an app the user approved and revokes its access, killing its tokens', async () => {
      const developer = await createPasswordUser(t.em(), { plan: 'team' });
      const developerSession = await signInClient(t, developer);
      const app = await developerSession.client.developerSettings.apps.create.mutate({
        name: 'Calendar Sync',
        redirectUris: ['https://sync.example.test/cb'],
        type: 'public',
      });

      const tokens = await obtainTokens(
        t.http,
        session.cookie,
        { clientId: app.app.clientId, redirectUri: 'https://sync.example.test/cb' },
        { scope: 'read:profile read:bookings' },
      );
      expect((await t.http.get('/api/v2/me').set(...bearer(tokens.access_token))).status).toBe(200);

      const grants = await session.client.developerSettings.grants.list.query();
      const grant = grants.find((g) => g.app.clientId === app.app.clientId);
      expect(grant).toEqual({
        id: expect.any(String),
        app: { clientId: app.app.clientId, name: 'Calendar Sync', verified: true },
        scopes: ['read:profile', 'read:bookings'],
        grantedAt: expect.any(String),
        lastUsedAt: expect.any(String),
      });
      // The developer sees their app, not the user's grant.
      expect(await developerSession.client.developerSettings.grants.list.query()).toEqual([]);
      expect((await failure(developerSession.client.developerSettings.grants.revoke.mutate({ id: grant?.id ?? '' }))).status).toBe(
        404,
      );

      expect(await session.client.developerSettings.grants.revoke.mutate({ id: grant?.id ?? '' })).toEqual({ ok: true });
      expect((await t.http.get('/api/v2/me').set(...bearer(tokens.access_token))).status).toBe(401);
      const refresh = await tokenRequest(t.http, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: app.app.clientId,
      });
      expect(refresh.body.error).toBe('invalid_grant');
      expect(await session.client.developerSettings.grants.list.query()).toEqual([]);
    });
  });

  describe('the Team-plan rule', () => {
    it('lets Free and Pro users open their settings but not create tokens or apps', async () => {
      for (const plan of ['free', 'pro'] as const) {
        const user = await createPasswordUser(t.em(), { plan });
        const { client } = await signInClient(t, user);
        expect(await client.developerSettings.tokens.list.query()).toEqual([]);
        expect(await client.developerSettings.apps.list.query()).toEqual([]);
        expect(await client.developerSettings.grants.list.query()).toEqual([]);

        const token = await failure(client.developerSettings.tokens.create.mutate({ name: 'nope', scopes: ['read:profile'] }));
        expect(token.status).toBe(403);
        expect(token.message).toMatch(/Team plan/);
        const app = await failure(
          client.developerSettings.apps.create.mutate({ name: 'nope', redirectUris: ['https://x.example.test/cb'], type: 'public' }),
        );
        expect(app.status).toBe(403);
        expect(app.message).toMatch(/Team plan/);
      }
    });
  });
});
