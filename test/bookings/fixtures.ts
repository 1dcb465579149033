import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import type { DateOverride, WeeklyHours } from '../../src/modules/availability/schedule.ts';
import type { EventTypeKind } from '../../src/modules/event-types/event-type.rows.ts';

export interface EventTypeOptions {
  kind?: EventTypeKind;
  durationsMin?: number[];
  bufferBeforeMin?: number;
  bufferAfterMin?: number;
  minNoticeMin?: number;
  slotIntervalMin?: number | null;
  seatsPerSlot?: number;
  active?: boolean;
  secret?: boolean;
  /** The private link's key in clear; only its hash is stored, as the service does. */
  privateLinkKey?: string | null;
  slug?: string;
  name?: string;
  hosts?: string[];
}

/** An event type owned by `ownerId` (hosts rows only when `hosts` is given). */
export async function createEventType(em: EntityManager, ownerId: string, options: EventTypeOptions = {}): Promise<string> {
  const id = newId();
  const slug = options.slug ?? `meeting-${randomBytes(3).toString('hex')}`;
  await em.execute(
    `insert into event_type (id, owner_id, name, slug, kind, durations_min, buffer_before_min, buffer_after_min,
                             min_notice_min, slot_interval_min, seats_per_slot, active, secret, private_link_key_hash)
     values (?, ?, ?, ?, ?, ?::integer[], ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      ownerId,
      options.name ?? 'Meeting',
      slug,
      options.kind ?? 'one_on_one',
      `{${(options.durationsMin ?? [30]).join(',')}}`,
      options.bufferBeforeMin ?? 0,
      options.bufferAfterMin ?? 0,
      options.minNoticeMin ?? 0,
      options.slotIntervalMin ?? null,
      options.seatsPerSlot ?? 1,
      options.active ?? true,
      options.secret ?? false,
      options.privateLinkKey ? hashToken(options.privateLinkKey) : null,
    ],
    'run',
  );
  for (const host of options.hosts ?? []) {
    await em.execute('insert into event_type_host (event_type_id, user_id) values (?, ?)', [id, host], 'run');
  }
  return id;
}

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
