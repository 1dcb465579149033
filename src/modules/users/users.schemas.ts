import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { TimeZoneSchema } from '../../lib/time.ts';
import {
  USER_SLUG_LENGTH_PROBLEM,
  USER_SLUG_MAX,
  USER_SLUG_MIN,
  USER_SLUG_SHAPE,
  USER_SLUG_SHAPE_PROBLEM,
  userSlugProblem,
} from './user-slug.ts';

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

/** A display name as every text input of the service takes it: NFKC-folded, trimmed, 1 to 200 characters. */
export const DisplayNameSchema = z.string().normalize('NFKC').trim().min(1).max(200);

/** The length and shape as JSON Schema shows them (each stops the checks), then the whole rule: reserved words. */
export const UserSlugSchema = z
  .string()
  .min(USER_SLUG_MIN, { message: USER_SLUG_LENGTH_PROBLEM, abort: true })
  .max(USER_SLUG_MAX, { message: USER_SLUG_LENGTH_PROBLEM, abort: true })
  .regex(USER_SLUG_SHAPE, { message: USER_SLUG_SHAPE_PROBLEM, abort: true })
  .superRefine((slug, context) => {
    const problem = userSlugProblem(slug);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      `The booking pages' first path segment: ${USER_SLUG_MIN} to ${USER_SLUG_MAX} lowercase letters, digits and hyphens ` +
      '(starting and ending with a letter or digit), not a reserved word such as `app` or `api`. The old one keeps ' +
      'redirecting to the new one; a slug any user has or had is taken (409).',
    examples: ['olivia'],
  });

/** What a token may change of its user (`PATCH /me`); absent fields keep their value. */
export const UpdateMeInputSchema = z
  .strictObject({
    name: DisplayNameSchema.nullable()
      .optional()
      .meta({ description: 'The display name (1 to 200 characters), or null to remove it.', examples: ['Olivia Host'] }),
    timezone: TimeZoneSchema.optional(),
    slug: UserSlugSchema.optional(),
  })
  .meta({ description: 'The profile fields to change; absent fields keep their value.' });

export type UpdateMeInput = z.infer<typeof UpdateMeInputSchema>;
