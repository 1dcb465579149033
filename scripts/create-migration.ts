/**
 * `npm run db:migration:create -- <name> [--dir=<directory>]`: a new migration file (default directory
 * src/db/migrations). It migrates a scratch database on DATABASE_URL's server (or the embedded one) to date and
 * writes what the entities say that the migrations do not (src/db/entity-drift.ts) into the new migration's
 * `up()`; when they agree, `up()` is empty, for the SQL of a table described by SQL alone. Read the statements
 * before committing them. Prints the new file's path.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadEnv } from '../src/config/env.ts';
import { draftMigration } from '../src/db/entity-drift.ts';
import { initOrm, migrate, openDatabase } from '../src/db/orm.ts';

const USAGE = 'usage: npm run db:migration:create -- <name, e.g. add_reminders> [--dir=<directory>]';
const args = process.argv.slice(2);
const name = args.find((arg) => !arg.startsWith('--'));
const dirArg = args.find((arg) => arg.startsWith('--dir='));
if (!name || !/^[a-z][a-z0-9_]*$/.test(name) || args.length > (dirArg ? 2 : 1)) {
  console.error(USAGE);
  process.exit(2);
}
const directory = path.resolve(dirArg?.slice('--dir='.length) ?? new URL('../src/db/migrations', import.meta.url).pathname);

const log = (line: string) => console.error(line);
const server = await openDatabase(loadEnv(), log, { batch: true });
const scratchName = `migration_draft_${randomBytes(4).toString('hex')}`;
const scratchUrl = new URL(server.url);
scratchUrl.pathname = `/${scratchName}`;
const connection = server.orm.em.getConnection();
try {
  await connection.execute(`create database ${scratchName}`);
  const scratch = await initOrm(scratchUrl.toString(), { poolMax: 1, batch: true });
  try {
    await migrate(scratch);
    const draft = await draftMigration(scratch, name, directory);
    log(
      draft.statements.length > 0
        ? `${draft.statements.length} statement(s) from the entities' diff; read them before committing`
        : 'the entities match the migrations: up() is empty, write its SQL by hand',
    );
    console.log(draft.path);
  } finally {
    await scratch.close();
  }
} finally {
  await connection.execute(`drop database if exists ${scratchName} with (force)`);
  await server.close();
}
