import type { EntityManager } from '@mikro-orm/postgresql';
import type { Env } from '../config/env.ts';
import type { Clock } from '../lib/clock.ts';
import type { Principal } from '../modules/auth/principal.ts';
import type { RateLimiter } from './rate-limit.ts';

/** Long-lived collaborators shared by every request of one app instance. */
export interface AppServices {
  env: Env;
  clock: Clock;
  apiRateLimiter: RateLimiter;
  publicRateLimiter: RateLimiter;
  /** Dynamic client registrations per client address (POST /oauth/register). */
  oauthRegistrationRateLimiter: RateLimiter;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface RequestInfo {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** Which door the request came through; error bodies and headers differ slightly between them. */
  surface: 'rest' | 'trpc' | 'internal';
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
