import type { EntityManager } from '@mikro-orm/postgresql';
import type { BearerResolvers } from '../identity/bearer.ts';
import type { Principal } from '../identity/principal.ts';
import type { PrincipalCache } from '../identity/principal-cache.ts';
import type { ErrorDetail } from '../lib/errors.ts';
import type { SharedServices } from '../lib/services.ts';

/** The shared services plus what only the API needs. */
export interface AppServices extends SharedServices {
  /** How a bearer token becomes a principal on this API, by token prefix (assembled in src/bearer-resolvers.ts). */
  bearerResolvers: BearerResolvers;
  /** Principals of bearer tokens this instance resolved lately; absent when caching is off. */
  principalCache?: PrincipalCache;
}

export interface RequestInfo {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /** Which door the request came through; error bodies and headers differ slightly between them. */
  surface: 'rest' | 'trpc' | 'mcp' | 'internal';
  /**
   * What the HTTP layer found wrong with the request's query string or body shape (REST): reported where input
   * validation runs, after authentication and the scope check, like every other input error.
   */
  inputProblems?: ErrorDetail[];
  /** The door counted this request against the token's budget already (/mcp counts every call of a batch at once). */
  rateLimitCounted?: boolean;
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
