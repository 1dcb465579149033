import pg from 'pg';

/**
 * A connection that fails must leave the pool, whatever its holder does next. Kysely (under MikroORM) releases a
 * transaction's connection only after a successful COMMIT or ROLLBACK, and on a dead connection the ROLLBACK
 * throws and is swallowed, so outages under load would leak the pool. `DeadlineClient` ends a connection whose
 * query goes unanswered past `query_timeout`; `releaseConnectionsThatEnd` returns a connection that ends while
 * checked out (the pool then discards it) and makes its holder's later release a no-op.
 */
export class DeadlineClient extends pg.Client {
  // pg's query() has a dozen overloads (promise, callback, submittable); this forwards them all unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const result: unknown = (super.query as (...forwarded: unknown[]) => unknown)(...args);
    if (!(result instanceof Promise)) return result;
    return result.catch((error: unknown) => {
      if (error instanceof Error && error.message === QUERY_READ_TIMEOUT) void this.end();
      throw error;
    });
  }
}

/** pg's error for a query unanswered past query_timeout (src/lib/unavailable.ts classifies it as a 503). */
export const QUERY_READ_TIMEOUT = 'Query read timeout';

export function releaseConnectionsThatEnd(pool: pg.Pool): void {
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client as pg.PoolClient));
  pool.on('connect', (client) => {
    client.once('end', () => {
      const holder = client as pg.PoolClient;
      if (!checkedOut.has(holder)) return;
      const release = holder.release;
      holder.release = () => undefined;
      release(new Error('connection ended while checked out'));
    });
  });
}
