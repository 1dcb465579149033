import { z } from 'zod';
import { TimeZoneSchema } from '../../lib/time.ts';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { BOOKING_STATUSES } from './booking.rows.ts';

const AnswersSchema = z
  .array(z.object({ questionId: z.string().min(1).max(100), value: z.string().max(5000) }))
  .max(50)
  .meta({ id: 'BookingAnswers' });

export const BookingStatusSchema = z.enum(BOOKING_STATUSES).meta({ id: 'BookingStatus' });

export const BookingSchema = z
  .object({
    id: z.string(),
    eventType: EventTypeRefSchema,
    startAt: z.iso.datetime(),
    endAt: z.iso.datetime(),
    durationMin: z.int(),
    status: BookingStatusSchema,
    location: z
      .object({ kind: z.string(), value: z.string().nullable() })
      .nullable()
      .describe('Where the meeting happens, as the invitee chose it.'),
    invitee: z.object({ name: z.string(), email: z.email(), timezone: z.string() }).nullable(),
    notes: z
      .string()
      .nullable()
      .optional()
      .describe('What the invitee wrote when booking ("Anything to share"); null when nothing. Absent only in responses stored before this field existed (idempotent replays).'),
    answers: AnswersSchema.optional().describe('The answers given when booking, as sent; empty when none.'),
    guests: z.array(z.string()).optional().describe('Further e-mail addresses the invitee added, as sent; empty when none.'),
    canceledAt: z.iso.datetime().nullable(),
    cancelReason: z.string().nullable(),
    canceledBy: z.string().nullable().describe('Who canceled: `host` (through the API) or `invitee`.'),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Booking' });

export type Booking = z.infer<typeof BookingSchema>;

/** The body of POST /bookings and of the public booking procedure: one schema for both, as the spec says. */
export const CreateBookingInputSchema = z
  .object({
    eventTypeId: z.string().min(1).max(64),
    start: z.iso.datetime({ offset: true }).describe('Start of the slot, as returned by /availability.'),
    durationMin: z.int().min(1).max(1440),
    invitee: z.object({
      name: z.string().trim().min(1).max(200),
      email: z.email().max(254),
      timezone: TimeZoneSchema,
      textReminderNumber: z
        .string()
        .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number, e.g. +14155550123')
        .optional(),
      smsOptIn: z.boolean().optional(),
    }),
    answers: AnswersSchema.optional(),
    guests: z.array(z.email().max(254)).max(10).optional(),
    notes: z.string().max(5000).optional(),
    locationInput: z.string().max(500).optional(),
  })
  .meta({ id: 'CreateBookingInput' });

export type CreateBookingInput = z.infer<typeof CreateBookingInputSchema>;
