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
  surface: 'rest' | 'trpc' | 'mcp';
  /**
   * What the REST door found wrong with the request's query string or body shape: reported by the gate where it
   * checks the input, after authentication and the scope check, like every other input error.
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
  /** Who the gate admitted this call as, together with the other calls of its request (src/api/call.ts, admitCalls). */
  admitted?: Principal;
}
