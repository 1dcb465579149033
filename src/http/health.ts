import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { answerWithin } from '../lib/answer-within.ts';
import { type CounterStore, probeCounterStore } from '../lib/rate-limit.ts';
import type { Draining } from './draining.ts';

const HEALTH_TIMEOUT_MS = 2000;
/** A database or counter store that takes longer than this for a trivial query cannot serve the API in time either. */
const READINESS_TIMEOUT_MS = 1000;

/**
 * Liveness (`/healthz`: 200 once the database answers) and readiness (`/readyz`: 503 from the first moment of a
 * stop and when the database does not answer in time). A silent counter store is `degraded` with 200: the limiter
 * then counts in memory, and pulling every instance because Redis froze would turn a limiter outage into a whole
 * outage. A busy event loop is not counted against the probes' time limits (src/lib/answer-within.ts).
 */
export function registerHealth(app: FastifyInstance, orm: MikroORM, counterStore: CounterStore, draining: Pick<Draining, 'stopping'>): void {
  const pingDatabase = (timeoutMs: number) => answerWithin(orm.em.getConnection().execute('select 1'), { ms: timeoutMs });

  app.get('/healthz', async (request, reply) => {
    try {
      await pingDatabase(HEALTH_TIMEOUT_MS);
      return noStore(reply).send({ status: 'ok' });
    } catch (error) {
      request.log.warn({ err: error }, 'health check failed');
      return noStore(reply).code(503).send({ status: 'unavailable' });
    }
  });

  app.get('/readyz', async (request, reply) => {
    if (draining.stopping) return noStore(reply).code(503).send({ status: 'stopping' });
    const [database, store] = await Promise.allSettled([
      pingDatabase(READINESS_TIMEOUT_MS),
      answerWithin(probeCounterStore(counterStore), { ms: READINESS_TIMEOUT_MS }),
    ]);
    if (database.status === 'rejected') request.log.warn({ err: database.reason }, 'readiness: database did not answer');
    if (store.status === 'rejected') request.log.warn({ err: store.reason }, 'readiness: counter store did not answer');
    const checks = {
      database: database.status === 'fulfilled' ? 'ok' : 'unavailable',
      counterStore: store.status === 'fulfilled' ? 'ok' : 'degraded',
    } as const;
    if (checks.database !== 'ok') return noStore(reply).code(503).send({ status: 'unavailable', ...checks });
    return noStore(reply).send({ status: checks.counterStore === 'ok' ? 'ready' : 'degraded', ...checks });
  });
}

const noStore = (reply: FastifyReply) => reply.header('Cache-Control', 'no-store');
