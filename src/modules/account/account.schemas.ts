import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../identity/password-strength.ts';
import { PLANS } from '../../identity/user.entity.ts';
import { BookingSchema } from '../bookings/bookings.schemas.ts';
import { CalendarConnectionSchema } from '../calendars/calendars.schemas.ts';
import { ContactSchema } from '../contacts/contacts.schemas.ts';
import { EventTypeSchema } from '../event-types/event-types.schemas.ts';
import { LeadSchema } from '../leads/leads.schemas.ts';
import { ScheduleSchema } from '../availability/schedule.schemas.ts';
import { UserSchema } from '../users/users.schemas.ts';
import { WebhookEndpointSchema } from '../webhooks/webhooks.schemas.ts';

/** The password the signed-in user types to confirm a sensitive change; checked, never held to the strength rule. */
const CurrentPasswordSchema = z.string().min(1, 'Enter your current password.').max(MAX_PASSWORD_LENGTH);

export const ChangeEmailInputSchema = z.strictObject({
  email: z.string().normalize('NFKC').trim().max(254, 'The e-mail address is too long.').pipe(z.email('Enter a valid e-mail address.')),
  currentPassword: CurrentPasswordSchema,
});
export type ChangeEmailInput = z.infer<typeof ChangeEmailInputSchema>;

export const ChangePasswordInputSchema = z.strictObject({
  currentPassword: CurrentPasswordSchema,
  newPassword: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`)
    .max(MAX_PASSWORD_LENGTH, `The password can be at most ${MAX_PASSWORD_LENGTH} characters.`),
});
export type ChangePasswordInput = z.infer<typeof ChangePasswordInputSchema>;

export const SignOutEverywhereInputSchema = z.strictObject({
  /** Whether the session making the call stays signed in. */
  keepCurrent: z.boolean(),
});

export const DeleteAccountInputSchema = z.strictObject({ password: CurrentPasswordSchema });

/** How many sessions a change ended (sign out everywhere, a new password). */
export const SignedOutSchema = z.object({ signedOutSessions: z.int().min(0) });

export const AccountDeletedSchema = z.object({ deleted: z.literal(true) });

/** Everything the account holds, as the API shows each resource; secrets (webhook, calendar) are left out. */
export const AccountExportSchema = z.object({
  exportedAt: z.iso.datetime(),
  user: UserSchema.extend({ plan: z.enum(PLANS), createdAt: z.iso.datetime(), previousSlugs: z.array(z.string()) }),
  eventTypes: z.array(EventTypeSchema),
  schedule: ScheduleSchema,
  bookings: z.array(BookingSchema),
  leads: z.array(LeadSchema),
  contacts: z.array(ContactSchema),
  webhookEndpoints: z.array(WebhookEndpointSchema),
  calendarConnections: z.array(CalendarConnectionSchema),
});
export type AccountExport = z.infer<typeof AccountExportSchema>;
