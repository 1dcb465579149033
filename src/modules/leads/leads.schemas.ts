import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { EventTypeRefSchema } from '../event-types/event-types.schemas.ts';

export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

export const LeadStatusSchema = z
  .enum(LEAD_STATUSES)
  .meta({ id: 'LeadStatus', description: 'Where the lead is in the host’s pipeline.', examples: ['new'] });

export const LeadSchema = z
  .object({
    id: z.string().meta({ description: 'The lead’s id.', examples: [EXAMPLE.leadId] }),
    name: z.string().nullable().meta({ description: 'The name the person left, if any.', examples: [EXAMPLE.name] }),
    email: z.email().meta({ description: 'The e-mail address the person left.', examples: [EXAMPLE.email] }),
    timezone: z.string().meta({ description: 'The person’s IANA time zone.', examples: [EXAMPLE.timezone] }),
    status: LeadStatusSchema,
    eventType: EventTypeRefSchema,
    booked: z.boolean().meta({ description: 'True once the lead has converted into a booking.', examples: [true] }),
    bookingId: z
      .string()
      .nullable()
      .meta({ description: 'The booking the lead converted into; null until then.', examples: [EXAMPLE.bookingId] }),
    createdAt: z.iso.datetime().meta({ description: 'When the person first left their details.', examples: ['2026-11-24T10:02:00Z'] }),
    completedAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the lead converted into a booking; null until then.', examples: [EXAMPLE.createdAt] }),
  })
  .meta({ id: 'Lead' });

export type Lead = z.infer<typeof LeadSchema>;
