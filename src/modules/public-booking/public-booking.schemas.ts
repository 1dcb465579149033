import { z } from 'zod';
import { TimeZoneSchema } from '../../lib/time.ts';
import { EventTypeSchema } from '../event-types/event-types.schemas.ts';

/** How the booking page finds an event type: the owner's slug, the event type's slug, and for a secret one its private key. */
export const PublicEventTypeInputSchema = z.object({
  userSlug: z.string().min(1).max(100),
  eventTypeSlug: z.string().min(1).max(100),
  key: z.string().max(200).nullish().describe('The private link key; required for a secret event type.'),
});

export type PublicEventTypeInput = z.infer<typeof PublicEventTypeInputSchema>;

/** What the public booking page shows: no internal flags, plus the owner's name and time zone. */
export const PublicEventTypeSchema = EventTypeSchema.pick({
  id: true,
  name: true,
  slug: true,
  url: true,
  kind: true,
  durationsMin: true,
  color: true,
}).extend({
  minNoticeMin: z.int(),
  seatsPerSlot: z.int().describe('Invitees per slot (more than 1 only for group event types).'),
  owner: z.object({ name: z.string().nullable(), slug: z.string(), timezone: z.string() }),
});

export type PublicEventType = z.infer<typeof PublicEventTypeSchema>;

export const CaptureLeadInputSchema = z.object({
  eventTypeId: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().max(254),
  timezone: TimeZoneSchema,
});

export type CaptureLeadInput = z.infer<typeof CaptureLeadInputSchema>;

export const CaptureLeadOutputSchema = z.object({
  captured: z.literal(true),
});
