import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { answerWithin } from '../lib/answer-within.ts';
import { type CounterStore, probeCounterStore } from '../lib/rate-limit.ts';
import type { Draining } from './draining.ts';

const HEALTH_TIMEOUT_MS = 2000;
/** A database or counter store that takes longer than this for a trivial query cannot serve the API in time either. */
const READINESS_TIMEOUT_MS = 1000;

/**
 * Liveness (`/healthz`, the operator contract: 200 once the database answers, 503 otherwise) and readiness
 * (`/readyz`: whether this instance should get traffic now). Readiness is 503 from the first moment of a stop
 * (the lame-duck period: load balancers stop sending while requests are still served), and when the database does
 * not answer in time; a counter store that does not answer is reported as `degraded` with 200, because the rate
 * limiter then counts in process memory (fail open): taking every instance out of rotation because the shared
 * Redis froze would turn a limiter outage into a whole outage. The readiness probes' time limits do not count a
 * busy event loop against the database or the store (src/lib/answer-within.ts): load alone is not a fault.
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
