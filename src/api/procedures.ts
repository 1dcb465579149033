import type { Scope } from '../identity/scopes.ts';
import { publicGate, scopeGate, sessionGate } from './call.ts';
import { gatedProcedure } from './trpc.ts';

/**
 * A first-party procedure on /trpc for the signed-in user only (session cookie + CSRF header): a bearer
 * token is refused with 403, so no token can mint another token or register an app. Rate-limited per session.
 */
export const sessionProcedure = gatedProcedure(sessionGate);

/**
 * A procedure callable with a token carrying `scope`: authentication, the per-token rate limit and the scope
 * check run in that order, so even a 403 carries the rate-limit headers.
 */
export function scopedProcedure(scope: Scope) {
  return gatedProcedure(scopeGate(scope)).meta({ scope });
}

/**
 * An unauthenticated procedure (the public booking page), rate-limited per client address, then the input check
 * and the Idempotency-Key, like the authenticated gate.
 */
export const publicRateLimitedProcedure = gatedProcedure(publicGate);
