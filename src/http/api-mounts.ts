import { METHODS, type ServerResponse } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { fastifyRequestHandler, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  createOpenApiNodeHttpHandler,
  type CreateOpenApiNodeHttpHandlerOptions,
  type NodeHTTPRequest,
} from 'trpc-to-openapi';
import { type AppServices, type Context, createContextInner, type RequestInfo } from '../api/context.ts';
import { buildOpenApiDocument, REST_BASE_PATH } from '../api/openapi.ts';
import { type AppRouter, appRouter } from '../api/root.ts';
import { logFailureOutsideProcedure } from '../api/trpc.ts';
import { type ErrorResponse, toErrorResponse, unsupportedMediaType } from '../lib/error-response.ts';
import type { ErrorDetail } from '../lib/errors.ts';
import { keepJsonBodiesStrict } from '../lib/json-body.ts';
import { methodNotAllowed, routeNotFound, sendErrorResponse } from './error-responses.ts';
import { requestDeadline } from './request-deadline.ts';
import { canonicalPath, deleteBodyFields, queryStringProblems, type RestOperation, restOperations } from './rest-input.ts';

export const TRPC_BASE_PATH = '/trpc';

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
  const trpcOptions: FastifyTRPCPluginOptions<AppRouter>['trpcOptions'] = {
    router: appRouter,
    createContext: ({ req }) => contextFor(services, orm, req, 'trpc'),
    onError: ({ error, path }) => logFailureOutsideProcedure(services.log, error, path),
    // Answers carry the caller's own data (and session.current its CSRF token): never store them in a cache.
    responseMeta: ({ ctx, errors }) => ({
      headers: new Headers({
        'Cache-Control': 'no-store',
        ...(ctx as Context | undefined)?.response.headers,
        ...Object.assign({}, ...errors.map((error) => toErrorResponse(error).headers)),
      }),
    }),
  };
  // tRPC's own Fastify plugin, but for how the answer is written: see sendFetchResponse.
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.removeContentTypeParser('multipart/form-data');
    scope.addContentTypeParser('multipart/form-data', {}, (_request, body, done) => done(null, body));
    scope.all<{ Params: { path: string } }>(`${TRPC_BASE_PATH}/:path`, async (request, reply) => {
      const res = { raw: reply.raw, send: (response: Response) => sendFetchResponse(reply, response) };
      await fastifyRequestHandler({ ...trpcOptions, req: request, res: res as unknown as FastifyReply, path: request.params.path });
    });
  });
}

/**
 * A JSON answer of tRPC's Fetch handler, written in one piece with its length. Handed the `Response` itself,
 * Fastify would stream its body: chunked encoding, one socket write for the body and another for its end, a
 * system call that cost more than all of tRPC's own work on a small request (bench, `--profile`). Anything else
 * (a stream of results) is still streamed.
 */
async function sendFetchResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  if (!response.headers.get('content-type')?.startsWith('application/json')) return reply.send(response);
  const body = await response.text();
  reply.code(response.status);
  for (const [name, value] of response.headers) reply.header(name, value);
  return reply.send(body);
}

/** The public REST API at /api/v2, generated from the same procedures by trpc-to-openapi. */
export async function registerRest(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  const options: CreateOpenApiNodeHttpHandlerOptions<AppRouter, NodeHTTPRequest, ServerResponse> = {
    router: appRouter,
    // The handler is given a NodeRequestView (below), which keeps the Fastify request.
    createContext: ({ req }) => contextFor(services, orm, (req as unknown as NodeRequestView).fastify, 'rest'),
    onError: ({ error, path }) => logFailureOutsideProcedure(services.log, error, path),
    // An error's status and headers come from the one error conversion; its body from the error formatter
    // (src/api/trpc.ts), which calls the same conversion.
    responseMeta: ({ ctx, errors }) => {
      const response = (ctx as Context | undefined)?.response;
      const answer = errors[0] ? toErrorResponse(errors[0]) : undefined;
      return {
        status: answer ? answer.status : response?.status,
        headers: { 'Cache-Control': 'no-store', ...response?.headers, ...answer?.headers },
      };
    },
  };
  keepJsonBodiesStrict(appRouter);
  const operations = restOperations(buildOpenApiDocument(services.env.SITE_URL), REST_BASE_PATH);
  const allowedMethods = (path: string) => [
    ...new Set(operations.filter((operation) => operation.pattern.test(path)).map((operation) => operation.method)),
  ];
  await app.register(async (scope) => {
    // The route table answers what the adapter would not answer in the spec's words: an unknown path (404),
    // a known path with another method (405 with Allow) and a body that is not JSON (415).
    scope.addHook('preHandler', (request, reply, done) => {
      const [path = '', query] = splitOnce(request.url, '?');
      // HEAD is Fastify's own answer for the GET routes.
      if (request.method === 'HEAD') return done();
      const operation = operations.find((candidate) => candidate.method === request.method && candidate.pattern.test(path));
      if (!operation) return void refuse(reply, unroutable(request.method, path));
      const isJson = request.headers['content-type']?.startsWith('application/json') ?? false;
      if ((takesBody(request.method) || (request.method === 'DELETE' && request.body !== undefined)) && !isJson) {
        return void refuse(reply, unsupportedMediaType());
      }
      const problems = inputProblems(request, operation, query);
      if (request.method === 'DELETE' && request.body !== undefined) problems.push(...mergeDeleteBody(request, operation));
      if (problems.length > 0) restInputProblems.set(request, problems);
      request.raw.url = canonicalPath(path) + (query === undefined ? '' : `?${query}`);
      done();
    });
    // The handler reads only what the views give (every REST test goes through them); its parameter types name
    // the whole Node request and response.
    const handle = createOpenApiNodeHttpHandler(options) as unknown as (req: NodeRequestView, res: NodeResponseView) => Promise<void>;
    scope.route({
      method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      url: `${REST_BASE_PATH}/*`,
      handler: async (request, reply) => {
        await handle(new NodeRequestView(request, request.url.slice(REST_BASE_PATH.length)), new NodeResponseView(reply));
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
    const allowed = allowedMethods(path);
    return allowed.length === 0 ? routeNotFound(method, path) : methodNotAllowed(method, path, allowed);
  }
}

/** Every /api/v2 answer, a refusal included, is `no-store`, as the adapter's own are. */
function refuse(reply: FastifyReply, answer: ErrorResponse): FastifyReply {
  return sendErrorResponse(reply.header('Cache-Control', 'no-store'), answer);
}

/** The methods whose requests the adapter reads a JSON body from (it refuses any other media type for them). */
function takesBody(method: string): boolean {
  return method !== 'GET' && method !== 'DELETE';
}

/** Every method Node parses that the adapter does not route (it serves GET, POST, PUT, PATCH and DELETE; HEAD is Fastify's). */
const OTHER_METHODS = METHODS.filter((method) => !['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'CONNECT'].includes(method));

/** What is wrong with a REST request's query string and body shape before its schema looks at the values. */
function inputProblems(request: FastifyRequest, operation: RestOperation, query: string | undefined): ErrorDetail[] {
  const problems = query === undefined ? [] : queryStringProblems(query, operation);
  // Only JSON bodies: any other media type is the adapter's 415.
  const isJson = request.headers['content-type']?.startsWith('application/json') ?? false;
  if (operation.takesBody && isJson && !isPlainObject(request.body)) {
    problems.push({ code: 'invalid_type', path: [], message: 'The request body must be a JSON object.' });
  }
  return problems;
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

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What trpc-to-openapi's Node handler reads of a request, served from the Fastify request. Its own Fastify
 * plugin binds six functions and defines a property on the request and reply at every call; these views share
 * their methods on the prototype.
 */
class NodeRequestView {
  readonly fastify: FastifyRequest;
  /** The path and query below /api/v2, which is what the handler routes on. */
  readonly url: string;
  constructor(request: FastifyRequest, url: string) {
    this.fastify = request;
    this.url = url;
  }
  get method() {
    return this.fastify.method;
  }
  get headers() {
    return this.fastify.headers;
  }
  get body() {
    return this.fastify.body;
  }
  get query() {
    return this.fastify.query;
  }
  get socket() {
    return this.fastify.raw.socket;
  }
  once(event: string, listener: () => void) {
    this.fastify.raw.once(event, listener);
    return this;
  }
  on(event: string, listener: () => void) {
    this.fastify.raw.on(event, listener);
    return this;
  }
  off(event: string, listener: () => void) {
    this.fastify.raw.off(event, listener);
    return this;
  }
}

/**
 * What the handler writes to, passed on to the Fastify reply (so its hooks and serialization apply). It also
 * tells the handler when the answer has been written (`writableEnded`): the request's signal then stays
 * unaborted when the connection closes, instead of building an abort error for every answered request.
 */
class NodeResponseView {
  private readonly reply: FastifyReply;
  constructor(reply: FastifyReply) {
    this.reply = reply;
  }
  get statusCode() {
    return this.reply.raw.statusCode;
  }
  set statusCode(status: number) {
    this.reply.code(status);
  }
  get writableEnded() {
    return this.reply.raw.writableEnded;
  }
  setHeader(name: string, value: string | number | readonly string[]) {
    this.reply.header(name, value);
  }
  end(body?: string) {
    if (!this.reply.sent) this.reply.send(body);
  }
  once(event: string, listener: () => void) {
    this.reply.raw.once(event, listener);
    return this;
  }
  on(event: string, listener: () => void) {
    this.reply.raw.on(event, listener);
    return this;
  }
  off(event: string, listener: () => void) {
    this.reply.raw.off(event, listener);
    return this;
  }
}
