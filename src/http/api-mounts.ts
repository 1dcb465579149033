import type { MikroORM } from '@mikro-orm/postgresql';
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type CreateOpenApiFastifyPluginOptions, fastifyTRPCOpenApiPlugin } from 'trpc-to-openapi';
import { type AppServices, type Context, createContextInner, type RequestInfo } from '../api/context.ts';
import { collectOperations } from '../api/openapi-postprocess.ts';
import { type AppRouter, appRouter } from '../api/root.ts';
import { keepJsonBodiesStrict } from '../lib/json-body.ts';
import { reshapeRestErrorBody } from './error-responses.ts';
import { requestDeadline } from './request-deadline.ts';

export const REST_BASE_PATH = '/api/v2';

function contextFor(services: AppServices, orm: MikroORM, req: FastifyRequest, surface: RequestInfo['surface']): Context {
  return createContextInner({
    services,
    em: orm.em.fork(),
    request: { headers: req.headers, ip: req.ip, surface, deadline: requestDeadline(req) },
  });
}

/** The typed tRPC API for first-party apps (superjson) at /trpc. */
export async function registerTrpc(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  const options: FastifyTRPCPluginOptions<AppRouter> = {
    prefix: '/trpc',
    trpcOptions: {
      router: appRouter,
      createContext: ({ req }) => contextFor(services, orm, req, 'trpc'),
      // Answers carry the caller's own data (and session.current its CSRF token): never store them in a cache.
      responseMeta: ({ ctx }) => ({
        headers: new Headers({ 'Cache-Control': 'no-store', ...(ctx as Context | undefined)?.response.headers }),
      }),
    },
  };
  await app.register(fastifyTRPCPlugin, options);
}

/** The public REST API at /api/v2, generated from the same procedures by trpc-to-openapi. */
export async function registerRest(app: FastifyInstance, services: AppServices, orm: MikroORM): Promise<void> {
  const options: CreateOpenApiFastifyPluginOptions<AppRouter> = {
    router: appRouter,
    basePath: REST_BASE_PATH,
    createContext: ({ req }) => contextFor(services, orm, req as unknown as FastifyRequest, 'rest'),
    responseMeta: ({ ctx, errors }) => {
      const response = (ctx as Context | undefined)?.response;
      return {
        status: errors.length === 0 ? response?.status : undefined,
        headers: { 'Cache-Control': 'no-store', ...response?.headers },
      };
    },
  };
  keepJsonBodiesStrict(appRouter);
  const allowedMethods = restMethodsByPath();
  const clientUrls = new WeakMap<FastifyRequest, string>();
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      clientUrls.set(request, request.url);
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
      const reshaped = reshapeRestErrorBody(
        { method: request.method, url: clientUrls.get(request) ?? request.url, allowedMethods },
        payload,
      );
      if (reshaped.status) reply.code(reshaped.status);
      if (reshaped.headers) reply.headers(reshaped.headers);
      return reshaped.body;
    });
    await scope.register(fastifyTRPCOpenApiPlugin, options);
  });
}

/** For a full request path under /api/v2, the methods some procedure serves there (for 405 and `Allow`). */
function restMethodsByPath(): (path: string) => string[] {
  const routes = collectOperations(appRouter).map((operation) => ({
    method: operation.method.toUpperCase(),
    pattern: new RegExp(`^${REST_BASE_PATH}${operation.path.replace(/\{[^/}]+\}/g, '[^/]+')}/?$`, 'i'),
  }));
  return (path) => [...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))];
}
