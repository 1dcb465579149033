import type { Scope } from './scopes.ts';
import type { Plan } from './user.entity.ts';

/** Who is calling, resolved once per request from a bearer token or the first-party session. */
export interface Principal {
  userId: string;
  plan: Plan;
  scopes: ReadonlySet<Scope>;
  credential: { kind: 'pat' | 'oauth' | 'session'; id: string };
}
