import { type AnyProcedure, type AnyRouter, callTRPCProcedure } from '@trpc/server';
import type { FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
} from 'trpc-to-openapi';
import { z } from 'zod';
import type { Context } from '../api/context.ts';

/**
 * How a REST request reaches its procedure: trpc-to-openapi's routes (each procedure's `meta.openapi`), its input
 * rules (query or JSON body plus path parameters, string coercion, a single query value for an array parameter)
 * and tRPC's own `callTRPCProcedure`, worked out once per operation at start instead of at every call.
 *
 * trpc-to-openapi's Node handler does the same per request, and more: a Fetch `Request` with every header copied
 * and an `AbortController`, only for a signal no procedure reads (the request's deadline is the signal here), two
 * URL parses, the route's schema walked for coercion, and a caller proxy per call. That was a fifth of the
 * service's CPU on a small request (bench: REST cost more than a `tools/call` on /mcp, which skips it).
 * Its input rules are unit-tested in rest-dispatch.test.ts; the REST suites under test/ pin the answers.
 */
export interface RestRoute {
  method: string;
  pattern: RegExp;
  /** The procedure's path in the router, e.g. `bookings.list`. */
  path: string;
  type: AnyProcedure['_def']['type'];
  /** `none` for a procedure without input (z.void()); `body` for POST, PUT and PATCH; `query` otherwise. */
  input: 'none' | 'body' | 'query';
  /** Query parameters whose schema is an array: a single value is passed as a one-item array. */
  arrayParameters: string[];
}

export function restRoutes(router: AnyRouter): RestRoute[] {
  const routes: RestRoute[] = [];
  forEachOpenApiProcedure(router._def.procedures, ({ path, procedure, meta: { openapi } }) => {
    if (procedure._def.type === 'subscription') return;
    const schema = unwrapZodType(getInputOutputParsers(procedure).inputParser as z.ZodType, true);
    const takesBody = acceptsRequestBody(openapi.method);
    const isObject = zodSupportsCoerce && instanceofZodTypeObject(schema);
    if (isObject) coerceSchema(schema);
    routes.push({
      method: openapi.method,
      pattern: getPathRegExp(normalizePath(openapi.path)),
      path,
      type: procedure._def.type,
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

/**
 * The route of `method` and `url` (below the REST base path, query included), with its path parameters as sent.
 * The path is read as the handler read it: through the URL parser (dot segments resolved), then normalized.
 */
export function findRoute(routes: RestRoute[], method: string, url: string): { route: RestRoute; pathInput: Record<string, string> } | undefined {
  const normalized = normalizePath(new URL(`http://127.0.0.1${url}`).pathname);
  for (const route of routes) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(normalized);
    if (match) return { route, pathInput: { ...match.groups } };
  }
  return undefined;
}

/** Runs the route's procedure on the request's input; what the procedure returns, or throws. */
export function callRoute(
  router: AnyRouter,
  { route, pathInput }: { route: RestRoute; pathInput: Record<string, string> },
  request: FastifyRequest,
  ctx: Context,
): Promise<unknown> {
  const input = route.input === 'none' ? undefined : { ...(route.input === 'body' ? bodyOf(request) : queryOf(request, route)), ...pathInput };
  return callTRPCProcedure({
    router,
    path: route.path,
    getRawInput: async () => input,
    ctx,
    type: route.type,
    signal: ctx.request.deadline,
    batchIndex: 0,
  });
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
