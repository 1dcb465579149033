import { z } from 'zod';

const wallClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a wall-clock time HH:mm (00:00 to 24:00)');

export const TimeIntervalSchema = z
  .object({ start: wallClockTime, end: wallClockTime })
  .refine((interval) => interval.start < interval.end, { message: 'start must be before end' })
  .meta({
    id: 'TimeInterval',
    description: 'Local wall-clock hours `HH:mm`; `start` must be before `end` (400 otherwise), `24:00` is allowed as an end.',
  });

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const WeeklyHoursSchema = z
  .object(Object.fromEntries(WEEKDAYS.map((day) => [day, z.array(TimeIntervalSchema).max(24)])) as Record<
    Weekday,
    z.ZodArray<typeof TimeIntervalSchema>
  >)
  .meta({ id: 'WeeklyHours' });

export const DateOverrideSchema = z
  .object({
    date: z.iso.date(),
    intervals: z.array(TimeIntervalSchema).max(24).describe('empty means unavailable all day'),
  })
  .meta({ id: 'DateOverride' });

export type TimeInterval = z.infer<typeof TimeIntervalSchema>;
export type WeeklyHours = z.infer<typeof WeeklyHoursSchema>;
export type DateOverride = z.infer<typeof DateOverrideSchema>;

/** Monday to Friday, 09:00–17:00: the schedule a new user starts with. */
export function defaultWeeklyHours(): WeeklyHours {
  const workday = [{ start: '09:00', end: '17:00' }];
  return {
    monday: workday,
    tuesday: workday,
    wednesday: workday,
    thursday: workday,
    friday: workday,
    saturday: [],
    sunday: [],
  };
}
