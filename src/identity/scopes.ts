import { z } from 'zod';

/** Every scope a token can carry, with the words the consent screen and settings page show for it. */
export const SCOPE_DESCRIPTIONS = {
  'read:profile': 'View your name, e-mail address and time zone',
  'write:profile': 'Change your name, time zone and booking-page address',
  'read:bookings': 'List and view your bookings',
  'write:bookings': 'Create, cancel and reschedule your bookings',
  'read:event-types': 'List and view your event types',
  'write:event-types': 'Create and edit your event types',
  'read:availability': 'View your schedules and availability rules',
  'write:availability': 'Edit your schedules and block dates',
  'read:leads': 'List and view the leads captured on your booking pages',
  'write:leads': 'Update the pipeline status of your leads',
  'read:contacts': 'List your contacts (people who booked or left their details)',
  'read:webhooks': 'List your webhook endpoints and their deliveries',
  'write:webhooks': 'Create, change and delete your webhook endpoints, and send test events',
  'read:calendars': 'List your connected calendars and their sync status',
  'write:calendars': 'Connect, change, sync and remove your connected calendars',
} as const;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;
export const ALL_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as Scope[];
export const ScopeSchema = z.enum(ALL_SCOPES as [Scope, ...Scope[]]).meta({ id: 'Scope' });

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPE_DESCRIPTIONS, value);
}
