import type { FastifyInstance, FastifyRequest } from 'fastify';

const deadlines = new WeakMap<FastifyRequest, AbortSignal>();

/** Thrown into a request whose deadline passed; src/lib/unavailable.ts makes it a 503 with Retry-After. */
export class DeadlineExceeded extends Error {
  readonly code = 'REQUEST_DEADLINE_EXCEEDED';

  constructor(ms: number) {
    super(`The request did not finish within ${ms} ms.`);
    this.name = 'DeadlineExceeded';
  }
}

/**
 * A deadline for every request from the moment its body has been read: a handler that has not answered by then
 * gets a 503 with Retry-After, and its signal is aborted, so a booking transaction rolls back instead of
 * committing for a client that was told 503. Fastify 5.12's `handlerTimeout` never fires for a POST: it is
 * cancelled by the request's 'close', which Node emits once the body is read.
 */
export function registerRequestDeadline(app: FastifyInstance, ms: number): void {
  app.addHook('preHandler', (request, reply, done) => {
    const controller = new AbortController();
    deadlines.set(request, controller.signal);
    const timer = setTimeout(() => {
      const exceeded = new DeadlineExceeded(ms);
      controller.abort(exceeded);
      if (!reply.sent && !reply.raw.headersSent) reply.send(exceeded);
    }, ms);
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}

/** The request's deadline signal, aborted when its deadline passes (undefined outside the HTTP routes). */
export function requestDeadline(request: FastifyRequest): AbortSignal | undefined {
  return deadlines.get(request);
}
