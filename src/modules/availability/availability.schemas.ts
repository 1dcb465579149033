import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { dateTimeQueryParam } from '../../lib/query-params.ts';
import { TimeZoneSchema } from '../../lib/time.ts';
import { HostCalendarsSchema } from '../calendars/calendars.schemas.ts';

/** The longest window /availability computes at once (spec: Limits). */
export const MAX_WINDOW_DAYS = 31;

/** `to` after `from` and at most MAX_WINDOW_DAYS later: the window rule of every availability read. */
export function checkWindow<T extends { from: string; to: string }>(input: T, issues: z.RefinementCtx<T>): void {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  if (Number.isNaN(from) || Number.isNaN(to)) return;
  if (to <= from) {
    issues.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  } else if (to - from > MAX_WINDOW_DAYS * 86_400_000) {
    issues.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${MAX_WINDOW_DAYS} days after from` });
  }
}

export const SlotSchema = z
  .object({
    start: z.iso
      .datetime({ offset: true })
      .meta({ description: 'Start of the slot; pass it unchanged as `start` to POST /bookings.', examples: [EXAMPLE.start] }),
    end: z.iso.datetime({ offset: true }).meta({ description: 'End of the slot.', examples: [EXAMPLE.end] }),
  })
  .meta({
    id: 'Slot',
    description: 'A bookable time. Written in the `tz` asked for (UTC, `Z`, when none was given); the instant is the same either way.',
  });

export type Slot = z.infer<typeof SlotSchema>;

export const AvailabilityInputSchema = z
  .object({
    eventTypeId: z.string().min(1).max(64).meta({ description: 'The event type to compute slots for.', examples: [EXAMPLE.eventTypeId] }),
    from: dateTimeQueryParam('Start of the window: slots start at or after this instant.', EXAMPLE.from),
    to: dateTimeQueryParam(`End of the window, after \`from\` and at most ${MAX_WINDOW_DAYS} days later: slots end at or before it.`, EXAMPLE.to),
    tz: TimeZoneSchema.meta({
      description:
        'IANA time zone the returned date-times are written in (their offset); default UTC. It does not change which slots exist: those follow the hosts’ schedules in their own time zones.',
      examples: [EXAMPLE.timezone],
    }).optional(),
    duration: z.coerce
      .number()
      .int()
      .min(1)
      .max(1440)
      // No example: which durations are offered is the event type's own (another is a 400), and "Try it" sends examples.
      .meta({ description: 'Minutes; one of the event type’s `durationsMin` (default: the first one).' })
      .optional(),
  })
  .superRefine(checkWindow);

export type AvailabilityInput = z.infer<typeof AvailabilityInputSchema>;

export const AvailabilityOutputSchema = z.object({
  data: z.array(SlotSchema).meta({ description: 'Bookable slots ordered by start.' }),
  hosts: z
    .array(HostCalendarsSchema)
    .optional()
    .meta({
      description:
        "What the answer knows of each host's connected calendars: the slots exclude their stored busy times as of each connection's `lastSyncedAt` (the answer never waits on a calendar server).",
    }),
});

export type AvailabilityOutput = z.infer<typeof AvailabilityOutputSchema>;
