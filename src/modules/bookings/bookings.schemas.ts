import { z } from 'zod';
import { TimeZoneSchema } from '../../lib/time.ts';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { BOOKING_STATUSES, type BookingStatus } from './booking.entity.ts';

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
    answers: z
      .array(z.object({ questionId: z.string().min(1).max(100), value: z.string().max(5000) }))
      .max(50)
      .optional(),
    guests: z.array(z.email().max(254)).max(10).optional(),
    notes: z.string().max(5000).optional(),
    locationInput: z.string().max(500).optional(),
  })
  .meta({ id: 'CreateBookingInput' });

export type CreateBookingInput = z.infer<typeof CreateBookingInputSchema>;

/** The columns a Booking is built from (booking joined with its event type). */
export interface BookingRow {
  id: string;
  event_type_id: string;
  event_type_name: string;
  event_type_slug: string;
  start_at: SqlTimestamp;
  end_at: SqlTimestamp;
  duration_min: number;
  status: BookingStatus;
  location_kind: string | null;
  location_value: string | null;
  invitee_name: string;
  invitee_email: string;
  invitee_timezone: string;
  canceled_at: SqlTimestamp | null;
  cancel_reason: string | null;
  canceled_by: string | null;
  created_at: SqlTimestamp;
}

/** The select list that produces a BookingRow from `booking b join event_type et`. */
export const BOOKING_ROW_COLUMNS = `b.id, b.event_type_id, et.name as event_type_name, et.slug as event_type_slug,
  b.start_at, b.end_at, b.duration_min, b.status, b.location_kind, b.location_value,
  b.invitee_name, b.invitee_email, b.invitee_timezone, b.canceled_at, b.cancel_reason, b.canceled_by, b.created_at`;

export function toBookingDto(row: BookingRow): Booking {
  return {
    id: row.id,
    eventType: { id: row.event_type_id, name: row.event_type_name, slug: row.event_type_slug },
    startAt: toIsoString(row.start_at),
    endAt: toIsoString(row.end_at),
    durationMin: row.duration_min,
    status: row.status,
    location: row.location_kind ? { kind: row.location_kind, value: row.location_value } : null,
    invitee: { name: row.invitee_name, email: row.invitee_email, timezone: row.invitee_timezone },
    canceledAt: toIsoStringOrNull(row.canceled_at),
    cancelReason: row.cancel_reason,
    canceledBy: row.canceled_by,
    createdAt: toIsoString(row.created_at),
  };
}
