import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { BookingSchema, CreateBookingInputSchema } from '../bookings/bookings.schemas.ts';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { FREQUENCIES } from './occurrences.ts';

export const SERIES_ID_EXAMPLE = '8b4d6f2a-1c3e-4a5b-9d7f-0e2c4a6b8d13';

export const SeriesRecurrenceSchema = z
  .object({
    frequency: z.enum(FREQUENCIES).meta({ description: 'Every day, week or month.', examples: ['weekly'] }),
    interval: z.int().min(1).max(4).meta({ description: 'Every `interval` days, weeks or months (1 to 4).', examples: [1] }),
    count: z
      .int()
      .min(2)
      .max(52)
      .meta({ description: 'How many occurrences, the first included (2 to 52; at most the event type’s `recurrence.maxCount`).', examples: [6] }),
  })
  .meta({
    id: 'SeriesRecurrence',
    description:
      'How the series repeats. Every occurrence keeps the first one’s wall-clock time in the host’s time zone, across ' +
      'daylight-saving changes; a monthly series on the 29th to 31st falls on the last day of shorter months.',
  });

export type SeriesRecurrence = z.infer<typeof SeriesRecurrenceSchema>;

/** POST /bookings's body, with `startAt` for the first occurrence and the recurrence; `holdId` holds the first one. */
export const CreateBookingSeriesInputSchema = CreateBookingInputSchema.omit({ start: true, holdId: true })
  .extend({
    startAt: z.iso
      .datetime({ offset: true })
      .meta({ description: 'Start of the first occurrence, as returned by /availability.', examples: [EXAMPLE.start] }),
    recurrence: SeriesRecurrenceSchema,
    holdId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({
        description:
          'A slot hold of yours (`POST /slot-holds`) on exactly the first occurrence: this event type, `startAt` and `durationMin` ' +
          '(400 on the field that differs). The series books the held time, and the hold ends; a refused series leaves it. ' +
          'A hold that has ended, or is not yours, is 404.',
        examples: [EXAMPLE.slotHoldId],
      }),
  })
  .meta({
    id: 'CreateBookingSeriesInput',
    // The whole body's example, so "Try it" books a series without a hold id that only the API could have issued.
    examples: [
      {
        eventTypeId: EXAMPLE.eventTypeId,
        startAt: EXAMPLE.start,
        durationMin: 30,
        invitee: { name: EXAMPLE.name, email: EXAMPLE.email, timezone: EXAMPLE.timezone },
        recurrence: { frequency: 'weekly', interval: 1, count: 6 },
      },
    ],
  });

export type CreateBookingSeriesInput = z.infer<typeof CreateBookingSeriesInputSchema>;

export const SeriesIdSchema = z.string().min(1).max(100).meta({ description: 'The booking series.', examples: [SERIES_ID_EXAMPLE] });

export const BookingSeriesSchema = z
  .object({
    id: SeriesIdSchema,
    eventType: EventTypeRefSchema,
    hostId: z.string().meta({ description: 'The host of every occurrence (round robin keeps one host for the whole series).', examples: [EXAMPLE.userId] }),
    timeZone: z.string().meta({ description: 'The host’s time zone, whose wall-clock time every occurrence keeps.', examples: [EXAMPLE.timezone] }),
    recurrence: SeriesRecurrenceSchema,
    startAt: z.iso.datetime().meta({ description: 'Start of the first occurrence (UTC).', examples: [EXAMPLE.start] }),
    createdAt: z.iso.datetime().meta({ description: 'When the series was booked.', examples: [EXAMPLE.createdAt] }),
    bookings: z
      .array(BookingSchema)
      .meta({ description: 'Every occurrence, earliest first: ordinary bookings, each fetched, moved or canceled alone.' }),
  })
  .meta({ id: 'BookingSeries' });

export type BookingSeries = z.infer<typeof BookingSeriesSchema>;

export const CancelBookingSeriesInputSchema = z.object({
  id: SeriesIdSchema,
  reason: z
    .string()
    .max(500)
    .meta({ description: 'Why the series is canceled; at most 500 characters.', examples: ['The project ended early.'] })
    .optional(),
});

export const DeclineBookingSeriesInputSchema = z.strictObject({
  id: SeriesIdSchema,
  reason: z
    .string()
    .max(500)
    .meta({ description: 'Why the requests are declined; at most 500 characters.', examples: ['I am away those weeks, sorry.'] })
    .optional(),
});
