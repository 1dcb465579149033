import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';

const HEALTH_TIMEOUT_MS = 2000;

/** 200 once the database answers, 503 otherwise: what a load balancer needs to route around a bad instance. */
export function registerHealth(app: FastifyInstance, orm: MikroORM): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await withTimeout(orm.em.getConnection().execute('select 1'), HEALTH_TIMEOUT_MS);
      return reply.header('Cache-Control', 'no-store').send({ status: 'ok' });
    } catch (error) {
      request.log.warn({ err: error }, 'health check failed');
      return reply.code(503).header('Cache-Control', 'no-store').send({ status: 'unavailable' });
    }
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
