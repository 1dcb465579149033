import { loadEnv } from '../src/config/env.ts';
import { migrate, openDatabase } from '../src/db/orm.ts';

const env = loadEnv();
const db = await openDatabase(env, (line) => console.error(line));
try {
  const pending = await db.orm.migrator.getPending();
  await migrate(db.orm);
  console.error(`applied ${pending.length} migration(s)`);
} finally {
  await db.close();
}
