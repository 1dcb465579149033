import { z } from 'zod';

export const ContactSchema = z
  .object({
    email: z.email(),
    name: z.string().nullable(),
    kind: z.enum(['client', 'lead']).describe('`client` once the person has booked; `lead` for details only.'),
    status: z.string().describe('The pipeline status of a lead; `client` once the person has booked.'),
    meetings: z.int().describe('Active (non-canceled) bookings.'),
    noShows: z.int(),
    lastActivityAt: z.iso.datetime().nullable(),
    firstSeenAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Contact', description: 'A person, merged by e-mail (case-insensitively) across invitees and leads.' });

export type Contact = z.infer<typeof ContactSchema>;
