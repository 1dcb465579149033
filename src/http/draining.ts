import type { FastifyInstance } from 'fastify';
import { errorResponse } from '../lib/error-response.ts';
import { sendErrorResponse } from './error-responses.ts';

/**
 * While the server stops (`fastify.close()`: no new connections, requests in flight finish), a request that
 * still arrives on an open keep-alive connection gets the API's own 503 with Retry-After (Fastify's built-in
 * answer is switched off with `return503OnClosing: false`), and every response sent meanwhile closes its
 * connection: an idle keep-alive connection would otherwise hold the stop up until its keep-alive timeout.
 */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  // Callback-style hooks (here and in the other hooks every request passes): an async hook costs a promise and
  // a turn of the microtask queue per request, for code that never waits.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!draining) return done();
    const answer = errorResponse('unavailable', 'This instance is shutting down. Retry shortly.');
    // Sooner than an outage's Retry-After: the other instances are up.
    sendErrorResponse(reply, { ...answer, headers: { ...answer.headers, 'Retry-After': '1' } });
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('Connection', 'close');
    done(null, payload);
  });
}
