import type { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm } from '../../src/db/orm.ts';
import { getServerSecret } from '../../src/lib/server-secret.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';

describe('getServerSecret', () => {
  let database: TestDatabase;
  // Two ORMs on one database stand for two instances of the service: each has its own in-process cache.
  let first: MikroORM;
  let second: MikroORM;

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await initOrm(database.url, { poolMax: 4 });
    second = await initOrm(database.url, { poolMax: 4 });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  async function stored(name: string): Promise<Uint8Array[]> {
    const rows = await first.em
      .fork()
      .execute<{ secret: Uint8Array }[]>('select secret from server_secret where name = ?', [name]);
    return rows.map((row) => new Uint8Array(row.secret));
  }

  it('creates 32 random bytes on first use, stores them once and returns them ever after', async () => {
    const created = await getServerSecret(first.em.fork(), 'alpha');
    expect(created).toBeInstanceOf(Uint8Array);
    expect(created).toHaveLength(32);
    expect(created.some((byte) => byte !== 0)).toBe(true);
    expect(await stored('alpha')).toEqual([created]);
    expect(await getServerSecret(first.em.fork(), 'alpha')).toEqual(created);
    expect(await getServerSecret(second.em.fork(), 'alpha')).toEqual(created);
  });

  it('gives every instance the same secret when they race to create it', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => getServerSecret((i % 2 ? second : first).em.fork(), 'race')),
    );
    for (const secret of results) expect(secret).toEqual(results[0]);
    expect(await stored('race')).toEqual([results[0]]);
  });

  it('keeps different names apart', async () => {
    const a = await getServerSecret(first.em.fork(), 'one');
    const b = await getServerSecret(first.em.fork(), 'two');
    expect(a).not.toEqual(b);
  });

  it('outlives a rollback of the transaction it was first asked for in', async () => {
    let seen: Uint8Array | undefined;
    await expect(
      first.em.fork().transactional(async (tx) => {
        seen = await getServerSecret(tx, 'rolled-back');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await stored('rolled-back')).toEqual([seen]);
    expect(await getServerSecret(second.em.fork(), 'rolled-back')).toEqual(seen);
  });

  it('is read from the database once per process', async () => {
    const before = await getServerSecret(first.em.fork(), 'cached');
    await first.em.fork().execute('delete from server_secret where name = ?', ['cached'], 'run');
    expect(await getServerSecret(first.em.fork(), 'cached')).toEqual(before);
  });
});
