import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';

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
