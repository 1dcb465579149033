/**
 * The one way a door (REST, tRPC and the web app's session on it, MCP) reaches a procedure: the request's context
 * built from what the door knows, the gate every call passes, and the call itself. Doors use this module and
 * nothing else of src/api; src/api/procedures.ts puts the gates below in front of the procedures.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { DomainError, summarizeIssues } from '../lib/errors.ts';
import { type RateLimiter, rateLimitHeaders } from '../lib/rate-limit.ts';
import { findUnsafeInput } from '../lib/unsafe-text.ts';
import { authenticateBearer } from '../identity/authenticate.ts';
import { AuthenticationError } from '../identity/bearer.ts';
import type { Principal } from '../identity/principal.ts';
import { authenticateSession } from '../identity/session-principal.ts';
import type { Scope } from '../identity/scopes.ts';
import { type IdempotencyScope, readIdempotencyKey, REPLAYED_HEADER } from '../lib/idempotency-key.ts';
import type { AppServices, Context, RequestInfo } from './context.ts';
import type { Gate } from './trpc.ts';

export type { AppServices, Context, RequestInfo } from './context.ts';
export type { ProcedureMeta } from './trpc.ts';
export { logFailureOutsideProcedure } from './trpc.ts';

/** A door's context maker: each request (or each call of an MCP batch) gets its own EntityManager. */
export function requestContexts(services: AppServices, orm: MikroORM): (request: RequestInfo) => Context {
  return (request) => requestContext(services, orm.em.fork(), request);
}

function requestContext(services: AppServices, em: EntityManager, request: RequestInfo): Context {
  return { ...services, em, request, response: { headers: {} } };
}

/** The procedure at a dotted path of `router`; the router has no lazy parts, so its record is complete. */
export function procedureAt(router: AnyRouter, path: string): AnyProcedure | undefined {
  return Object.hasOwn(router._def.procedures, path) ? (router._def.procedures[path] as AnyProcedure) : undefined;
}

/**
 * Runs `procedure` (the one at `path`) in `ctx`, its gate first: what it returns, or throws. Called as tRPC's own
 * `callTRPCProcedure` calls it once found, with the request's deadline as its signal.
 */
export function callProcedure(
  procedure: AnyProcedure,
  path: string,
  getRawInput: () => Promise<unknown>,
  ctx: Context,
  batchIndex = 0,
): Promise<unknown> {
  return procedure({ path, getRawInput, ctx, type: procedure._def.type, signal: ctx.request.deadline, batchIndex });
}

/**
 * The gate of a request whose calls are admitted together before any runs (an MCP POST): authentication, every
 * call counted against the token's budget at once (`points`), the scope of each procedure called. The calls then
 * run in `ctx`, or in `anotherCallOf(ctx)`, where the gate checks only their input.
 */
export async function admitCalls(ctx: Context, scopes: readonly Scope[], points: number): Promise<void> {
  const principal = await authenticateRequest(ctx);
  await countAgainstTokenBudget(ctx, principal, points);
  for (const scope of scopes) checkScope(ctx, principal, scope);
  ctx.admitted = principal;
}

/** A context for another call of the request `ctx` admitted: its own EntityManager and response, the same admission. */
export function anotherCallOf(ctx: Context): Context {
  return { ...ctx, em: ctx.em.fork(), response: { headers: {} } };
}

/**
 * Resource metadata (RFC 9728) of the resource the request addressed, /mcp or this API; 401 and 403 challenges
 * point clients at it.
 */
function resourceMetadataUrl(ctx: Pick<Context, 'env' | 'request'>): string {
  const resource = ctx.request.surface === 'mcp' ? 'mcp' : 'api/v2';
  return `${ctx.env.SITE_URL}/.well-known/oauth-protected-resource/${resource}`;
}

/**
 * The request's principal, or an error (401 with its WWW-Authenticate challenge in `ctx.response.headers`, or 429
 * for an address that keeps failing). A valid credential is served whatever its address did before: the failure
 * limit refuses failures only.
 */
async function authenticateRequest(ctx: Context): Promise<Principal> {
  try {
    const { headers } = ctx.request;
    const session =
      ctx.request.surface === 'trpc' && !headers.authorization
        ? await authenticateSession(ctx.em, headers, ctx.env.SITE_URL, ctx.clock.now())
        : null;
    return session ?? (await authenticateBearer(ctx.em, ctx.bearerResolvers, headers.authorization, ctx.clock.now(), ctx.principalCache));
  } catch (error) {
    if (error instanceof AuthenticationError) {
      if (error.credentialRefused) refuseRepeatedFailures(ctx, await ctx.failedAuthThrottle.failed(`ip:${ctx.request.ip}`));
      const params = [`realm="api"`, `resource_metadata="${resourceMetadataUrl(ctx)}"`];
      if (error.bearerError) params.push(`error="${error.bearerError}"`);
      ctx.response.headers['WWW-Authenticate'] = `Bearer ${params.join(', ')}`;
    }
    throw error;
  }
}

/** 429 for an address that keeps sending credentials that do not authenticate. */
function refuseRepeatedFailures(ctx: Context, retryAfterSec: number | null): void {
  if (retryAfterSec === null) return;
  ctx.response.headers['Retry-After'] = String(retryAfterSec);
  ctx.response.headers['Cache-Control'] = 'no-store';
  throw new DomainError(
    'rate_limited',
    `Too many failed authentications from this address (at most ${ctx.failedAuthThrottle.limit} a minute). Retry after ${retryAfterSec} seconds.`,
  );
}

/**
 * Counts `calls` requests against `limiter` (all admitted or none), sets the X-RateLimit-* headers, and refuses
 * them with 429 when over budget.
 */
async function enforceRateLimit(ctx: Context, limiter: RateLimiter, key: string, subject: string, calls = 1): Promise<void> {
  const result = await limiter.consume(key, calls);
  Object.assign(ctx.response.headers, rateLimitHeaders(result));
  if (!result.allowed) {
    ctx.response.headers['Cache-Control'] = 'no-store';
    const counted = calls > 1 ? ` (this request counts as ${calls} calls)` : '';
    throw new DomainError(
      'rate_limited',
      `Rate limit of ${result.limit} requests per minute exceeded for this ${subject}${counted}. Retry after ${result.retryAfter} seconds.`,
    );
  }
}

/**
 * Counts the request (`calls` calls for a batch) against its credential's budget (one per token across /api/v2,
 * /trpc and /mcp), with the X-RateLimit-* headers in `ctx.response.headers`; 429 over budget.
 */
async function countAgainstTokenBudget(ctx: Context, principal: Principal, calls = 1): Promise<void> {
  const { credential } = principal;
  const subject = credential.kind === 'session' ? 'session' : 'token';
  await enforceRateLimit(ctx, ctx.apiRateLimiter, `${credential.kind}:${credential.id}`, subject, calls);
}

/** 403 with an `insufficient_scope` challenge (the scope to step up to) when the principal lacks `scope`. */
function checkScope(ctx: Context, principal: Principal, scope: Scope): void {
  if (principal.scopes.has(scope)) return;
  ctx.response.headers['WWW-Authenticate'] =
    `Bearer realm="api", error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(ctx)}"`;
  throw new DomainError('forbidden', `This token lacks the "${scope}" scope, which this endpoint requires.`);
}

/** 403 unless the principal signed in to the web app: no token can mint another token or register an app. */
function checkSession(_ctx: Context, principal: Principal): void {
  if (principal.credential.kind === 'session') return;
  throw new DomainError('forbidden', 'This needs a signed-in session in the web app; API tokens cannot manage tokens or apps.');
}

/**
 * The last step before a procedure's schema: every input (REST query, path and body, tRPC input, MCP arguments, the
 * public booking page's slugs) is checked here, once, for text PostgreSQL cannot store and absurd nesting, together
 * with what the door found wrong with a REST query string or body shape. All of it is the caller's fault (400).
 */
async function rejectUnacceptableInput(ctx: Context, getRawInput: () => Promise<unknown>): Promise<void> {
  const unsafe = findUnsafeInput(await getRawInput());
  const problems = [...(ctx.request.inputProblems ?? []), ...(unsafe ? [unsafe] : [])];
  if (problems.length > 0) throw new DomainError('invalid_request', summarizeIssues(problems), problems);
}

/**
 * A procedure whose meta says `idempotent` honours an Idempotency-Key (400 when malformed): the key, in the
 * caller's key space (the credential it authenticated with, or its address on the public booking page), reaches
 * the procedure as `ctx.idempotency`; a replayed stored response is marked `Idempotent-Replayed: true`.
 */
function idempotencyScope(ctx: Context, idempotent: boolean | undefined, principal: Principal | undefined): IdempotencyScope | undefined {
  const key = idempotent ? readIdempotencyKey(ctx.request.headers) : undefined;
  if (key === undefined) return undefined;
  const keySpace = principal ? `${principal.credential.kind}:${principal.credential.id}` : `ip:${ctx.request.ip}`;
  return { principal: keySpace, key };
}

function markReplay(ctx: Context, idempotency: IdempotencyScope | undefined): void {
  if (idempotency?.replayed) ctx.response.headers[REPLAYED_HEADER] = 'true';
}

type Authenticated = { principal: Principal; idempotency?: IdempotencyScope };

/**
 * The gate of an authenticated call: authentication (a bearer token on every door; on /trpc without a token, the
 * web app's session cookie with its CSRF header, see src/identity/session-principal.ts), the per-credential rate
 * limit, the scope or session check, unless the door admitted the call with the others of its request
 * (`admitCalls`); then the input check and the Idempotency-Key. In that order, so that even a 403 carries the
 * rate-limit headers.
 */
function authenticatedGate(check: (ctx: Context, principal: Principal) => void): Gate<Authenticated> {
  return {
    async admit(ctx, meta, getRawInput) {
      let principal = ctx.admitted;
      if (principal === undefined) {
        principal = await authenticateRequest(ctx);
        await countAgainstTokenBudget(ctx, principal);
        check(ctx, principal);
      }
      await rejectUnacceptableInput(ctx, getRawInput);
      return { principal, idempotency: idempotencyScope(ctx, meta?.idempotent, principal) };
    },
    settle: (ctx, { idempotency }) => markReplay(ctx, idempotency),
  };
}

/** For the web app's signed-in user only (session cookie + CSRF header); rate-limited per session. */
export const sessionGate = authenticatedGate(checkSession);

/** For a token (or session) carrying `scope`. */
export function scopeGate(scope: Scope): Gate<Authenticated> {
  return authenticatedGate((ctx, principal) => checkScope(ctx, principal, scope));
}

/**
 * The gate of an unauthenticated call (the public booking page): rate-limited per client address with the
 * X-RateLimit-* headers (429 with Retry-After over budget), then the input check and the Idempotency-Key.
 */
export const publicGate: Gate<{ idempotency?: IdempotencyScope }> = {
  async admit(ctx, meta, getRawInput) {
    await enforceRateLimit(ctx, ctx.publicRateLimiter, `ip:${ctx.request.ip}`, 'address');
    await rejectUnacceptableInput(ctx, getRawInput);
    return { idempotency: idempotencyScope(ctx, meta?.idempotent, undefined) };
  },
  settle: (ctx, { idempotency }) => markReplay(ctx, idempotency),
};
