import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { BookingSchema } from '../bookings/bookings.schemas.ts';
import { LeadSchema } from '../leads/leads.schemas.ts';

export const ContactSchema = z
  .object({
    email: z.email().meta({ description: 'The person’s e-mail address, as last written.', examples: [EXAMPLE.email] }),
    name: z.string().nullable().meta({ description: 'The person’s most recent name, if any.', examples: [EXAMPLE.name] }),
    kind: z
      .enum(['client', 'lead'])
      .meta({ description: '`client` once the person has booked; `lead` for details only.', examples: ['client'] }),
    status: z
      .string()
      .meta({ description: 'The pipeline status of a lead; `client` once the person has booked.', examples: ['client'] }),
    meetings: z.int().meta({ description: 'Active (non-canceled) bookings.', examples: [2] }),
    noShows: z.int().meta({ description: 'Bookings marked as no-show.', examples: [0] }),
    lastActivityAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'The latest booking, cancellation or lead.', examples: [EXAMPLE.createdAt] }),
    firstSeenAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'The person’s first booking or lead.', examples: ['2026-10-12T15:20:00Z'] }),
  })
  .meta({ id: 'Contact', description: 'A person, merged by e-mail (case-insensitively) across invitees and leads.' });

export type Contact = z.infer<typeof ContactSchema>;

/**
 * A booking in a contact's history: when, what and how it went. What the invitee wrote (notes, answers, guests,
 * a cancellation reason) and where the meeting happens stay with the booking itself, behind `read:bookings`.
 */
export const ContactBookingSchema = BookingSchema.pick({
  id: true,
  eventType: true,
  startAt: true,
  endAt: true,
  durationMin: true,
  status: true,
  noShow: true,
  canceledAt: true,
  canceledBy: true,
  createdAt: true,
})
  .required({ noShow: true })
  .meta({ id: 'ContactBooking', description: 'One of the contact’s bookings, as their history shows it.' });

/** A lead in a contact's history: the event type's page they left their details on, and where it stands. */
export const ContactLeadSchema = LeadSchema.pick({
  id: true,
  eventType: true,
  status: true,
  booked: true,
  bookingId: true,
  createdAt: true,
  completedAt: true,
}).meta({ id: 'ContactLead', description: 'One of the contact’s leads, as their history shows it.' });

export const ContactHistorySchema = z
  .object({
    contact: ContactSchema,
    bookings: z
      .object({
        data: z.array(ContactBookingSchema).meta({ description: 'The latest bookings, by start time, latest first.' }),
        total: z.int().meta({ description: 'All of the contact’s bookings, active and canceled.', examples: [3] }),
      })
      .meta({ description: 'The bookings the person made under this address (in any letter case).' }),
    leads: z
      .object({
        data: z.array(ContactLeadSchema).meta({ description: 'The latest leads, newest first.' }),
        total: z.int().meta({ description: 'All of the contact’s leads.', examples: [1] }),
      })
      .meta({ description: 'The times the person left their details under this address.' }),
  })
  .meta({ id: 'ContactHistory', description: 'A contact with their bookings and leads.' });

export type ContactBooking = z.infer<typeof ContactBookingSchema>;
export type ContactLead = z.infer<typeof ContactLeadSchema>;
export type ContactHistory = z.infer<typeof ContactHistorySchema>;
