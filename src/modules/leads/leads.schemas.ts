import { z } from 'zod';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';
import { LEAD_STATUSES } from './lead.rows.ts';

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
