import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { DateOverrideSchema, WeeklyHoursSchema } from './schedule.ts';

export const ScheduleInputSchema = z
  .object({
    weekly: WeeklyHoursSchema,
    overrides: z
      .array(DateOverrideSchema)
      .max(366)
      .default([])
      .meta({ description: 'Dates whose hours replace the weekly ones (at most 366); replaces every stored override.' }),
  })
  .meta({ id: 'ScheduleInput' });

export const ScheduleSchema = z
  .object({
    timezone: z
      .string()
      .meta({ description: "The owner's IANA time zone: every interval is local wall-clock time there.", examples: [EXAMPLE.timezone] }),
    weekly: WeeklyHoursSchema,
    overrides: z.array(DateOverrideSchema).meta({ description: 'Dates whose hours replace the weekly ones; sorted by date.' }),
    updatedAt: z.iso.datetime().meta({ description: 'When the schedule last changed.', examples: ['2026-11-20T17:05:00Z'] }),
  })
  .meta({ id: 'Schedule', description: "The authenticated user's working hours." });

export type Schedule = z.infer<typeof ScheduleSchema>;
export type ScheduleInput = z.infer<typeof ScheduleInputSchema>;
