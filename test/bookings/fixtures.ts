import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../src/lib/clock.ts';
import type { DateOverride, WeeklyHours } from '../../src/modules/availability/schedule.ts';

export async function setSchedule(
  em: EntityManager,
  userId: string,
  weekly: Partial<WeeklyHours>,
  overrides: DateOverride[] = [],
): Promise<void> {
  const full: WeeklyHours = {
    monday: [],
    tuesday: [],
    wednesday: [],
    thursday: [],
    friday: [],
    saturday: [],
    sunday: [],
    ...weekly,
  };
  await em.execute(
    `insert into availability_schedule (user_id, weekly, overrides) values (?, ?::jsonb, ?::jsonb)
     on conflict (user_id) do update set weekly = excluded.weekly, overrides = excluded.overrides`,
    [userId, JSON.stringify(full), JSON.stringify(overrides)],
    'run',
  );
}

export const nineToFive = [{ start: '09:00', end: '17:00' }];
export const WEEKDAYS_9_TO_5: Partial<WeeklyHours> = {
  monday: nineToFive,
  tuesday: nineToFive,
  wednesday: nineToFive,
  thursday: nineToFive,
  friday: nineToFive,
};

/** A clock that starts at `at` and moves one second forward each time it is read (distinct created_at values). */
export function tickingClock(at: string): Clock {
  let current = Date.parse(at);
  return {
    now: () => {
      current += 1000;
      return new Date(current);
    },
  };
}

export function invitee(email = `invitee.${randomBytes(4).toString('hex')}@example.test`) {
  return { name: 'Ivy Invitee', email, timezone: 'Europe/London' };
}
