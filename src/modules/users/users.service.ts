import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { isValidTimeZone } from '../../lib/time.ts';
import { hashPassword } from '../../identity/passwords.ts';
import { passwordWeakness } from '../../identity/password-strength.ts';
import { AvailabilityScheduleEntity } from '../availability/availability-schedule.entity.ts';
import { defaultWeeklyHours } from '../availability/schedule.ts';
import { type Plan, UserEntity } from '../../identity/user.entity.ts';
import type { User } from './users.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';

/** One plain select: em.findOne with partial fields costs far more CPU (docs/performance.md, "Figures behind the code"). */
export async function getUserProfile(em: EntityManager, userId: string): Promise<User> {
  const [user] = await executePrepared<User>(em, 'users.me', 'select id, email, name, slug, timezone from app_user where id = ?', [userId]);
  if (!user) throw notFound('User');
  return { id: user.id, email: user.email, name: user.name ?? null, slug: user.slug, timezone: user.timezone };
}

export interface NewUser {
  email: string;
  plan: Plan;
  timezone: string;
  name?: string | null;
  password?: string;
}

/** Creates a user with the default Monday–Friday 09:00–17:00 schedule in their own time zone; 400 for a guessable password. */
export async function createUser(em: EntityManager, input: NewUser): Promise<User & { plan: Plan }> {
  if (!isValidTimeZone(input.timezone)) throw invalidField(['timezone'], 'must be an IANA time zone name');
  const email = input.email.trim();
  const weakness = input.password ? passwordWeakness(input.password, [email, input.name ?? '']) : null;
  if (weakness) throw invalidField(['password'], weakness);
  const taken = await em.count(UserEntity, { email: { $ilike: email.replace(/[\\%_]/g, '\\$&') } });
  if (taken > 0) throw new DomainError('conflict', `A user with e-mail ${email} already exists.`);
  const id = newId();
  const slug = `${slugify(input.name ?? email.split('@')[0] ?? 'user')}-${id.slice(0, 6)}`;
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  await em.transactional(async (tx) => {
    tx.create(UserEntity, {
      id,
      email,
      name: input.name ?? null,
      slug,
      timezone: input.timezone,
      plan: input.plan,
      passwordHash,
    });
    // Foreign keys are plain columns here, so the unit of work cannot order the inserts by itself.
    await tx.flush();
    tx.create(AvailabilityScheduleEntity, { userId: id, weekly: defaultWeeklyHours(), overrides: [] });
  });
  return { id, email, name: input.name ?? null, slug, timezone: input.timezone, plan: input.plan };
}

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return slug || 'user';
}
