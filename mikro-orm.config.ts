import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { DATABASE_TIMEOUTS } from './src/config/timeouts.ts';
import { DeadlineClient, releaseConnectionsThatEnd } from './src/db/connection-guard.ts';
import { entities } from './src/db/entities.ts';

export interface OrmOptions {
  poolMax?: number;
  debug?: boolean;
  /**
   * A batch job (migrations, a projection rebuild): no statement, lock or query timeouts, which exist so that no
   * request waits unboundedly but would cut a long migration or rebuild short.
   */
  batch?: boolean;
}

/** The one ORM configuration, shared by the service, the scripts and the tests; only the URL and the options differ. */
export function ormConfig(clientUrl: string, options: OrmOptions = {}) {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 20, idleTimeoutMillis: DATABASE_TIMEOUTS.poolIdleMs },
    // Passed to pg's Pool and to each of its clients (see src/config/timeouts.ts and src/db/connection-guard.ts).
    driverOptions: {
      Client: DeadlineClient,
      onPoolCreated: releaseConnectionsThatEnd,
      connectionTimeoutMillis: DATABASE_TIMEOUTS.acquireMs,
      keepAlive: true,
      ...(options.batch
        ? {}
        : {
            statement_timeout: DATABASE_TIMEOUTS.statementMs,
            lock_timeout: DATABASE_TIMEOUTS.lockMs,
            idle_in_transaction_session_timeout: DATABASE_TIMEOUTS.idleInTransactionMs,
            query_timeout: DATABASE_TIMEOUTS.queryMs,
          }),
    },
    debug: options.debug ?? false,
    // stdout belongs to commands' results (the seed document, a new token); ORM messages go to stderr.
    logger: (message: string) => process.stderr.write(`${message}\n`),
    allowGlobalContext: false,
    migrations: {
      path: new URL('./src/db/migrations', import.meta.url).pathname,
      glob: '!(*.d).{js,ts}',
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
