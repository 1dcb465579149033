import type { EntityManager } from '@mikro-orm/postgresql';
import type { Env } from '../config/env.ts';
import type { Clock } from '../lib/clock.ts';
import type { ErrorDetail } from '../lib/errors.ts';
import type { Principal } from '../identity/principal.ts';
import type { FailureThrottle, RateLimiter } from '../lib/rate-limit.ts';

/** Long-lived collaborators shared by every request of one app instance. */
export interface AppServices {
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

export interface RequestInfo {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** Which door the request came through; error bodies and headers differ slightly between them. */
  surface: 'rest' | 'trpc' | 'internal';
  /**
   * What the HTTP layer found wrong with the request's query string or body shape (REST): reported where input
   * validation runs, after authentication and the scope check, like every other input error.
   */
  inputProblems?: ErrorDetail[];
  /** Aborted when the request's deadline passes and it has been answered 503 (src/http/request-deadline.ts). */
  deadline?: AbortSignal;
}

export interface Context extends AppServices {
  em: EntityManager;
  request: RequestInfo;
  /** Headers and a success status that procedures set and the adapters copy to the HTTP response. */
  response: { headers: Record<string, string>; status?: number };
  principal?: Principal;
}

export function createContextInner(options: { services: AppServices; em: EntityManager; request: RequestInfo }): Context {
  return { ...options.services, em: options.em, request: options.request, response: { headers: {} } };
}
