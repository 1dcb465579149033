import { Migrator } from '@mikro-orm/migrations';
import { defineConfig } from '@mikro-orm/postgresql';
import { entities } from './src/db/entities.ts';

/** The one ORM configuration, shared by the service, the scripts and the tests; only the URL differs. */
export function ormConfig(clientUrl: string, options: { poolMax?: number; debug?: boolean } = {}) {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 20 },
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
