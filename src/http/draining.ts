import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorResponse } from '../lib/error-response.ts';
import { sendErrorResponse } from './error-responses.ts';

/**
 * When the listener closes, a connection accepted moments before may already carry a request that has not been
 * read yet: it gets this long to deliver one (answered, then closed) before it is cut as idle.
 */
const FIRST_REQUEST_GRACE_MS = 1000;

export interface Draining {
  /** True from the first moment of the stop: /readyz fails, so that load balancers stop sending. */
  readonly stopping: boolean;
  /**
   * The lame-duck period: readiness fails, requests are still served as usual, and each answer closes its
   * connection, so that clients and balancers move on before the listener closes (`fastify.close()`).
   */
  beginStop(): void;
}

/**
 * The stop load balancers expect. From `beginStop()` (SIGTERM) requests are served and every answer closes its
 * connection. At `fastify.close()` the listener closes once the kernel's queue is accepted (closing earlier resets
 * them); later requests get our 503 with Retry-After and `Connection: close`, and requests in flight finish.
 * Connections accepted without a request yet get FIRST_REQUEST_GRACE_MS to send one, so it is answered, not reset.
 */
export function registerDraining(app: FastifyInstance): Draining {
  let stopping = false;
  let closing = false;
  const awaitingFirstRequest = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    awaitingFirstRequest.add(socket);
    socket.once('close', () => awaitingFirstRequest.delete(socket));
  });
  app.server.on('request', (request: { socket: Socket }) => awaitingFirstRequest.delete(request.socket));
  spareFreshConnections(app, awaitingFirstRequest);

  app.addHook('preClose', async () => {
    stopping = true;
    closing = true;
    // Fastify closes the listener right after this hook: from the check phase, just after the poll phase has
    // accepted every connection the kernel had queued.
    await new Promise((resolve) => setImmediate(resolve));
  });
  // Callback-style hooks (here and in the other hooks every request passes): an async hook costs a promise and
  // a turn of the microtask queue per request, for code that never waits.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    const answer = errorResponse('unavailable', 'This instance is shutting down. Retry shortly.');
    // Sooner than an outage's Retry-After: the other instances are up.
    sendErrorResponse(reply, { ...answer, headers: { ...answer.headers, 'Retry-After': '1' } });
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // An idle keep-alive connection would otherwise stay with this instance, and hold its stop up.
    if (stopping) reply.header('Connection', 'close');
    done(null, payload);
  });
  return {
    get stopping() {
      return stopping;
    },
    beginStop() {
      stopping = true;
    },
  };
}

/**
 * Node's `server.close()` cuts every idle connection at once, those just accepted included (their request may be
 * in the socket's buffer, unread): the cut waits until each of them has delivered a request or had its grace.
 */
function spareFreshConnections(app: FastifyInstance, awaitingFirstRequest: Set<Socket>): void {
  const cutIdleConnections = app.server.closeIdleConnections.bind(app.server);
  app.server.closeIdleConnections = () => {
    const waiting = [...awaitingFirstRequest];
    if (waiting.length === 0) return cutIdleConnections();
    const graceEnds = Date.now() + FIRST_REQUEST_GRACE_MS;
    const check = setInterval(() => {
      if (waiting.some((socket) => awaitingFirstRequest.has(socket)) && Date.now() < graceEnds) return;
      clearInterval(check);
      cutIdleConnections();
    }, 20);
  };
}
