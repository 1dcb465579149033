import { z } from 'zod';
import { PLANS } from '../../identity/user.entity.ts';

export const SessionUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  slug: z.string(),
  timezone: z.string(),
  plan: z.enum(PLANS),
});

/** What the web app needs to start: who is signed in, and the token to echo in `x-csrf-token`. */
export const CurrentSessionSchema = z
  .object({
    user: SessionUserSchema,
    csrfToken: z.string(),
  })
  .nullable();
export type CurrentSession = z.infer<typeof CurrentSessionSchema>;
