import { z } from 'zod';

const wallClockTime = (description: string, example: string) =>
  z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a wall-clock time HH:mm (00:00 to 24:00)')
    .meta({ description, examples: [example] });

export const TimeIntervalSchema = z
  .object({
    start: wallClockTime('Local start time, `HH:mm`.', '09:00'),
    end: wallClockTime('Local end time, `HH:mm`; `24:00` is the end of the day.', '17:00'),
  })
  .refine((interval) => interval.start < interval.end, { message: 'start must be before end' })
  .meta({
    id: 'TimeInterval',
    description: 'Local wall-clock hours `HH:mm`; `start` must be before `end` (400 otherwise), `24:00` is allowed as an end.',
  });

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const dayHours = (day: Weekday, example: { start: string; end: string }[]) =>
  z
    .array(TimeIntervalSchema)
    .max(24)
    .meta({ description: `Working hours on ${day[0]!.toUpperCase()}${day.slice(1)}s; empty when unavailable.`, examples: [example] });

const WORKDAY = [{ start: '09:00', end: '17:00' }];
const WEEKEND = new Set<Weekday>(['saturday', 'sunday']);

export const WeeklyHoursSchema = z
  .object(Object.fromEntries(WEEKDAYS.map((day) => [day, dayHours(day, WEEKEND.has(day) ? [] : WORKDAY)])) as Record<
    Weekday,
    z.ZodArray<typeof TimeIntervalSchema>
  >)
  .meta({ id: 'WeeklyHours', description: 'Working hours per weekday, in the owner’s time zone.' });

export const DateOverrideSchema = z
  .object({
    date: z.iso.date().meta({ description: 'The local date whose hours are replaced.', examples: ['2026-12-24'] }),
    intervals: z
      .array(TimeIntervalSchema)
      .max(24)
      .meta({ description: 'The hours of that date; empty means unavailable all day.', examples: [[{ start: '09:00', end: '12:00' }]] }),
  })
  .meta({ id: 'DateOverride', description: 'Hours for one date instead of the weekly ones.' });

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
