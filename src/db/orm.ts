import { MikroORM } from '@mikro-orm/postgresql';
import { type OrmOptions, ormConfig } from '../../mikro-orm.config.ts';
import type { Env } from '../config/env.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.ts';

export type Orm = MikroORM;

export interface Database {
  orm: Orm;
  url: string;
  close(): Promise<void>;
}

export async function initOrm(url: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(url, options));
}

/** Applies pending migrations on a batch connection of their own (no statement timeout to cut them short). */
export async function migrate(orm: Orm): Promise<void> {
  if ((await orm.migrator.getPending()).length === 0) return;
  const batch = await initOrm(orm.config.get('clientUrl')!, { poolMax: 1, batch: true });
  try {
    await batch.migrator.up();
  } finally {
    await batch.close();
  }
}

/** The database the environment names, or an embedded PostgreSQL under DATA_DIR when DATABASE_URL is unset. */
export async function openDatabase(
  env: Pick<Env, 'DATABASE_URL' | 'DATA_DIR'>,
  log: (line: string) => void,
  options: Pick<OrmOptions, 'batch'> = {},
): Promise<Database> {
  const embedded: EmbeddedDatabase | undefined = env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(env.DATA_DIR, log);
  const url = env.DATABASE_URL ?? embedded!.url;
  const orm = await initOrm(url, options);
  return {
    orm,
    url,
    async close() {
      await orm.close();
      await embedded?.stop();
    },
  };
}
