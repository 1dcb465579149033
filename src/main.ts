import { buildApp } from './app.ts';
import { loadEnv } from './config/env.ts';
import { migrate, openDatabase } from './db/orm.ts';

const env = loadEnv();
const database = await openDatabase(env, (line) => console.error(line));
await migrate(database.orm);
const app = await buildApp({ env, orm: database.orm, databaseUrl: database.url });
await app.fastify.listen({ port: env.PORT, host: env.HOST });
console.log(`Scheduling API listening on ${env.SITE_URL} (bound to ${env.HOST}:${env.PORT})`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.fastify.log.info({ signal }, 'shutting down');
  await app.close();
  await database.close();
  process.exit(0);
}
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
