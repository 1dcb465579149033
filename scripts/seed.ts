import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.ts';
import { migrate, openDatabase } from '../src/db/orm.ts';
import { seedDemoData } from './demo-data.ts';

// `--json` is the documented form; the document is the only thing written to stdout either way.
parseArgs({ options: { json: { type: 'boolean', default: true } }, strict: true });

const env = loadEnv();
const db = await openDatabase(env, (line) => console.error(line));
try {
  await migrate(db.orm);
  const document = await seedDemoData(db.orm.em.fork(), new Date());
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
} finally {
  await db.close();
}
