import { METHODS } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import { getTRPCErrorFromUnknown } from '@trpc/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type AppServices, type Context, logFailureOutsideProcedure, requestContexts } from '../../api/call.ts';
import { buildOpenApiDocument, REST_BASE_PATH } from '../../router/openapi.ts';
import { appRouter } from '../../router/root.ts';
import { type ErrorResponse, notJson, toErrorResponse, unsupportedMediaType } from '../../lib/error-response.ts';
import type { ErrorDetail } from '../../lib/errors.ts';
import { keepJsonBodiesStrict } from '../../lib/json-body.ts';
import { methodNotAllowed, routeNotFound, sendErrorResponse } from '../error-responses.ts';
import { jsonBodyParser } from '../input-guard.ts';
import { requestDeadline } from '../request-deadline.ts';
import { allowedMethods, callRoute, dispatchPath, findRoute, restRoutes, type RouteMatch, withoutTrailingSlash } from './rest-dispatch.ts';
import { bodyProblems, canonicalPath, deleteBodyFields, queryStringProblems, type RestOperation, unexpectedBodyProblems } from './rest-input.ts';

/** A request the preHandler routed: its procedure, and what it found wrong with the query string or body shape. */
interface RoutedRequest extends RouteMatch {
  inputProblems?: ErrorDetail[];
}

/** The public REST API at /api/v2, generated from the same procedures by trpc-to-openapi (./rest-dispatch.ts). */
export async function registerRest(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  keepJsonBodiesStrict(appRouter);
  const routes = restRoutes(appRouter, buildOpenApiDocument(services.env.SITE_URL), REST_BASE_PATH);
  const contextFor = requestContexts(services, orm);
  /** The route each request was matched to, by the preHandler for the handler; absent when none serves its path. */
  const routed = new WeakMap<FastifyRequest, RoutedRequest>();
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
      const canonical = canonicalPath(path);
      request.raw.url = canonical + (query === undefined ? '' : `?${query}`);
      // The procedure is chosen by the canonical path with its dot segments resolved: almost always the path matched.
      const dispatched = dispatchPath(canonical, REST_BASE_PATH);
      const dispatch: RoutedRequest | undefined = dispatched === requested ? found : findRoute(routes, request.method, dispatched);
      if (!dispatch) return done();
      if (problems.length > 0) dispatch.inputProblems = problems;
      routed.set(request, dispatch);
      done();
    });
    scope.route({
      method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
      url: `${REST_BASE_PATH}/*`,
      handler: async (request, reply) => {
        // HEAD (Fastify's, for the GET routes) has no procedure: an empty 204, as trpc-to-openapi answered it.
        if (request.method === 'HEAD') return reply.code(204).send();
        const found = routed.get(request);
        if (!found) return refuse(reply, unroutable(request.method, request.url.split('?')[0] ?? ''));
        let ctx: Context | undefined;
        try {
          ctx = contextFor({
            headers: request.headers,
            ip: request.ip,
            surface: 'rest',
            inputProblems: found.inputProblems,
            deadline: requestDeadline(request),
          });
          const data = await callRoute(found, request, ctx);
          reply.code(successStatus(found, data, ctx)).headers({ 'content-type': 'application/json', 'cache-control': 'no-store', ...ctx.response.headers });
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

/**
 * The status of a success: the procedure's own (e.g. 200 for a replayed creation), else its operation's; a POST
 * answered 201 names the new resource in `Location`.
 */
function successStatus({ route }: RouteMatch, data: unknown, ctx: Context): number {
  const status = ctx.response.status ?? route.successStatus;
  if (status === 201 && route.method === 'POST') {
    const id = typeof data === 'object' && data !== null ? (data as { id?: unknown }).id : undefined;
    if (typeof id === 'string') ctx.response.headers.Location = `${ctx.env.SITE_URL}${REST_BASE_PATH}${route.template}/${encodeURIComponent(id)}`;
  }
  return status;
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

