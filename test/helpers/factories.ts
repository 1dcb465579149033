import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES, type Scope } from '../../src/identity/scopes.ts';
import { createUser, type NewUser } from '../../src/modules/users/users.service.ts';
import type { Plan } from '../../src/identity/user.entity.ts';

export function uniqueEmail(label = 'user'): string {
  return `${label}.${randomBytes(5).toString('hex')}@example.test`;
}

export interface TestUser {
  id: string;
  email: string;
  timezone: string;
  token: string;
}

/** A user with a personal access token (every scope unless told otherwise). */
export async function createUserWithToken(
  em: EntityManager,
  options: { plan?: Plan; timezone?: string; scopes?: Scope[]; name?: string } = {},
): Promise<TestUser> {
  const input: NewUser = {
    email: uniqueEmail(),
    plan: options.plan ?? 'team',
    timezone: options.timezone ?? 'America/New_York',
    name: options.name ?? 'Test User',
  };
  const user = await createUser(em, input);
  const { token } = await createPersonalAccessToken(em, {
    userId: user.id,
    name: 'test',
    scopes: options.scopes ?? ALL_SCOPES,
  });
  return { id: user.id, email: user.email, timezone: user.timezone, token };
}

export const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
