import type { EntityManager } from '@mikro-orm/postgresql';
import { currentSession } from '../../identity/session-principal.ts';
import { UserEntity } from '../../identity/user.entity.ts';
import type { CurrentSession } from './current-session.schemas.ts';

type Headers = Record<string, string | string[] | undefined>;

/** The signed-in user of the request's session cookie and the session's CSRF token, or null. */
export async function currentSessionView(
  em: EntityManager,
  headers: Headers,
  siteUrl: string,
  now: Date,
): Promise<CurrentSession> {
  const session = await currentSession(em, headers, siteUrl, now);
  if (!session) return null;
  const user = await em.findOne(UserEntity, { id: session.userId });
  if (!user) return null;
  return {
    user: {
      id: user.id,
      email: user.email,
      name: user.name ?? null,
      slug: user.slug,
      timezone: user.timezone,
      plan: user.plan,
    },
    csrfToken: session.csrfToken,
  };
}
