import { z } from 'zod';

export const UserSchema = z
  .object({
    id: z.string(),
    email: z.email(),
    name: z.string().nullable(),
    slug: z.string(),
    timezone: z.string().describe('IANA time zone name'),
  })
  .meta({ id: 'User', description: 'The authenticated user.' });

export type User = z.infer<typeof UserSchema>;
