import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { TimeZoneSchema } from '../../lib/time.ts';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { LOCATION_KINDS, LOCATION_LIMITS } from '../event-types/event-type-locations.schemas.ts';

export const BOOKING_STATUSES = ['active', 'canceled', 'pending', 'declined'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const BookingStatusSchema = z.enum(BOOKING_STATUSES).meta({
  id: 'BookingStatus',
  description:
    '`active`: booked. `pending`: waits for the host’s confirmation (event types with `requiresConfirmation`) and ' +
    'holds its time meanwhile. `canceled`: by the host or the invitee. `declined`: the host declined it, or it was ' +
    'not confirmed before its start (in a series, before its series’ first pending occurrence’s); its time is free again.',
  examples: ['active'],
});

const BookingAnswersSchema = z
  .array(
    z.object({
      questionId: z.string().min(1).max(100).meta({ description: 'The question answered.', examples: ['company'] }),
      value: z.string().max(5000).meta({ description: 'The answer.', examples: ['Carvalho & Filhos'] }),
    }),
  )
  .max(50)
  .meta({ id: 'BookingAnswers' });

const BookingCalendarEventSchema = z
  .object({
    hostId: z.string().meta({ description: 'The host whose calendar receives the event.', examples: [EXAMPLE.userId] }),
    status: z.enum(['pending', 'written', 'deleted', 'failed']).meta({
      description:
        '`pending`: a write (or, after a cancellation, a deletion) is queued or being retried; `written`: the event is in the calendar as the booking now is; `deleted`: removed after a cancellation; `failed`: given up after the last retry.',
      examples: ['written'],
    }),
    lastError: z.string().nullable().meta({ description: 'Why the last attempt failed, when it did; null otherwise.', examples: [null] }),
  })
  .meta({ id: 'BookingCalendarEvent' });

export const BookingSchema = z
  .object({
    id: z.string().meta({ description: 'The booking’s id.', examples: [EXAMPLE.bookingId] }),
    eventType: EventTypeRefSchema,
    startAt: z.iso.datetime().meta({ description: 'When the meeting starts (UTC).', examples: [EXAMPLE.start] }),
    endAt: z.iso.datetime().meta({ description: 'When the meeting ends (UTC).', examples: [EXAMPLE.end] }),
    durationMin: z.int().meta({ description: 'Length of the meeting in minutes.', examples: [30] }),
    status: BookingStatusSchema,
    location: z
      .object({
        kind: z.string().meta({
          description:
            'The kind of place: `in_person` (at the address in `value`), `phone` (the invitee calls the host’s number in ' +
            '`value`), `link` (online, at the URL in `value`), `invitee_phone` (the host calls the invitee’s number in ' +
            '`value`) or `invitee_input` (the place the invitee typed, in `value`).',
          examples: ['link'],
        }),
        value: z
          .string()
          .nullable()
          .meta({ description: 'The text to show: the address, number, link or typed place.', examples: ['https://meet.example.com/olivia'] }),
      })
      .nullable()
      .describe(
        'Where the meeting happens, as the invitee chose it among the event type’s `locations` when it was booked (a ' +
          'later change of the event type leaves it as it is; a reschedule keeps it); null when there is no place.',
      ),
    invitee: z
      .object({
        name: z.string().meta({ description: 'The invitee’s name.', examples: [EXAMPLE.name] }),
        email: z.email().meta({ description: 'The invitee’s e-mail address.', examples: [EXAMPLE.email] }),
        timezone: z.string().meta({ description: 'The invitee’s IANA time zone.', examples: [EXAMPLE.timezone] }),
      })
      .nullable()
      .meta({ description: 'Who booked; null for bookings without an invitee record.' }),
    notes: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          'What the invitee wrote when booking ("Anything to share"); null when nothing. Absent only in responses stored before this field existed (idempotent replays).',
        examples: ['I would like to talk about the Q1 plan.'],
      }),
    answers: BookingAnswersSchema.optional().meta({ description: 'The answers given when booking, as sent; empty when none.' }),
    guests: z
      .array(z.string())
      .optional()
      .meta({ description: 'Further e-mail addresses the invitee added, as sent; empty when none.', examples: [['rui@example.com']] }),
    noShow: z
      .boolean()
      .meta({
        description:
          'Whether the host marked the invitee as a no-show (`POST /bookings/{id}/no-show`). Absent only in responses stored before this field existed (idempotent replays, earlier webhook events).',
        examples: [false],
      })
      .optional(),
    canceledAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the booking was canceled; null while active.', examples: [EXAMPLE.canceledAt] }),
    cancelReason: z
      .string()
      .nullable()
      .meta({ description: 'The reason given on cancellation, if any.', examples: ['Something came up, sorry!'] }),
    canceledBy: z
      .string()
      .nullable()
      .meta({ description: 'Who canceled: `host` (through the API) or `invitee`.', examples: ['host'] }),
    declinedAt: z.iso
      .datetime()
      .nullable()
      .optional()
      .meta({
        description:
          'When a pending booking was declined (by the host, or at its start when nobody confirmed it, in a series at ' +
          'the start of its series’ first pending occurrence); null otherwise. ' +
          'Absent only in responses stored before this field existed (idempotent replays, earlier webhook events).',
        examples: [null],
      }),
    declineReason: z
      .string()
      .nullable()
      .optional()
      .meta({
        description: 'The host’s reason for declining, or the service’s when the start passed unconfirmed; null otherwise.',
        examples: [null],
      }),
    seriesId: z
      .string()
      .nullable()
      .optional()
      .meta({
        description:
          'The booking series this booking is an occurrence of (`GET /booking-series/{id}`); null for a single booking. ' +
          'Absent only in responses stored before this field existed (idempotent replays, earlier webhook events).',
        examples: [null],
      }),
    createdAt: z.iso.datetime().meta({ description: 'When the booking was made.', examples: [EXAMPLE.createdAt] }),
    calendarEvents: z
      .array(BookingCalendarEventSchema)
      .optional()
      .meta({
        description:
          "The booking's event in each host's CalDAV calendar that receives bookings; empty when none does. Absent only in responses stored before this field existed (idempotent replays, earlier webhook events).",
      }),
  })
  .meta({ id: 'Booking' });

export type Booking = z.infer<typeof BookingSchema>;

/** The invitee's choice among the event type's locations. */
export const BookingLocationChoiceSchema = z
  .strictObject({
    kind: z.enum(LOCATION_KINDS).meta({ description: 'The kind of one of the event type’s `locations`.', examples: ['in_person'] }),
    value: z
      .string()
      .trim()
      .min(1)
      .max(LOCATION_LIMITS.inviteeTextMax)
      .optional()
      .meta({
        description:
          'For `invitee_phone`, the invitee’s number, and for `ask_invitee`, the place they name (both required). For ' +
          'the host’s kinds, which address (number, link) when the event type offers several of that kind; leave it ' +
          'out otherwise.',
        examples: ['Torstraße 1, 10119 Berlin'],
      }),
  })
  .meta({
    id: 'BookingLocationChoice',
    description:
      'Which of the event type’s `locations` the meeting takes. With exactly one location it may be left out; with ' +
      'several it is required; a kind the event type does not offer is 400.',
  });

/** The body of POST /bookings and of the public booking procedure: one schema for both, as the spec says. */
export const CreateBookingInputSchema = z
  .object({
    eventTypeId: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'The event type to book.', examples: [EXAMPLE.eventTypeId] }),
    start: z.iso
      .datetime({ offset: true })
      .meta({ description: 'Start of the slot, as returned by /availability.', examples: [EXAMPLE.start] }),
    durationMin: z
      .int()
      .min(1)
      .max(1440)
      .meta({ description: 'Minutes: one of the event type’s `durationsMin`.', examples: [30] }),
    invitee: z
      .object({
        name: z.string().trim().min(1).max(200).meta({ description: 'The invitee’s name.', examples: [EXAMPLE.name] }),
        email: z.email().max(254).meta({ description: 'The invitee’s e-mail address.', examples: [EXAMPLE.email] }),
        timezone: TimeZoneSchema.meta({ examples: [EXAMPLE.timezone] }),
        textReminderNumber: z
          .string()
          .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number, e.g. +14155550123')
          .optional()
          .meta({ description: 'E.164 phone number for text reminders.', examples: ['+4915123456789'] }),
        smsOptIn: z.boolean().optional().meta({ description: 'Whether the invitee agreed to text reminders.', examples: [true] }),
      })
      .meta({ description: 'The person booking.' }),
    answers: BookingAnswersSchema.optional().meta({ description: 'Answers to the booking form’s questions (at most 50).' }),
    guests: z
      .array(z.email().max(254))
      .max(10)
      .optional()
      .meta({ description: 'E-mail addresses of further attendees (at most 10).', examples: [['rui@example.com']] }),
    notes: z
      .string()
      .max(5000)
      .optional()
      .meta({ description: 'Anything the invitee wants to share before the meeting.', examples: ['I would like to talk about the Q1 plan.'] }),
    location: BookingLocationChoiceSchema.optional(),
    locationInput: z
      .string()
      .max(500)
      .optional()
      .meta({
        description:
          'The invitee’s input for the location, e.g. a phone number to call: the place itself when the event type has ' +
          'no `locations` (stored as `invitee_input`); else the same as `location.value` for its `invitee_phone` or ' +
          '`ask_invitee` location.',
        examples: ['+4915123456789'],
      }),
    holdId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({
        description:
          'A slot hold of yours (`POST /slot-holds`) on exactly this event type, `start` and `durationMin` (400 on the field that differs): ' +
          'books the held slot, and the hold ends. A hold that has ended, or is not yours, is 404.',
        examples: [EXAMPLE.slotHoldId],
      }),
  })
  .meta({
    id: 'CreateBookingInput',
    // The whole body's example, so "Try it" books a slot without a hold id that only the API could have issued.
    examples: [
      {
        eventTypeId: EXAMPLE.eventTypeId,
        start: EXAMPLE.start,
        durationMin: 30,
        invitee: { name: EXAMPLE.name, email: EXAMPLE.email, timezone: EXAMPLE.timezone },
        notes: 'I would like to talk about the Q1 plan.',
      },
    ],
  });

export type CreateBookingInput = z.infer<typeof CreateBookingInputSchema>;
