import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.ts';
import { migrate, openDatabase } from '../src/db/orm.ts';
import { seedDemoData } from './demo-data.ts';
import { seedSummary } from './seed-summary.ts';

// `--json`: the seed document, the only thing written to stdout (docs/operations.md, "Seed document"). Without it: a summary for a person.
const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } }, strict: true });

const env = loadEnv();
const db = await openDatabase(env, (line) => console.error(line));
try {
  await migrate(db.orm);
  const em = db.orm.em.fork();
  const document = await seedDemoData(em, new Date());
  if (values.json) {
    process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  } else {
    const ids = document.users.map((user) => user.id);
    const rows = await em.execute<{ id: string; slug: string }[]>(`select id, slug from app_user where id in (${ids.map(() => '?').join(', ')})`, ids);
    process.stdout.write(seedSummary(document, new Map(rows.map((row) => [row.id, row.slug])), env.SITE_URL));
  }
} finally {
  await db.close();
}
