import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField, notFound } from '../../lib/errors.ts';
import { UserEntity } from '../../identity/user.entity.ts';
import { AvailabilityScheduleEntity } from './availability-schedule.entity.ts';
import { type DateOverride, defaultWeeklyHours, type TimeInterval, WEEKDAYS, type WeeklyHours } from './schedule.ts';
import type { Schedule, ScheduleInput } from './schedule.schemas.ts';

export async function getSchedule(em: EntityManager, userId: string): Promise<Schedule> {
  const user = await em.findOne(UserEntity, { id: userId }, { fields: ['timezone'] });
  if (!user) throw notFound('User');
  const row = await em.findOne(AvailabilityScheduleEntity, { userId });
  return {
    timezone: user.timezone,
    weekly: row?.weekly ?? defaultWeeklyHours(),
    overrides: sortOverrides(row?.overrides ?? []),
    updatedAt: (row?.updatedAt ?? new Date(0)).toISOString(),
  };
}

/** Replaces the whole schedule: weekly hours and date overrides, validated as one document. */
export async function replaceSchedule(em: EntityManager, userId: string, input: ScheduleInput): Promise<Schedule> {
  assertNoOverlaps(input.weekly, input.overrides);
  const overrides = sortOverrides(input.overrides);
  await em.upsert(AvailabilityScheduleEntity, { userId, weekly: input.weekly, overrides, updatedAt: new Date() });
  return getSchedule(em, userId);
}

function assertNoOverlaps(weekly: WeeklyHours, overrides: DateOverride[]): void {
  for (const day of WEEKDAYS) {
    const overlap = findOverlap(weekly[day]);
    if (overlap !== null) throw invalidField(['weekly', day, overlap], 'intervals of one day must not overlap');
  }
  const seen = new Set<string>();
  overrides.forEach((override, index) => {
    if (seen.has(override.date)) throw invalidField(['overrides', index, 'date'], 'each date may be overridden once');
    seen.add(override.date);
    const overlap = findOverlap(override.intervals);
    if (overlap !== null) {
      throw invalidField(['overrides', index, 'intervals', overlap], 'intervals of one day must not overlap');
    }
  });
}

/** Index of the first interval that overlaps an earlier one (by start time), or null. */
function findOverlap(intervals: TimeInterval[]): number | null {
  const ordered = intervals.map((interval, index) => ({ ...interval, index })).sort((a, b) => a.start.localeCompare(b.start));
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.start < ordered[i - 1]!.end) return ordered[i]!.index;
  }
  return null;
}

function sortOverrides(overrides: DateOverride[]): DateOverride[] {
  return [...overrides].sort((a, b) => a.date.localeCompare(b.date));
}
