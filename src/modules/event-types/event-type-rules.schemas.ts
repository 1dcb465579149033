/**
 * The booking rules of an event type, one schema each, shared by what the API accepts (create, PATCH) and what it
 * returns (every read): a client can send back what it read. Their meaning: docs/decisions.md, "Booking rules".
 */
import { z } from 'zod';

export const BOOKING_RULE_LIMITS = {
  windowDaysMax: 3650,
  countMax: 10_000,
  noticeMax: 525_600,
  recurrenceMin: 2,
  recurrenceMax: 52,
} as const;

const LocalDateSchema = z.iso.date().meta({ description: 'A date, YYYY-MM-DD.', examples: ['2026-12-01'] });

const RollingWindowSchema = z
  .strictObject({
    type: z.literal('rolling').meta({ description: 'From today, in each host’s time zone.', examples: ['rolling'] }),
    days: z
      .int()
      .min(1)
      .max(BOOKING_RULE_LIMITS.windowDaysMax)
      .meta({ description: 'How many days may be booked, today included (1: today only).', examples: [30] }),
  })
  .meta({ description: 'The next `days` days, today included, in each host’s time zone.' });

const RangeWindowSchema = z
  .strictObject({
    type: z.literal('range').meta({ description: 'Fixed dates.', examples: ['range'] }),
    start: LocalDateSchema.meta({ description: 'The first date that may be booked (in each host’s time zone).', examples: ['2026-12-01'] }),
    end: LocalDateSchema.meta({ description: 'The last date that may be booked; not before `start`.', examples: ['2026-12-31'] }),
  })
  .refine((range) => range.end >= range.start, { path: ['end'], message: 'must not be before start' })
  .meta({ description: 'The dates from `start` to `end`, both included, in each host’s time zone.' });

export const BookingWindowSchema = z
  .discriminatedUnion('type', [RollingWindowSchema, RangeWindowSchema])
  .nullable()
  .meta({
    id: 'BookingWindow',
    description:
      'Which dates may be booked: a slot is offered only when its start falls on one of them in the host’s time zone. ' +
      'Null: any date.',
    examples: [{ type: 'rolling', days: 30 }],
  });

const CountSchema = (period: string) =>
  z
    .int()
    .min(1)
    .max(BOOKING_RULE_LIMITS.countMax)
    .meta({ description: `At most this many bookings per host per ${period}.`, examples: [4] })
    .optional();

export const BookingLimitsSchema = z
  .strictObject({
    perDay: CountSchema('day'),
    perWeek: CountSchema('week (Monday to Sunday)'),
    perMonth: CountSchema('calendar month'),
  })
  .nullable()
  .meta({
    id: 'BookingLimits',
    description:
      'How many bookings of this event type each host takes per day, week and month of their own time zone, counting ' +
      'active and pending ones (each seat of a group slot counts). A full period offers no slots. Null (or `{}`): no limits.',
    examples: [{ perDay: 4, perWeek: 15 }],
  });

const noticeSchema = (action: string) =>
  z
    .int()
    .min(0)
    .max(BOOKING_RULE_LIMITS.noticeMax)
    .meta({
      description:
        `The invitee may ${action} on their own manage page only until this many minutes before the start (at most a ` +
        'year); the host and API callers may always do it.',
      examples: [1440],
    });

export const CancelNoticeSchema = noticeSchema('cancel');
export const RescheduleNoticeSchema = noticeSchema('reschedule');

export const RequiresConfirmationSchema = z.boolean().meta({
  description:
    'New bookings start `pending`, holding their time, until the host confirms (POST /bookings/{id}/confirm) or ' +
    'declines them; one not confirmed before its start is declined (a series’ requests all together, when the first ' +
    'of them starts).',
  examples: [false],
});

export const RecurrenceSchema = z
  .strictObject({
    maxCount: z
      .int()
      .min(BOOKING_RULE_LIMITS.recurrenceMin)
      .max(BOOKING_RULE_LIMITS.recurrenceMax)
      .meta({ description: 'The most occurrences a series may have (2 to 52).', examples: [12] }),
  })
  .nullable()
  .meta({
    id: 'EventTypeRecurrence',
    description: 'Whether invitees may book a recurring series of this event type, and of how many occurrences at most. Null: single bookings only.',
    examples: [{ maxCount: 12 }],
  });
