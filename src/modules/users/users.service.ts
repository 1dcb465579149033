import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { isValidTimeZone } from '../../lib/time.ts';
import { hashPassword } from '../../identity/passwords.ts';
import { passwordWeakness } from '../../identity/password-strength.ts';
import { AvailabilityScheduleEntity } from '../availability/availability-schedule.entity.ts';
import { defaultWeeklyHours } from '../availability/schedule.ts';
import { type Plan, UserEntity } from '../../identity/user.entity.ts';
import type { UpdateMeInput, User } from './users.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { violatedUniqueConstraint } from '../../lib/unique-violation.ts';

/** One plain select: em.findOne with partial fields costs far more CPU (docs/performance.md, "Figures behind the code"). */
export async function getUserProfile(em: EntityManager, userId: string): Promise<User> {
  const [user] = await executePrepared<User>(em, 'users.me', 'select id, email, name, slug, timezone from app_user where id = ?', [userId]);
  if (!user) throw notFound('User');
  return { id: user.id, email: user.email, name: user.name ?? null, slug: user.slug, timezone: user.timezone };
}

/**
 * PATCH /me: changes the given fields of the user's profile. A new slug is claimed for good (the `user_slug` table
 * keeps every slug a user has had, and its trigger refuses one another user has or had): 409 when taken.
 */
export async function updateProfile(em: EntityManager, userId: string, input: UpdateMeInput, now: Date): Promise<User> {
  const changes = Object.entries({ name: input.name, timezone: input.timezone, slug: input.slug }).filter(([, value]) => value !== undefined);
  const sets = changes.map(([column]) => `${column} = ?`);
  const params = changes.map(([, value]) => value);
  if (sets.length > 0) {
    try {
      await em.execute(`update app_user set ${sets.join(', ')}, updated_at = ? where id = ?`, [...params, now, userId], 'run');
    } catch (error) {
      if (violatedUniqueConstraint(error)?.includes('slug')) throw slugTaken(input.slug ?? '');
      throw error;
    }
  }
  return getUserProfile(em, userId);
}

function slugTaken(slug: string): DomainError {
  return new DomainError('conflict', `The booking-page slug "${slug}" is taken (it is, or was, someone's address); choose another.`);
}

/**
 * The current slug of the user who had `slug` before, when it is an old slug (its booking pages redirect there);
 * null for a current slug or one nobody had.
 */
export async function currentSlugAfter(em: EntityManager, slug: string): Promise<string | null> {
  const [row] = await executePrepared<{ slug: string }>(
    em,
    'users.slug-redirect',
    'select u.slug from user_slug s join app_user u on u.id = s.user_id where s.slug = ? and u.slug <> s.slug',
    [slug],
  );
  return row?.slug ?? null;
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
  const weakness = input.password ? await passwordWeakness(input.password, [email, input.name ?? '']) : null;
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
