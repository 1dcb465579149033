import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { dateTimeQueryParam } from '../../lib/query-params.ts';

export const ExplainInputSchema = z.object({
  eventTypeId: z.string().min(1).max(64).meta({ description: 'One of your event types.', examples: [EXAMPLE.eventTypeId] }),
  start: dateTimeQueryParam('Start of the slot to explain.', EXAMPLE.start),
  durationMin: z.coerce
    .number()
    .int()
    .min(1)
    .max(1440)
    // No example: which durations are offered is the event type's own (another is a 400), and "Try it" sends examples.
    .meta({ description: 'Minutes; one of the event type’s `durationsMin` (default: the first one).' })
    .optional(),
});

export type ExplainInput = z.infer<typeof ExplainInputSchema>;

const hostId = z.string().meta({ description: 'The host whose time this is.', examples: [EXAMPLE.userId] });
const bookingId = z
  .string()
  .meta({ description: 'The booking, when it is one of yours (another user’s booking of a shared host is not named).', examples: [EXAMPLE.bookingId] })
  .optional();

const localDate = (description: string, example: string) => z.iso.date().meta({ description, examples: [example] });

/** A full period: the host already has the limit's number of bookings of this event type in it. */
const limitReason = <K extends string>(kind: K, period: string, first: string, last: string) =>
  reason(kind, `The host has as many bookings of this event type in that ${period} of their time zone as the event type allows.`, {
    hostId,
    limit: z.int().meta({ description: `The event type’s limit per ${period}.`, examples: [3] }),
    firstDate: localDate('The first date of the full period, in the host’s time zone.', first),
    lastDate: localDate('The last date of the full period, in the host’s time zone.', last),
  });

const reason = <K extends string, S extends z.ZodRawShape>(kind: K, description: string, shape: S) =>
  z.object({ kind: z.literal(kind).meta({ description: 'The rule.', examples: [kind] }), ...shape }).meta({ description });

export const SlotReasonSchema = z
  .discriminatedUnion('kind', [
    reason('inactive', 'The event type is inactive: it offers no slots.', {}),
    reason('minimum_notice', 'The slot starts in the past or sooner than the event type’s minimum notice allows.', {
      minNoticeMin: z.int().meta({ description: 'The event type’s minimum notice, minutes.', examples: [60] }),
      earliestStart: z.iso.datetime({ offset: true }).meta({ description: 'The earliest start allowed now.', examples: [EXAMPLE.start] }),
    }),
    reason('outside_working_hours', 'The slot is not inside the host’s weekly hours.', { hostId }),
    reason('date_override', 'A date override of the host (its hours for that date) leaves the slot out.', {
      hostId,
      date: z.iso.date().meta({ description: 'The overridden local date.', examples: ['2026-12-24'] }),
    }),
    reason(
      'slot_interval',
      'The slot is inside the hours but not on the slot grid: slots start at the start of each availability interval (for a collective event type, the hours all hosts share) and every `stepMin` minutes after it, on whole minutes.',
      { stepMin: z.int().meta({ description: 'The distance between slot starts, minutes.', examples: [30] }), hostId: hostId.optional() },
    ),
    reason('booked', 'The host has a booking at that time.', { hostId, bookingId }),
    reason('buffer', 'The slot is clear of a booking but too close to it: their buffers (this event type’s or the booking’s) overlap.', {
      hostId,
      bookingId,
    }),
    reason('seats_full', 'Every seat of this group slot is taken.', { hostId }),
    reason('calendar_busy', 'Busy in one of the host’s connected calendars (the event’s details are never shown).', {
      hostId,
      connectionId: z
        .string()
        .optional()
        .meta({ description: 'The calendar connection, when it is yours (a team host’s calendars stay anonymous).', examples: ['7c2e9a41-5b3d-4f8e-a6c1-2d9b4e7f3a58'] }),
      connectionName: z.string().optional().meta({ description: 'The calendar connection’s name, when it is yours.', examples: ['Work calendar'] }),
    }),
    reason('pending', 'The host has a booking at that time that waits for their confirmation (it holds the time until declined).', {
      hostId,
      bookingId,
    }),
    reason(
      'held',
      'Someone holds that time while they finish booking it (a slot hold): it is free again when they book elsewhere, let it go, or the hold ends. Whose hold it is is not shown.',
      { hostId },
    ),
    reason('booking_window', 'The slot’s date, in the host’s time zone, is outside the event type’s booking window.', {
      hostId,
      firstDate: localDate('The first date the window allows, in the host’s time zone.', '2026-12-01'),
      lastDate: localDate('The last date the window allows, in the host’s time zone.', '2026-12-30'),
    }),
    limitReason('daily_limit', 'day', '2026-12-01', '2026-12-01'),
    limitReason('weekly_limit', 'week (Monday to Sunday)', '2026-11-30', '2026-12-06'),
    limitReason('monthly_limit', 'calendar month', '2026-12-01', '2026-12-31'),
  ])
  .meta({ id: 'SlotReason', description: 'Why a slot is not offered; `kind` names the rule.' });

export const ExplainOutputSchema = z.object({
  available: z.boolean().meta({ description: 'True exactly when GET /availability offers this slot (and POST /bookings accepts it).', examples: [false] }),
  start: z.iso.datetime({ offset: true }).meta({ description: 'Start of the slot (UTC).', examples: [EXAMPLE.start] }),
  end: z.iso.datetime({ offset: true }).meta({ description: 'End of the slot (UTC).', examples: [EXAMPLE.end] }),
  hosts: z
    .array(z.object({ hostId, available: z.boolean().meta({ description: 'Whether this host can take the slot.', examples: [true] }) }))
    .meta({ description: 'Each host’s verdict: round robin needs one free host, collective all of them.' }),
  reasons: z
    .array(SlotReasonSchema)
    .meta({ description: 'Every reason the slot, or a host, is not available; for round robin also those of busy hosts when another is free.' }),
});

export type ExplainOutput = z.infer<typeof ExplainOutputSchema>;
