import type { MikroORM } from '@mikro-orm/postgresql';
import type { TRPCError } from '@trpc/server';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppServices, type Context, logFailureOutsideProcedure, requestContexts } from '../../api/call.ts';
import { type AppRouter, appRouter } from '../../router/root.ts';
import { toErrorResponse } from '../../lib/error-response.ts';
import { requestDeadline } from '../request-deadline.ts';
import { answerTrpcRequest, planTrpcRequest, type TrpcDoorOptions } from './trpc-door.ts';

export const TRPC_BASE_PATH = '/trpc';

/**
 * Calls one /trpc request may batch: a page of the web app batches a handful; without a bound, one request of
 * 100 KB could start thousands of procedures at once on one database connection.
 */
export const MAX_TRPC_BATCH = 50;

/** The door's context maker: the web app's session door is this one (src/api/call.ts authenticates its cookie). */
function trpcContexts(services: AppServices, orm: MikroORM): (request: FastifyRequest) => Context {
  const contextFor = requestContexts(services, orm);
  return (request) => contextFor({ headers: request.headers, ip: request.ip, surface: 'trpc', deadline: requestDeadline(request) });
}

/** The typed tRPC API for first-party apps (superjson) at /trpc. */
export async function registerTrpc(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  const trpcOptions = trpcHandlerOptions(services, orm);
  const door: TrpcDoorOptions = {
    router: appRouter,
    createContext: trpcContexts(services, orm),
    onError: ({ error, path }) => logFailureOutsideProcedure(services.log, error, path),
    responseHeaders: trpcResponseHeaders,
  };
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    // Every procedure takes JSON: a body of any other media type is read (within the body limit) and dropped,
    // and the door answers 415 in tRPC's shape.
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
    scope.all<{ Params: { path: string } }>(`${TRPC_BASE_PATH}/:path`, async (request, reply) => {
      const plan = planTrpcRequest(appRouter, request, request.params.path, MAX_TRPC_BATCH);
      if (plan) return answerTrpcRequest(door, plan, request, reply);
      // tRPC's own handler for the rest (streams, HEAD, other methods), but for how its answer is written: see
      // sendFetchResponse.
      const res = { raw: reply.raw, send: (response: Response) => sendFetchResponse(reply, response) };
      await fastifyRequestHandler({ ...trpcOptions, req: request, res: res as unknown as FastifyReply, path: request.params.path });
    });
  });
}

/** tRPC's own handler's options: what src/http/trpc/trpc-door.ts does not answer goes there. */
export function trpcHandlerOptions(services: AppServices, orm: MikroORM): FastifyTRPCPluginOptions<AppRouter>['trpcOptions'] {
  const contextFor = trpcContexts(services, orm);
  return {
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ req }) => contextFor(req),
    onError: ({ error, path }) => logFailureOutsideProcedure(services.log, error, path),
    responseMeta: ({ ctx, errors }) => ({ headers: trpcResponseHeaders(ctx as Context | undefined, errors) }),
  };
}

/** Answers carry the caller's own data (and session.current its CSRF token): never stored in a cache. */
function trpcResponseHeaders(ctx: Context | undefined, errors: TRPCError[]): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    ...ctx?.response.headers,
    ...(errors.length === 0 ? {} : Object.assign({}, ...errors.map((error) => toErrorResponse(error).headers))),
  };
}

/**
 * A JSON answer of tRPC's Fetch handler, written in one piece with its length; handed the `Response` itself,
 * Fastify would stream its body in more socket writes (docs/performance.md#the-trpc-door). Anything else (a stream
 * of results) is still streamed.
 */
async function sendFetchResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return reply.send(response);
  // The bytes as tRPC encoded them: reading them as text would decode the UTF-8 only for Fastify to encode it again.
  const body = Buffer.from(await response.arrayBuffer());
  reply.code(response.status);
  for (const [name, value] of response.headers) reply.header(name, value);
  return reply.send(body);
}
