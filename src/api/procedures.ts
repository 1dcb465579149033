import { DomainError, summarizeIssues } from '../lib/errors.ts';
import { findUnsafeInput } from '../lib/unsafe-text.ts';
import { authenticateBearer } from '../identity/authenticate.ts';
import { AuthenticationError } from '../identity/bearer.ts';
import type { Principal } from '../identity/principal.ts';
import { authenticateSession } from '../identity/session-principal.ts';
import type { Scope } from '../identity/scopes.ts';
import type { Context } from './context.ts';
import {
  type IdempotencyScope,
  readIdempotencyKey,
  REPLAYED_HEADER,
} from '../modules/bookings/idempotency.ts';
import { type RateLimiter, rateLimitHeaders } from '../lib/rate-limit.ts';
import { type Gate, gatedProcedure } from './trpc.ts';

/**
 * Resource metadata (RFC 9728) of the resource the request addressed, /mcp or this API; 401 and 403 challenges
 * point clients at it.
 */
export function resourceMetadataUrl(ctx: Pick<Context, 'env' | 'request'>): string {
  const resource = ctx.request.surface === 'mcp' ? 'mcp' : 'api/v2';
  return `${ctx.env.SITE_URL}/.well-known/oauth-protected-resource/${resource}`;
}

/**
 * The request's principal, or an error (401 with its WWW-Authenticate challenge in `ctx.response.headers`, or 429
 * for an address that keeps failing). The authentication middleware's, and the /mcp door's before it dispatches.
 * A valid credential is served whatever its address did before: the failure limit refuses failures only.
 */
export async function authenticateRequest(ctx: Context): Promise<Principal> {
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
export async function countAgainstTokenBudget(ctx: Context, principal: Principal, calls = 1): Promise<void> {
  const { credential } = principal;
  const subject = credential.kind === 'session' ? 'session' : 'token';
  await enforceRateLimit(ctx, ctx.apiRateLimiter, `${credential.kind}:${credential.id}`, subject, calls);
}

/** 403 with an `insufficient_scope` challenge (the scope to step up to) when the principal lacks `scope`. */
export function checkScope(ctx: Context, principal: Principal, scope: Scope): void {
  if (principal.scopes.has(scope)) return;
  ctx.response.headers['WWW-Authenticate'] =
    `Bearer realm="api", error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(ctx)}"`;
  throw new DomainError('forbidden', `This token lacks the "${scope}" scope, which this endpoint requires.`);
}

/** 403 unless the principal signed in to the web app: no token can mint another token or register an app. */
function checkSession(principal: Principal): void {
  if (principal.credential.kind === 'session') return;
  throw new DomainError('forbidden', 'This needs a signed-in session in the web app; API tokens cannot manage tokens or apps.');
}

/**
 * The last step before a procedure's schema: every input (REST query, path and body, tRPC input, the public
 * booking page's slugs) is checked here, once, for text PostgreSQL cannot store and absurd nesting, together with
 * what the HTTP layer found wrong with a REST query string or body shape. All of it is the caller's fault (400).
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

/**
 * The gate of an authenticated procedure: authentication (a bearer token on every surface; on /trpc without a
 * token, the first-party session cookie with its CSRF header, see src/identity/session-principal.ts), the
 * per-credential rate limit, the scope or session check, the input check, then the Idempotency-Key. In that order,
 * so that even a 403 carries the rate-limit headers.
 */
function authenticatedGate(check: (ctx: Context, principal: Principal) => void): Gate<{ principal: Principal; idempotency?: IdempotencyScope }> {
  return {
    async admit(ctx, meta, getRawInput) {
      const principal = ctx.principal ?? (await authenticateRequest(ctx));
      if (!ctx.request.rateLimitCounted) await countAgainstTokenBudget(ctx, principal);
      check(ctx, principal);
      await rejectUnacceptableInput(ctx, getRawInput);
      return { principal, idempotency: idempotencyScope(ctx, meta?.idempotent, principal) };
    },
    settle: (ctx, { idempotency }) => markReplay(ctx, idempotency),
  };
}

/**
 * A first-party procedure on /trpc for the signed-in user only (session cookie + CSRF header): a bearer
 * token is refused with 403, so no token can mint another token or register an app. Rate-limited per session.
 */
export const sessionProcedure = gatedProcedure(authenticatedGate((_ctx, principal) => checkSession(principal)));

/**
 * A procedure callable with a token carrying `scope`: authentication, the Team-plan rule, the per-token
 * rate limit and the scope check run in that order, so even a 403 carries the rate-limit headers.
 */
export function scopedProcedure(scope: Scope) {
  return gatedProcedure(authenticatedGate((ctx, principal) => checkScope(ctx, principal, scope))).meta({ scope });
}

/**
 * An unauthenticated procedure (the public booking page), rate-limited per client address with the
 * X-RateLimit-* headers (429 with Retry-After when the address exceeds its budget), then the input check and the
 * Idempotency-Key, like the authenticated gate.
 */
export const publicRateLimitedProcedure = gatedProcedure<{ idempotency?: IdempotencyScope }>({
  async admit(ctx, meta, getRawInput) {
    await enforceRateLimit(ctx, ctx.publicRateLimiter, `ip:${ctx.request.ip}`, 'address');
    await rejectUnacceptableInput(ctx, getRawInput);
    return { idempotency: idempotencyScope(ctx, meta?.idempotent, undefined) };
  },
  settle: (ctx, { idempotency }) => markReplay(ctx, idempotency),
});
