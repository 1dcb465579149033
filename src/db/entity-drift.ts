import { TSMigrationGenerator } from '@mikro-orm/migrations';
import { DatabaseSchema, type MikroORM, SchemaComparator } from '@mikro-orm/postgresql';

/**
 * What the entities say about their tables that the database does not bear out, as the statements MikroORM would
 * run (none when they agree). The migrations are the schema's one description: an entity's columns, primary key
 * and named unique constraints must hold, while indexes, checks and foreign keys live in the migrations alone.
 * Only the entities' tables are read, so tables described by SQL alone never show up as drops.
 */
export async function entityDrift(orm: MikroORM): Promise<string[]> {
  const platform = orm.em.getPlatform();
  const entityTables = [...orm.getMetadata().getAll().values()].map((meta) => meta.tableName);
  const current = await DatabaseSchema.create(orm.em.getConnection(), platform, orm.config, undefined, undefined, entityTables);
  const diff = new SchemaComparator(platform).compare(current, orm.schema.getTargetSchema());
  for (const table of Object.values(diff.changedTables)) {
    table.removedIndexes = {};
    table.removedChecks = {};
    table.removedForeignKeys = {};
  }
  const sql = orm.schema.diffToSQL(diff, { wrap: false, safe: true, dropTables: false });
  return sql
    .split(/;\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter((statement) => statement !== '');
}

/**
 * Writes a new migration `Migration<timestamp>_<name>.ts` into `directory`: the entity drift of `orm`'s database
 * (which must be migrated to date) when there is any, else an empty `up()` for the SQL a table without an entity
 * needs. Returns the file's path and the statements it holds.
 */
export async function draftMigration(
  orm: MikroORM,
  name: string,
  directory: string,
): Promise<{ path: string; statements: string[] }> {
  const statements = await entityDrift(orm);
  const generator = new TSMigrationGenerator(orm.em.getDriver(), orm.config.getNamingStrategy(), {
    ...orm.config.get('migrations'),
    path: directory,
  });
  const [, fileName] = await generator.generate({ up: statements, down: [] }, directory, name);
  return { path: `${directory}/${fileName}`, statements };
}
