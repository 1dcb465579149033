import { z } from 'zod';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import { LEAD_STATUSES, type LeadStatus } from './lead.entity.ts';

export const LeadStatusSchema = z.enum(LEAD_STATUSES).meta({ id: 'LeadStatus' });

export const LeadSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    email: z.email(),
    timezone: z.string().describe('IANA time zone name'),
    status: LeadStatusSchema,
    eventType: EventTypeRefSchema,
    booked: z.boolean().describe('True once the lead has converted into a booking.'),
    bookingId: z.string().nullable(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable().describe('When the lead converted into a booking.'),
  })
  .meta({ id: 'Lead' });

export type Lead = z.infer<typeof LeadSchema>;

export interface LeadRow {
  id: string;
  name: string | null;
  email: string;
  timezone: string;
  status: LeadStatus;
  event_type_id: string;
  event_type_name: string;
  event_type_slug: string;
  booking_id: string | null;
  created_at: SqlTimestamp;
  completed_at: SqlTimestamp | null;
}

/** The select list that produces a LeadRow from `lead l join event_type et`. */
export const LEAD_ROW_COLUMNS = `l.id, l.name, l.email, l.timezone, l.status, l.event_type_id,
  et.name as event_type_name, et.slug as event_type_slug, l.booking_id, l.created_at, l.completed_at`;

export function toLeadDto(row: LeadRow): Lead {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    timezone: row.timezone,
    status: row.status,
    eventType: { id: row.event_type_id, name: row.event_type_name, slug: row.event_type_slug },
    booked: row.booking_id !== null,
    bookingId: row.booking_id,
    createdAt: toIsoString(row.created_at),
    completedAt: toIsoStringOrNull(row.completed_at),
  };
}
