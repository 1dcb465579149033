import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migration20261123191000_private_link_key_hash as HashPrivateLinkKeys } from '../../src/db/migrations/Migration20261123191000_private_link_key_hash.ts';
import { newId } from '../../src/lib/ids.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithToken } from '../helpers/factories.ts';

/** The migration's statements, run on the test's own database. */
async function run(t: TestApp, direction: 'up' | 'down'): Promise<void> {
  const migration = new HashPrivateLinkKeys(undefined as never, undefined as never);
  await migration[direction]();
  for (const sql of migration.getQueries()) await t.em().execute(String(sql), [], 'run');
}

describe('migration: private link keys stored as SHA-256', () => {
  let t: TestApp;
  let ownerSlug: string;
  const legacyKey = 'legacy k3y/ü-ß';

  beforeAll(async () => {
    t = await startTestApp();
    const owner = await createUserWithToken(t.em());
    const [user] = await t.em().execute<{ slug: string }[]>('select slug from app_user where id = ?', [owner.id]);
    ownerSlug = user!.slug;
    // The schema as it was, with a key stored in clear.
    await run(t, 'down');
    for (const [slug, secret, key] of [['vip', true, legacyKey], ['open', false, null]] as const) {
      await t.em().execute(
        `insert into event_type (id, owner_id, name, slug, kind, durations_min, secret, private_link_token)
         values (?, ?, ?, ?, 'one_on_one', '{30}', ?, ?)`,
        [newId(), owner.id, slug, slug, secret, key],
        'run',
      );
    }
    await run(t, 'up');
  });
  afterAll(() => t.close());

  it('hashes existing keys exactly as the service does and drops the clear column', async () => {
    const rows = await t.em().execute<{ slug: string; private_link_key_hash: string | null }[]>(
      'select slug, private_link_key_hash from event_type order by slug',
    );
    expect(rows).toEqual([
      { slug: 'open', private_link_key_hash: null },
      { slug: 'vip', private_link_key_hash: hashToken(legacyKey) },
    ]);
    const columns = await t.em().execute<{ column_name: string }[]>(
      "select column_name from information_schema.columns where table_name = 'event_type' and column_name like 'private_link%'",
    );
    expect(columns.map((column) => column.column_name)).toEqual(['private_link_key_hash']);
  });

  it('keeps links already handed out working', async () => {
    const page = (key: string) =>
      t.http
        .get('/trpc/publicBooking.eventType')
        .query({ input: JSON.stringify(superjson.serialize({ userSlug: ownerSlug, eventTypeSlug: 'vip', key })) });
    expect((await page(legacyKey)).status).toBe(200);
    expect((await page(hashToken(legacyKey))).status).toBe(404);
    expect((await page('wrong')).status).toBe(404);
  });
});
