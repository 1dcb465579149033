import { loadEnv } from '../src/config/env.ts';
import { migrate, openDatabase } from '../src/db/orm.ts';
import { rebuildAllContacts } from '../src/modules/contacts/contacts.projection.ts';

const env = loadEnv();
const db = await openDatabase(env, (line) => console.error(line), { batch: true });
try {
  await migrate(db.orm);
  const rows = await rebuildAllContacts(db.orm.em.fork());
  console.error(`rebuilt ${rows} contact(s)`);
} finally {
  await db.close();
}
