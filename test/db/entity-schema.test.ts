import { DatabaseSchema, defineEntity, MikroORM, p, SchemaComparator } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ormConfig } from '../../mikro-orm.config.ts';
import { entities } from '../../src/db/entities.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/app.ts';

/**
 * What the entities say about their tables that the migrated schema does not bear out, as the SQL MikroORM would
 * run to make it so (empty when they agree). The migrations are the schema's one description: an entity states
 * its table's columns (names, types, nullability, defaults), primary key and any unique constraint it names, and
 * every one of those must hold; indexes, checks and foreign keys live in the migrations alone, so their absence
 * from an entity is no difference. Only the entities' tables are read: tables described by SQL alone (no entity)
 * never show up, as drops or otherwise.
 */
async function entityDrift(orm: MikroORM): Promise<string> {
  const platform = orm.em.getPlatform();
  const entityTables = [...orm.getMetadata().getAll().values()].map((meta) => meta.tableName);
  const migrated = await DatabaseSchema.create(orm.em.getConnection(), platform, orm.config, undefined, undefined, entityTables);
  const diff = new SchemaComparator(platform).compare(migrated, orm.schema.getTargetSchema());
  for (const table of Object.values(diff.changedTables)) {
    table.removedIndexes = {};
    table.removedChecks = {};
    table.removedForeignKeys = {};
  }
  return orm.schema.diffToSQL(diff, { wrap: false, safe: true, dropTables: false }).trim();
}

describe('entities and migrations', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await initOrm(database.url, { poolMax: 1 });
  });
  afterAll(async () => {
    await orm.close();
    await database.drop();
  });

  it('every remaining entity matches its migrated table, and tables without an entity are left alone', async () => {
    expect(await entityDrift(orm)).toBe('');
  });

  it('notices an entity that changes a column type or adds a property no migration created', async () => {
    const changed = defineEntity({
      name: 'LoginAttempt',
      tableName: 'login_attempt',
      properties: {
        id: p.text().primary(),
        emailKey: p.text(),
        ip: p.integer(),
        attemptedAt: p.datetime(),
        userAgent: p.text().nullable(),
      },
    });
    const others = entities.filter((entity) => entity.meta.tableName !== 'login_attempt');
    const drifted = await MikroORM.init({ ...ormConfig(database.url, { poolMax: 1 }), entities: [...others, changed] });
    try {
      expect((await entityDrift(drifted)).split('\n')).toEqual([
        'alter table "login_attempt" add "user_agent" text null;',
        'alter table "login_attempt" alter column "ip" type int using ("ip"::int);',
      ]);
    } finally {
      await drifted.close();
    }
  });
});
