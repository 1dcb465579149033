import pg from 'pg';
import { inject } from 'vitest';

/** One statement on the test database server's own connection, outside every app's pool (to cut a database off, say). */
export async function adminQuery(sql: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: inject('serverUrl') });
  await client.connect();
  try {
    await client.query(sql, params);
  } finally {
    await client.end();
  }
}
