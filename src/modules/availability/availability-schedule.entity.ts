import { defineEntity, p } from '@mikro-orm/core';
import type { DateOverride, WeeklyHours } from './schedule.ts';

/** A user's working hours, as local wall-clock intervals in the user's own time zone. */
export const AvailabilityScheduleEntity = defineEntity({
  name: 'AvailabilitySchedule',
  tableName: 'availability_schedule',
  properties: {
    userId: p.text().primary(),
    weekly: p.json<WeeklyHours>(),
    overrides: p.json<DateOverride[]>().defaultRaw("'[]'"),
    updatedAt: p.datetime().defaultRaw('now()').onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
