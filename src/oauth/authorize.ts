import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Scope } from '../identity/scopes.ts';
import { csrfTokenMatches, resolveSession, sessionCookieName } from '../identity/sessions.ts';
import { UserEntity } from '../identity/user.entity.ts';
import { renderErrorPage, sendHtml } from '../lib/html-page.ts';
import type { SharedServices } from '../lib/services.ts';
import { redirectUriMatches } from './client-metadata.ts';
import { type ClientRow, findClient } from './clients.ts';
import { renderConsentPage } from './consent.ts';
import { OAuthError } from './errors.ts';
import { createGrantWithCode } from './grants.ts';
import { loginUrlFor } from './login.ts';
import { asParams, parseScopeParam, type RawParams, repeatedNames } from './params.ts';
import { isValidPkceValue } from './pkce.ts';
import { canonicalResource } from './resources.ts';

export const AUTHORIZE_PATH = '/oauth/authorize';

/** The request cannot be answered by redirecting: no trustworthy client or redirect URI (RFC 6749 §4.1.2.1). */
class AuthorizePageError extends Error {}

interface ClientAndRedirect {
  client: ClientRow;
  redirectUri: string;
  redirectUriInRequest: boolean;
}

export interface AuthorizationRequest extends ClientAndRedirect {
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: 'S256' | null;
  resource: string | null;
}

/** The parameters of the authorization request that the consent form carries (and nothing else). */
const REQUEST_PARAMETERS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

function text(params: RawParams, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Stage one: a registered client and one of its registered redirect URIs, or an error page. */
async function resolveClientAndRedirect(em: EntityManager, params: RawParams): Promise<ClientAndRedirect> {
  if (Array.isArray(params.client_id)) throw new AuthorizePageError('The request names more than one client.');
  const clientId = text(params, 'client_id');
  if (!clientId) throw new AuthorizePageError('The request does not say which app is asking (client_id is missing).');
  const client = await findClient(em, clientId);
  if (!client) throw new AuthorizePageError('The app that sent you here is not registered with this service.');
  if (Array.isArray(params.redirect_uri)) throw new AuthorizePageError('The request names more than one redirect URI.');
  const requested = text(params, 'redirect_uri');
  if (requested === undefined) {
    // OAuth 2.1 §2.3.2: it may be omitted only when exactly one is registered.
    const [only] = client.redirectUris;
    if (client.redirectUris.length !== 1 || only === undefined) {
      throw new AuthorizePageError('The request does not say where to send you back (redirect_uri is missing).');
    }
    return { client, redirectUri: only, redirectUriInRequest: false };
  }
  if (!redirectUriMatches(client.redirectUris, requested)) {
    throw new AuthorizePageError(
      'The app asked to send you back to an address it has not registered, so the request was stopped.',
    );
  }
  return { client, redirectUri: requested, redirectUriInRequest: true };
}

/** Stage two: everything else. Errors from here on are reported to the client by redirect. */
function validateAuthorizationRequest(
  base: ClientAndRedirect,
  params: RawParams,
  siteUrl: string,
): AuthorizationRequest {
  const repeated = repeatedNames(params).filter((name) => (REQUEST_PARAMETERS as readonly string[]).includes(name));
  if (repeated.includes('resource')) {
    throw new OAuthError('invalid_target', 'Name one resource per authorization request.');
  }
  if (repeated.length > 0) {
    throw new OAuthError('invalid_request', `The '${repeated[0]}' parameter was given more than once.`);
  }
  const responseType = text(params, 'response_type');
  if (!responseType) throw new OAuthError('invalid_request', "The 'response_type' parameter is required.");
  if (responseType !== 'code') {
    throw new OAuthError('unsupported_response_type', "Only response_type 'code' is supported.");
  }

  const method = text(params, 'code_challenge_method');
  const challenge = text(params, 'code_challenge');
  if (method !== undefined && method !== 'S256') {
    throw new OAuthError('invalid_request', "code_challenge_method must be 'S256'; 'plain' and others are not supported.");
  }
  if (challenge === undefined) {
    if (method !== undefined) throw new OAuthError('invalid_request', 'code_challenge_method was sent without code_challenge.');
    if (base.client.type === 'public') {
      throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    }
  } else {
    // Absent, the method would default to 'plain' (RFC 7636 §4.3), which we refuse.
    if (method === undefined) {
      throw new OAuthError('invalid_request', "code_challenge_method=S256 is required ('plain' is not supported).");
    }
    if (!isValidPkceValue(challenge)) {
      throw new OAuthError('invalid_request', 'code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~].');
    }
  }

  const scopeValue = text(params, 'scope');
  if (scopeValue === undefined) throw new OAuthError('invalid_scope', 'Request at least one scope.');
  const scopes = parseScopeParam(scopeValue);
  const resourceValue = text(params, 'resource');
  const resource = resourceValue === undefined ? null : canonicalResource(siteUrl, resourceValue);

  return {
    ...base,
    scopes,
    state: text(params, 'state'),
    codeChallenge: challenge ?? null,
    codeChallengeMethod: challenge === undefined ? null : 'S256',
    resource,
  };
}

/**
 * The redirect back to the client: its registered URI (own query kept) plus our parameters, each once,
 * always with `iss` (RFC 9207) — on success and on error.
 */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.append(name, value);
  const separator = redirectUri.includes('?') ? (redirectUri.endsWith('?') || redirectUri.endsWith('&') ? '' : '&') : '?';
  return `${redirectUri}${separator}${query.toString()}`;
}

function redirectWithError(
  reply: FastifyReply,
  base: ClientAndRedirect,
  error: OAuthError,
  state: string | undefined,
  issuer: string,
): FastifyReply {
  const location = clientRedirect(base.redirectUri, {
    error: error.code,
    error_description: error.description,
    state,
    iss: issuer,
  });
  return reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').redirect(location, 303);
}

function redirectHost(redirectUri: string): string {
  try {
    return new URL(redirectUri).host;
  } catch {
    return redirectUri;
  }
}

function authorizeUrl(params: RawParams): string {
  const query = new URLSearchParams();
  for (const name of REQUEST_PARAMETERS) {
    const value = params[name];
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, item);
  }
  return `${AUTHORIZE_PATH}?${query.toString()}`;
}

/** GET and POST /oauth/authorize: the consent screen, and the user's answer to it. */
export function registerAuthorize(app: FastifyInstance, deps: { services: SharedServices; orm: MikroORM }): void {
  const { services, orm } = deps;
  const siteUrl = services.env.SITE_URL;
  const cookieName = sessionCookieName(siteUrl);

  function sendPageError(reply: FastifyReply, status: number, message: string): FastifyReply {
    return sendHtml(reply, status, renderErrorPage('This request cannot continue', message));
  }

  async function handle(request: FastifyRequest, reply: FastifyReply, params: RawParams, isPost: boolean) {
    const em = orm.em.fork();
    const now = services.clock.now();
    let base: ClientAndRedirect;
    try {
      base = await resolveClientAndRedirect(em, params);
    } catch (error) {
      if (error instanceof AuthorizePageError) return sendPageError(reply, 400, error.message);
      throw error;
    }

    // BCP 240 §4.11.2: authenticate the user before answering anything else by redirect.
    const session = await resolveSession(em, request.cookies[cookieName], now);
    if (!session) {
      return reply.header('Cache-Control', 'no-store').redirect(loginUrlFor(authorizeUrl(params)), 303);
    }
    if (isPost) {
      const csrf = params.csrf;
      if (typeof csrf !== 'string' || !csrfTokenMatches(session.csrfToken, csrf)) {
        // RFC 6749 §10.12: the approval must come from this session's own consent form.
        return sendPageError(reply, 403, 'This consent form is no longer valid. Go back to the app and start again.');
      }
    }

    const state = typeof params.state === 'string' && params.state !== '' ? params.state : undefined;
    let authorization: AuthorizationRequest;
    try {
      authorization = validateAuthorizationRequest(base, params, siteUrl);
    } catch (error) {
      if (error instanceof OAuthError) return redirectWithError(reply, base, error, state, siteUrl);
      throw error;
    }

    const user = await em.findOne(UserEntity, { id: session.userId });
    if (!user) return reply.header('Cache-Control', 'no-store').redirect(loginUrlFor(authorizeUrl(params)), 303);

    if (!isPost) {
      const hiddenFields: Record<string, string> = {};
      for (const name of REQUEST_PARAMETERS) {
        const value = text(params, name);
        if (value !== undefined) hiddenFields[name] = value;
      }
      hiddenFields.csrf = session.csrfToken;
      const html = renderConsentPage({
        appName: base.client.name,
        verified: !base.client.dynamicallyRegistered,
        redirectHost: redirectHost(base.redirectUri),
        scopes: authorization.scopes,
        user: { email: user.email, plan: user.plan },
        hiddenFields,
        returnTo: authorizeUrl(params),
        signOutCsrf: session.csrfToken,
      });
      return sendHtml(reply, 200, html, [new URL(base.redirectUri).origin]);
    }

    const decision = params.decision;
    if (decision === 'deny') {
      return redirectWithError(
        reply,
        base,
        new OAuthError('access_denied', 'The user denied the request.'),
        authorization.state,
        siteUrl,
      );
    }
    if (decision !== 'approve') {
      return redirectWithError(
        reply,
        base,
        new OAuthError('invalid_request', "The consent form's decision must be 'approve' or 'deny'."),
        authorization.state,
        siteUrl,
      );
    }
    if (user.plan !== 'team') {
      return redirectWithError(
        reply,
        base,
        new OAuthError('access_denied', 'The account is not on the Team plan, which apps need to use the API.'),
        authorization.state,
        siteUrl,
      );
    }
    const code = await createGrantWithCode(
      em,
      {
        userId: user.id,
        clientRowId: base.client.id,
        scopes: authorization.scopes,
        resource: authorization.resource,
        redirectUri: base.redirectUri,
        redirectUriInRequest: base.redirectUriInRequest,
        codeChallenge: authorization.codeChallenge,
        codeChallengeMethod: authorization.codeChallengeMethod,
      },
      now,
    );
    const location = clientRedirect(base.redirectUri, { code, state: authorization.state, iss: siteUrl });
    return reply.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer').redirect(location, 303);
  }

  app.get(AUTHORIZE_PATH, (request, reply) => handle(request, reply, asParams(request.query), false));
  app.post(AUTHORIZE_PATH, (request, reply) => handle(request, reply, asParams(request.body), true));
}
