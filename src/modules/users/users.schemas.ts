import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';

export const UserSchema = z
  .object({
    id: z.string().meta({ description: 'The user’s id.', examples: [EXAMPLE.userId] }),
    email: z.email().meta({ description: 'The e-mail address the user signs in with.', examples: [EXAMPLE.hostEmail] }),
    name: z.string().nullable().meta({ description: 'The user’s display name, if set.', examples: ['Olivia Host'] }),
    slug: z.string().meta({ description: 'The first segment of the user’s booking page URLs.', examples: ['olivia'] }),
    timezone: z.string().meta({ description: 'The user’s IANA time zone.', examples: [EXAMPLE.timezone] }),
  })
  .meta({ id: 'User', description: 'The authenticated user.' });

export type User = z.infer<typeof UserSchema>;
