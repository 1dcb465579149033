import { METHODS } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { getTRPCErrorFromUnknown, type TRPCError } from '@trpc/server';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppServices, type Context, createContextInner, type RequestInfo } from '../api/context.ts';
import { buildOpenApiDocument, REST_BASE_PATH } from '../api/openapi.ts';
import { type AppRouter, appRouter } from '../api/root.ts';
import { logFailureOutsideProcedure } from '../api/trpc.ts';
import { type ErrorResponse, notJson, toErrorResponse, unsupportedMediaType } from '../lib/error-response.ts';
import type { ErrorDetail } from '../lib/errors.ts';
import { keepJsonBodiesStrict } from '../lib/json-body.ts';
import { methodNotAllowed, routeNotFound, sendErrorResponse } from './error-responses.ts';
import { requestDeadline } from './request-deadline.ts';
import { answerTrpcRequest, planTrpcRequest, type TrpcDoorOptions } from './trpc-door.ts';
import { allowedMethods, callRoute, dispatchPath, findRoute, restRoutes, type RouteMatch, withoutTrailingSlash } from './rest-dispatch.ts';
import { bodyProblems, canonicalPath, deleteBodyFields, queryStringProblems, type RestOperation, unexpectedBodyProblems } from './rest-input.ts';
import { jsonBodyParser } from './input-guard.ts';

export const TRPC_BASE_PATH = '/trpc';

/**
 * Calls one /trpc request may batch: a page of the web app batches a handful; without a bound, one request of
 * 100 KB could start thousands of procedures at once on one database connection.
 */
export const MAX_TRPC_BATCH = 50;

/** Problems the REST layer found in a request's query string or body shape, for the procedure to report. */
const restInputProblems = new WeakMap<FastifyRequest, ErrorDetail[]>();

function contextFor(services: AppServices, orm: MikroORM, req: FastifyRequest, surface: RequestInfo['surface']): Context {
  return createContextInner({
    services,
    em: orm.em.fork(),
    request: {
      headers: req.headers,
      ip: req.ip,
      surface,
      inputProblems: restInputProblems.get(req),
      deadline: requestDeadline(req),
    },
  });
}

/** The typed tRPC API for first-party apps (superjson) at /trpc. */
export async function registerTrpc(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  const trpcOptions = trpcHandlerOptions(services, orm);
  const door: TrpcDoorOptions<Context> = {
    router: appRouter,
    createContext: (request) => contextFor(services, orm, request, 'trpc'),
    onError: ({ error, path }) => logFailureOutsideProcedure(services.log, error, path),
    responseHeaders: trpcResponseHeaders,
    signalOf: (ctx) => ctx.request.deadline,
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

/** tRPC's own handler's options: what src/http/trpc-door.ts does not answer goes there. */
export function trpcHandlerOptions(services: AppServices, orm: MikroORM): FastifyTRPCPluginOptions<AppRouter>['trpcOptions'] {
  return {
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH,
    createContext: ({ req }) => contextFor(services, orm, req, 'trpc'),
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
 * A JSON answer of tRPC's Fetch handler, written in one piece with its length. Handed the `Response` itself,
 * Fastify would stream its body: chunked encoding, one socket write for the body and another for its end, a
 * system call that cost more than all of tRPC's own work on a small request (bench, `--profile`). Anything else
 * (a stream of results) is still streamed.
 */
async function sendFetchResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return reply.send(response);
  // The bytes as tRPC encoded them: reading them as text would decode the UTF-8 only for Fastify to encode it again.
  const body = Buffer.from(await response.arrayBuffer());
  reply.code(response.status);
  for (const [name, value] of response.headers) reply.header(name, value);
  return reply.send(body);
}

/** The public REST API at /api/v2, generated from the same procedures by trpc-to-openapi (src/http/rest-dispatch.ts). */
export async function registerRest(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  keepJsonBodiesStrict(appRouter);
  const routes = restRoutes(appRouter, buildOpenApiDocument(services.env.SITE_URL), REST_BASE_PATH);
  /** The route each request was matched to, by the preHandler for the handler; absent when none serves its path. */
  const matches = new WeakMap<FastifyRequest, RouteMatch>();
  await app.register(async (scope) => {
    registerRestBodyParsers(scope, jsonBodyParser(app));
    // The route table answers what the adapter would not answer in the spec's words: an unknown path (404),
    // a known path with another method (405 with Allow) and a body that is not JSON (415).
    scope.addHook('preHandler', (request, reply, done) => {
      const [path = '', query] = splitOnce(request.url, '?');
      const requested = withoutTrailingSlash(path);
      // HEAD is Fastify's own answer for the GET routes; elsewhere it is refused as GET would be.
      if (request.method === 'HEAD') return findRoute(routes, 'GET', requested) ? done() : void refuse(reply, unroutable('HEAD', path));
      const found = findRoute(routes, request.method, requested);
      if (!found) return void refuse(reply, unroutable(request.method, path));
      const body = readBody(request);
      if (body === 'other') return void refuse(reply, unsupportedMediaType());
      if (body === 'none' && found.route.takesBody) return void refuse(reply, declaresJson(request) ? notJson() : unsupportedMediaType());
      const problems = inputProblems(request, found, query);
      if (request.method === 'DELETE' && request.body !== undefined) problems.push(...mergeDeleteBody(request, found.route));
      if (problems.length > 0) restInputProblems.set(request, problems);
      const canonical = canonicalPath(path);
      request.raw.url = canonical + (query === undefined ? '' : `?${query}`);
      // The procedure is chosen by the canonical path with its dot segments resolved: almost always the path matched.
      const dispatched = dispatchPath(canonical, REST_BASE_PATH);
      const dispatch = dispatched === requested ? found : findRoute(routes, request.method, dispatched);
      if (dispatch) matches.set(request, dispatch);
      done();
    });
    scope.route({
      method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      url: `${REST_BASE_PATH}/*`,
      handler: async (request, reply) => {
        // HEAD (Fastify's, for the GET routes) has no procedure: an empty 204, as trpc-to-openapi answered it.
        if (request.method === 'HEAD') return reply.code(204).send();
        const found = matches.get(request);
        if (!found) return refuse(reply, unroutable(request.method, request.url.split('?')[0] ?? ''));
        let ctx: Context | undefined;
        try {
          ctx = contextFor(services, orm, request, 'rest');
          const data = await callRoute(appRouter, found, request, ctx);
          reply.code(ctx.response.status ?? 200).headers({ 'content-type': 'application/json', 'cache-control': 'no-store', ...ctx.response.headers });
          return reply.send(JSON.stringify(data));
        } catch (cause) {
          // The status, headers and body of an error all come from the one error conversion.
          const error = getTRPCErrorFromUnknown(cause);
          logFailureOutsideProcedure(services.log, error, found.route.path);
          const answer = toErrorResponse(error);
          reply.code(answer.status).headers({ 'content-type': 'application/json', 'cache-control': 'no-store', ...ctx?.response.headers, ...answer.headers });
          return reply.send(JSON.stringify(answer.body));
        }
      },
    });
    // Methods the adapter does not route (TRACE, OPTIONS, PROPFIND, QUERY, …) reach the same 405 with Allow;
    // Fastify routes only the methods it knows, so the others are made known (without a body) first.
    // QUERY is re-made bodyless: Fastify would otherwise refuse it for its missing Content-Type before routing.
    for (const method of OTHER_METHODS) {
      if (!scope.supportedMethods.includes(method) || method === 'QUERY') scope.addHttpMethod(method, { overrideExisting: true });
    }
    scope.route({
      method: OTHER_METHODS,
      url: `${REST_BASE_PATH}/*`,
      handler: async (request, reply) => refuse(reply, unroutable(request.method, request.url.split('?')[0] ?? '')),
    });
  });

  function unroutable(method: string, path: string): ErrorResponse {
    const allowed = allowedMethods(routes, path);
    return allowed.length === 0 ? routeNotFound(method, path) : methodNotAllowed(method, path, allowed);
  }
}

/** Every /api/v2 answer, a refusal included, is `no-store`, as the adapter's own are. */
function refuse(reply: FastifyReply, answer: ErrorResponse): FastifyReply {
  return sendErrorResponse(reply.header('Cache-Control', 'no-store'), answer);
}

/** Every method Node parses that the adapter does not route (it serves GET, POST, PUT, PATCH and DELETE; HEAD is Fastify's). */
const OTHER_METHODS = METHODS.filter((method) => !['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT'].includes(method));

/** What the REST scope's body parsers leave for the preHandler, which knows the operation, to judge. */
const EMPTY_BODY = Symbol('empty body');
const OTHER_MEDIA_TYPE = Symbol('body of another media type');

/**
 * An empty body, whatever its media type, is no body (operations without one are sent so, `curl -d ''`
 * included); a non-empty body must be JSON. The preHandler answers both once it knows the operation.
 */
function registerRestBodyParsers(scope: FastifyInstance, parseJson: ReturnType<typeof jsonBodyParser>): void {
  scope.removeContentTypeParser(['application/json', 'text/plain', 'application/x-www-form-urlencoded']);
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
    body === '' ? done(null, EMPTY_BODY) : parseJson(request, body as string, done),
  );
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body.length === 0 ? EMPTY_BODY : OTHER_MEDIA_TYPE));
}

/** The body as sent: none (an empty one included; `request.body` is then undefined), JSON, or another media type. */
function readBody(request: FastifyRequest): 'none' | 'json' | 'other' {
  if (request.body === OTHER_MEDIA_TYPE) return 'other';
  if (request.body !== EMPTY_BODY && request.body !== undefined) return 'json';
  request.body = undefined;
  return 'none';
}

function declaresJson(request: FastifyRequest): boolean {
  return request.headers['content-type']?.startsWith('application/json') ?? false;
}

/** What is wrong with a REST request's query string and body shape before its schema looks at the values. */
function inputProblems(request: FastifyRequest, { route, pathInput }: RouteMatch, query: string | undefined): ErrorDetail[] {
  const problems = query === undefined ? [] : queryStringProblems(query, route);
  if (request.body === undefined || request.method === 'DELETE') return problems;
  return [...problems, ...(route.takesBody ? bodyProblems(request.body, Object.keys(pathInput)) : unexpectedBodyProblems(request.body))];
}

/** A DELETE's JSON body joins its query (the adapter reads a DELETE's input from `request.query`). */
function mergeDeleteBody(request: FastifyRequest, operation: RestOperation): ErrorDetail[] {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const { fields, problems } = deleteBodyFields(request.body, operation, Object.keys(query));
  request.query = { ...query, ...fields };
  return problems;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index === -1 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}

