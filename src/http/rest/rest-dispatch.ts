import type { AnyProcedure, AnyRouter } from '@trpc/server';
import type { FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
} from 'trpc-to-openapi';
import { z } from 'zod';
import { callProcedure, type Context, type ProcedureMeta } from '../../api/call.ts';
import { type RestOperation, restOperations } from './rest-input.ts';

/**
 * How a REST request reaches its procedure: trpc-to-openapi's routes and input rules, worked out once per operation
 * at start rather than per request (docs/performance.md#the-rest-dispatch). One table answers both questions a
 * request asks (which operation, with its 404, 405 and query rules; which procedure), so it is matched once.
 */
export interface RestRoute extends RestOperation {
  method: string;
  /** The operation's full path (base path included), path parameters as named groups; case-insensitive, as the adapter's. */
  pattern: RegExp;
  /** The procedure's path in the router, e.g. `bookings.list`. */
  path: string;
  procedure: AnyProcedure;
  /** The status of a success when the procedure sets none (`meta.successStatus`, else 200). */
  successStatus: number;
  /** The operation's path template, under which a POST answered 201 names the new resource in `Location`. */
  template: string;
  /** `none` for a procedure without input (z.void()); `body` for POST, PUT and PATCH; `query` otherwise. */
  input: 'none' | 'body' | 'query';
  /** Query parameters whose schema is an array: a single value is passed as a one-item array. */
  arrayParameters: string[];
}

export interface RouteMatch {
  route: RestRoute;
  /** The path parameters, percent-decoded. */
  pathInput: Record<string, string>;
}

/** The routes of the router's procedures below `basePath`, each with what `document` says about its operation. */
export function restRoutes(router: AnyRouter, document: { paths?: object }, basePath: string): RestRoute[] {
  const operations = restOperations(document);
  const routes: RestRoute[] = [];
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure, meta }) => {
    const { openapi } = meta;
    if (procedure._def.type === 'subscription') return;
    const template = normalizePath(openapi.path);
    const operation = operations.get(`${openapi.method} ${template}`);
    if (!operation) throw new Error(`The OpenAPI document has no ${openapi.method} ${template} (procedure ${path}).`);
    const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser as z.ZodType, true);
    const takesBody = acceptsRequestBody(openapi.method);
    const isObject = zodSupportsCoerce && instanceofZodTypeObject(schema);
    if (isObject) coerceSchema(schema);
    routes.push({
      ...operation,
      method: openapi.method,
      pattern: new RegExp(`^${basePath}${template.replace(/\{([^/}]+)\}/g, '(?<$1>[^/]+)')}$`, 'i'),
      path,
      procedure: procedure as AnyProcedure,
      successStatus: (meta as ProcedureMeta).successStatus ?? 200,
      template: openapi.path,
      input: instanceofZodTypeLikeVoid(schema) ? 'none' : takesBody ? 'body' : 'query',
      arrayParameters: isObject && !takesBody ? arrayKeys(schema as z.ZodObject) : [],
    });
  });
  return routes;
}

function arrayKeys(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, shape]) => shape instanceof z.ZodArray || (instanceofZodTypeOptional(shape) && shape.unwrap() instanceof z.ZodArray))
    .map(([key]) => key);
}

/** The route of `method` and `path` (the full path, without its query or a trailing slash). */
export function findRoute(routes: readonly RestRoute[], method: string, path: string): RouteMatch | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, pathInput: decodedParameters(match.groups) };
  }
  return undefined;
}

/**
 * Path parameters as the procedure reads them: percent-decoded, so that what a segment encodes (a NUL
 * included) is judged by the input check and the schema, not looked up as written.
 */
function decodedParameters(groups: Record<string, string> | undefined): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(groups ?? {})) parameters[name] = value.includes('%') ? decodeOrKeep(value) : value;
  return parameters;
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The methods some route serves at `path` (the full path, one trailing slash allowed), for a 405's Allow. */
export function allowedMethods(routes: readonly RestRoute[], path: string): string[] {
  const bare = withoutTrailingSlash(path);
  return [...new Set(routes.filter((route) => route.pattern.test(bare)).map((route) => route.method))];
}

/** The request path as routes match it: one trailing slash is allowed, as the adapter allowed it. */
export function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Characters a URL parser leaves as they are in a path; anything else may be re-encoded or (`\\`) read as a slash. */
const URL_STABLE_PATH = /^[\w\-.~!$&'()*+,;=:@%/]*$/;
/** `.` and `..` segments, which a URL parser resolves (`%2e` is a dot to it too). */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;

/**
 * The path a procedure is chosen by: `path` (below `basePath`) read through the URL parser, dot segments resolved,
 * then one leading and one trailing slash dropped, as trpc-to-openapi's handler read it. Only a path the parser
 * would change is parsed: for any other this is the path itself, less a trailing slash.
 */
export function dispatchPath(path: string, basePath: string): string {
  const below = path.slice(basePath.length);
  const resolved = URL_STABLE_PATH.test(below) && !DOT_SEGMENT.test(below) ? below : new URL(`http://127.0.0.1${below}`).pathname;
  return basePath + normalizePath(resolved);
}

/** Runs the route's procedure on the request's input; what the procedure returns, or throws. */
export function callRoute({ route, pathInput }: RouteMatch, request: FastifyRequest, ctx: Context): Promise<unknown> {
  const input = route.input === 'none' ? undefined : { ...(route.input === 'body' ? bodyOf(request) : queryOf(request, route)), ...pathInput };
  return callProcedure(route.procedure, route.path, async () => input, ctx);
}

function bodyOf(request: FastifyRequest): object | undefined {
  return request.body as object | undefined;
}

/** A value given once is the value; an empty one is left out; an array parameter's single value becomes a list. */
function queryOf(request: FastifyRequest, route: RestRoute): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (!value) continue;
    query[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
  }
  for (const key of route.arrayParameters) {
    if (query[key] !== undefined && !Array.isArray(query[key])) query[key] = [query[key]];
  }
  return query;
}
