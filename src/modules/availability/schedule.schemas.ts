import { z } from 'zod';
import { DateOverrideSchema, WeeklyHoursSchema } from './schedule.ts';

export const ScheduleInputSchema = z
  .object({
    weekly: WeeklyHoursSchema,
    overrides: z.array(DateOverrideSchema).max(366).default([]),
  })
  .meta({ id: 'ScheduleInput' });

export const ScheduleSchema = z
  .object({
    timezone: z.string().describe("The owner's IANA time zone: every interval is local wall-clock time there."),
    weekly: WeeklyHoursSchema,
    overrides: z.array(DateOverrideSchema).describe('Dates whose hours replace the weekly ones; sorted by date.'),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Schedule', description: "The authenticated user's working hours." });

export type Schedule = z.infer<typeof ScheduleSchema>;
export type ScheduleInput = z.infer<typeof ScheduleInputSchema>;
