import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationError, parseBearerHeader } from '../identity/bearer.ts';
import { toErrorResponse, unexpectedError } from '../lib/error-response.ts';
import { rateLimitHeaders } from '../lib/rate-limit.ts';
import type { SharedServices } from '../lib/services.ts';
import { registerAuthorize } from './authorize.ts';
import { authenticateClient } from './clients.ts';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadata,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
} from './discovery.ts';
import { noStore, OAuthError, safeDescription, sendOAuthError } from './errors.ts';
import { registerLogin } from './login.ts';
import { asParams, requireFormEncoded, single } from './params.ts';
import { registerClient } from './register.ts';
import type { ResourcePath } from './resources.ts';
import { revokeToken } from './revoke.ts';
import { exchangeAuthorizationCode, GRANT_TYPES, refreshTokens } from './token.ts';
import { BearerError, userInfo } from './userinfo.ts';

export interface OAuthRoutesOptions {
  services: SharedServices;
  orm: MikroORM;
}

/**
 * Endpoints called by apps from anywhere, browsers included (an MCP client may be a web page): readable
 * cross-origin without credentials. The authorization endpoint and the sign-in pages are not among them.
 */
function allowCrossOrigin(reply: FastifyReply): FastifyReply {
  return reply.header('Access-Control-Allow-Origin', '*').header('Access-Control-Expose-Headers', 'WWW-Authenticate');
}

/**
 * The OAuth 2.0 authorization server, its discovery documents and first-party sign-in: plain HTTP routes,
 * because RFC 6749 wants form-encoded token and revocation requests.
 */
export async function oauthRoutes(app: FastifyInstance, options: OAuthRoutesOptions): Promise<void> {
  const { services, orm } = options;
  const siteUrl = services.env.SITE_URL;

  registerLogin(app, options);
  registerAuthorize(app, options);

  // ---- Discovery (RFC 8414, RFC 9728) -------------------------------------------------------------------
  const json = (reply: FastifyReply, body: unknown) =>
    allowCrossOrigin(reply)
      .header('Cache-Control', 'public, max-age=300')
      .type('application/json; charset=utf-8')
      .send(body);
  app.get(AUTHORIZATION_SERVER_METADATA_PATH, async (_request, reply) => json(reply, authorizationServerMetadata(siteUrl)));
  const resources: ResourcePath[] = ['', '/api/v2', '/mcp'];
  for (const path of resources) {
    app.get(`${PROTECTED_RESOURCE_METADATA_PATH}${path}`, async (_request, reply) =>
      json(reply, protectedResourceMetadata(siteUrl, path)),
    );
  }

  // ---- Token, revocation, registration, userinfo: JSON answers, OAuth error bodies -----------------------
  await app.register(async (api) => {
    api.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      allowCrossOrigin(reply);
      const basicChallenge = Boolean(request.headers.authorization);
      if (error instanceof OAuthError) return sendOAuthError(reply, error, { basicChallenge });
      if (error.code?.startsWith('FST_ERR_CTP') || (error.statusCode && error.statusCode < 500)) {
        const code = request.routeOptions.url === '/oauth/register' ? 'invalid_client_metadata' : 'invalid_request';
        return sendOAuthError(reply, new OAuthError(code, `The request could not be read: ${error.message}`));
      }
      // The service's one wording and Retry-After for a fault, in OAuth's error vocabulary.
      const outage = toErrorResponse(error);
      if (outage.status === 503) {
        request.log.warn({ err: error }, 'backing service unavailable');
        return sendOAuthError(reply, new OAuthError('temporarily_unavailable', outage.body.message, outage.headers));
      }
      request.log.error({ err: error }, 'OAuth endpoint failed');
      return sendOAuthError(reply, new OAuthError('server_error', unexpectedError().body.message));
    });

    for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/register', '/oauth/userinfo']) {
      api.options(path, async (_request, reply) =>
        allowCrossOrigin(reply)
          .header('Access-Control-Allow-Methods', path === '/oauth/userinfo' ? 'GET, POST' : 'POST')
          .header('Access-Control-Allow-Headers', 'Authorization, Content-Type')
          .header('Access-Control-Max-Age', '600')
          .code(204)
          .send(),
      );
    }

    /** Token and revocation requests share a per-address budget (RFC 7009 §5, RFC 6749 §10.10). */
    async function limitByAddress(request: FastifyRequest): Promise<void> {
      const result = await services.publicRateLimiter.consume(`oauth:${request.ip}`);
      if (!result.allowed) {
        throw new OAuthError(
          'slow_down',
          `Too many requests from this address. Retry after ${result.retryAfter} seconds.`,
          rateLimitHeaders(result),
        );
      }
    }

    api.post('/oauth/token', async (request, reply) => {
      allowCrossOrigin(noStore(reply));
      await limitByAddress(request);
      requireFormEncoded(request.headers['content-type']);
      const params = asParams(request.body);
      const grantType = single(params, 'grant_type');
      if (grantType === undefined) throw new OAuthError('invalid_request', "The 'grant_type' parameter is required.");
      if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
        throw new OAuthError('unsupported_grant_type', "Supported grant types: 'authorization_code', 'refresh_token'.");
      }
      const em = orm.em.fork();
      const { client } = await authenticateClient(em, request.headers.authorization, params);
      const ctx = { client, params, siteUrl, now: services.clock.now() };
      const response =
        grantType === 'authorization_code' ? await exchangeAuthorizationCode(em, ctx) : await refreshTokens(em, ctx);
      return reply.code(200).type('application/json; charset=utf-8').send(response);
    });

    api.post('/oauth/revoke', async (request, reply) => {
      allowCrossOrigin(noStore(reply));
      await limitByAddress(request);
      requireFormEncoded(request.headers['content-type']);
      const params = asParams(request.body);
      const em = orm.em.fork();
      if (single(params, 'token') === undefined) throw new OAuthError('invalid_request', "The 'token' parameter is required.");
      const { client } = await authenticateClient(em, request.headers.authorization, params);
      await revokeToken(em, { client, params, now: services.clock.now() });
      return reply.code(200).send();
    });

    api.post('/oauth/register', async (request, reply) => {
      allowCrossOrigin(noStore(reply));
      const result = await services.oauthRegistrationRateLimiter.consume(request.ip);
      if (!result.allowed) {
        throw new OAuthError(
          'slow_down',
          `Too many registrations from this address. Retry after ${result.retryAfter} seconds.`,
          rateLimitHeaders(result),
        );
      }
      const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json.');
      }
      const response = await registerClient(orm.em.fork(), request.body, services.clock.now());
      return reply.code(201).type('application/json; charset=utf-8').send(response);
    });

    const userinfoHandler = async (request: FastifyRequest, reply: FastifyReply) => {
      allowCrossOrigin(noStore(reply));
      const challenge = (code?: string, description?: string) => {
        const params = ['realm="oauth"', `resource_metadata="${siteUrl}${PROTECTED_RESOURCE_METADATA_PATH}"`];
        if (code) params.push(`error="${code}"`);
        if (code && description) params.push(`error_description="${safeDescription(description)}"`);
        reply.header('WWW-Authenticate', `Bearer ${params.join(', ')}`);
      };
      const bodyToken = request.method === 'POST' && asParams(request.body).access_token !== undefined;
      if (bodyToken && request.headers.authorization) {
        const description = 'Send the access token in the Authorization header only, not also in the body.';
        challenge('invalid_request', description);
        return reply.code(400).send({ error: 'invalid_request', error_description: description });
      }
      const tooManyFailures = (retryAfterSec: number) =>
        reply.code(429).header('Retry-After', String(retryAfterSec)).send({
          error: 'slow_down',
          error_description: `Too many failed authentications from this address. Retry after ${retryAfterSec} seconds.`,
        });
      try {
        const token = parseBearerHeader(request.headers.authorization);
        const { claims, rateLimitKey } = await userInfo(orm.em.fork(), token, services.clock.now());
        const limit = await services.apiRateLimiter.consume(rateLimitKey);
        for (const [name, value] of Object.entries(rateLimitHeaders(limit))) reply.header(name, value);
        if (!limit.allowed) {
          return reply.code(429).send({
            error: 'slow_down',
            error_description: `Rate limit of ${limit.limit} requests per minute exceeded for this token.`,
          });
        }
        return reply.code(200).type('application/json; charset=utf-8').send(claims);
      } catch (error) {
        const refused = error instanceof BearerError || (error instanceof AuthenticationError && error.credentialRefused);
        const retryAfterSec = refused ? await services.failedAuthThrottle.failed(`ip:${request.ip}`) : null;
        if (retryAfterSec !== null) return tooManyFailures(retryAfterSec);
        if (error instanceof AuthenticationError) {
          // No credentials at all: a bare challenge (RFC 6750 §3.1 SHOULD NOT include an error code).
          challenge(error.bearerError, error.message);
          const status = error.bearerError === 'invalid_request' ? 400 : 401;
          return reply
            .code(status)
            .send(error.bearerError ? { error: error.bearerError, error_description: safeDescription(error.message) } : {
              error_description: safeDescription(error.message),
            });
        }
        if (error instanceof BearerError) {
          challenge(error.code, error.message);
          return reply.code(error.status).send({ error: error.code, error_description: safeDescription(error.message) });
        }
        throw error;
      }
    };
    api.get('/oauth/userinfo', userinfoHandler);
    api.post('/oauth/userinfo', userinfoHandler);
  });
}
