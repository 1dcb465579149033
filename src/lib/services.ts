import type { Env } from '../config/env.ts';
import type { Clock } from './clock.ts';
import type { FailureThrottle, RateLimiter } from './rate-limit.ts';

/**
 * Long-lived collaborators shared by every request of one app instance, whatever door it comes through (the API,
 * the OAuth server, sign-in). Built once in src/app.ts; the API adds what only it needs (src/api/context.ts).
 */
export interface SharedServices {
  env: Env;
  clock: Clock;
  apiRateLimiter: RateLimiter;
  publicRateLimiter: RateLimiter;
  /** Dynamic client registrations per client address (POST /oauth/register). */
  oauthRegistrationRateLimiter: RateLimiter;
  /** Failed bearer or session authentications per client address (/api/v2, /trpc, /oauth/userinfo). */
  failedAuthThrottle: FailureThrottle;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}
