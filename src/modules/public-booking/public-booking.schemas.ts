import { z } from 'zod';
import { TimeZoneSchema } from '../../lib/time.ts';
import { AvailabilityInputSchema, AvailabilityOutputSchema } from '../availability/availability.schemas.ts';
import { BookingSchema, CreateBookingInputSchema } from '../bookings/bookings.schemas.ts';
import { EventTypeSchema } from '../event-types/event-types.schemas.ts';
import { CreateSlotHoldInputSchema, SlotHoldSchema } from '../slot-holds/slot-holds.schemas.ts';
import { BookingSeriesSchema, CreateBookingSeriesInputSchema } from '../booking-series/booking-series.schemas.ts';
import { LOCATION_KINDS } from '../event-types/event-type-locations.schemas.ts';

/** A secret event type's private link key (the `key` of its link): every public read and write of it needs it. */
const PrivateLinkKeySchema = z.string().max(200).nullish().describe('The private link key; required for a secret event type.');

/** The invitee's private manage link secret, as it appears in /book/manage/<token>. */
export const ManageTokenSchema = z.string().min(1).max(200).describe('The secret of the private manage link.');

/** What opens a secret event type to the public procedures. */
export interface EventTypeAccess {
  key?: string | null | undefined;
  /** A manage token of one of its active bookings (availability only: the invitee reschedules). */
  manageToken?: string | undefined;
}

/** How the booking page finds an event type: the owner's slug, the event type's slug, and for a secret one its private key. */
export const PublicEventTypeInputSchema = z.object({
  userSlug: z.string().min(1).max(100),
  eventTypeSlug: z.string().min(1).max(100),
  key: PrivateLinkKeySchema,
});

/** GET /availability's input, plus what opens a secret event type: its key, or the manage token of a booking of it. */
export const PublicAvailabilityInputSchema = AvailabilityInputSchema.safeExtend({
  key: PrivateLinkKeySchema,
  manageToken: ManageTokenSchema.optional().describe('The manage token of a booking of this event type (rescheduling it).'),
});

export type PublicAvailabilityInput = z.infer<typeof PublicAvailabilityInputSchema>;

/** The slots alone: the public never sees the hosts' connected calendars (docs/decisions.md, "Connected calendars"). */
export const PublicAvailabilityOutputSchema = AvailabilityOutputSchema.pick({ data: true });

export type PublicAvailabilityOutput = z.infer<typeof PublicAvailabilityOutputSchema>;

/** The secret the booking page gets with its hold: only it can book with the hold or let it go. */
const HoldTokenSchema = z.string().min(1).max(200).describe('The hold token the hold procedure answered.');

/** POST /bookings's body, plus the private link key of a secret event type and, with `holdId`, the hold's token. */
export const PublicBookingInputSchema = CreateBookingInputSchema.extend({ key: PrivateLinkKeySchema, holdToken: HoldTokenSchema.optional() });

/** POST /slot-holds's body, plus the private link key of a secret event type. */
export const PublicHoldInputSchema = CreateSlotHoldInputSchema.extend({ key: PrivateLinkKeySchema });

export type PublicHoldInput = z.infer<typeof PublicHoldInputSchema>;

/** The hold as the page sees it: no host ids, and the token that makes it the page's own (shown once). */
export const PublicSlotHoldSchema = SlotHoldSchema.omit({ hostIds: true }).extend({
  holdToken: z.string().describe('A bearer secret: pass it with `holdId` to book with the hold or let it go.'),
});

export type PublicSlotHold = z.infer<typeof PublicSlotHoldSchema>;

export const ReleasePublicHoldInputSchema = z.object({ holdId: z.string().min(1).max(64), holdToken: HoldTokenSchema });

export type ReleasePublicHoldInput = z.infer<typeof ReleasePublicHoldInputSchema>;

export type PublicBookingInput = z.infer<typeof PublicBookingInputSchema>;

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
  recurrence: true,
}).extend({
  minNoticeMin: z.int(),
  seatsPerSlot: z.int().describe('Invitees per slot (more than 1 only for group event types).'),
  requiresConfirmation: z.boolean().describe('Bookings wait for the host to confirm them (the page says "request").'),
  owner: z.object({ name: z.string().nullable(), slug: z.string(), timezone: z.string() }),
  description: z.string().nullable().describe('Plain text; line breaks kept.'),
  locations: z
    .array(
      z.object({
        kind: z.enum(LOCATION_KINDS),
        address: z.string().nullable().describe('The address of an `in_person` location; null for the other kinds.'),
      }),
    )
    .describe('The places to choose from; the host’s number and link are shown once booked.'),
});

export type PublicEventType = z.infer<typeof PublicEventTypeSchema>;

export const CaptureLeadInputSchema = z.object({
  eventTypeId: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().max(254),
  timezone: TimeZoneSchema,
  key: PrivateLinkKeySchema,
});

export type CaptureLeadInput = z.infer<typeof CaptureLeadInputSchema>;

export const CaptureLeadOutputSchema = z.object({
  captured: z.literal(true),
});

/** Where the invitee adds the booking to a calendar, and (in the booking's creation response only) manages it. */
export const InviteeLinksSchema = z.object({
  manage: z.string().describe('The private page to cancel or reschedule: a bearer secret, shown once.'),
  ics: z.string().describe('The booking as an .ics file.'),
  google: z.string(),
  outlook: z.string(),
});

export type InviteeLinks = z.infer<typeof InviteeLinksSchema>;

/** The public booking procedure's answer: the Booking plus the invitee's links (absent on an idempotent replay). */
export const PublicBookingResultSchema = BookingSchema.extend({ links: InviteeLinksSchema.optional() });

/** POST /booking-series's body, plus the private link key of a secret event type and, with `holdId`, the hold's token. */
export const PublicBookingSeriesInputSchema = CreateBookingSeriesInputSchema.extend({ key: PrivateLinkKeySchema, holdToken: HoldTokenSchema.optional() });

export type PublicBookingSeriesInput = z.infer<typeof PublicBookingSeriesInputSchema>;

/** The series as the invitee sees it: each occurrence with its own links (absent on an idempotent replay). */
export const PublicBookingSeriesResultSchema = BookingSeriesSchema.omit({ hostId: true }).extend({
  bookings: z.array(PublicBookingResultSchema),
});

export type PublicBookingSeriesResult = z.infer<typeof PublicBookingSeriesResultSchema>;

/** What the manage page shows: the booking as the invitee sees it, what to reschedule within, and the links. */
export const ManagedBookingSchema = z.object({
  booking: BookingSchema.pick({
    id: true,
    startAt: true,
    endAt: true,
    durationMin: true,
    status: true,
    location: true,
    invitee: true,
    canceledAt: true,
    canceledBy: true,
  }),
  eventType: PublicEventTypeSchema.pick({ id: true, name: true, durationsMin: true, color: true, owner: true }).extend({
    active: z.boolean(),
    url: z
      .url()
      .nullable()
      .describe('The booking page, to book again; null for a secret event type, whose private link the invitee may not hold.'),
  }),
  host: z.object({ name: z.string().nullable() }),
  links: InviteeLinksSchema,
  /** Until when the invitee may cancel or reschedule here (the event type's notice before the start); null: no notice. */
  changesUntil: z.object({ cancel: z.iso.datetime().nullable(), reschedule: z.iso.datetime().nullable() }),
});

export type ManagedBooking = z.infer<typeof ManagedBookingSchema>;

export const CancelManagedBookingInputSchema = z.object({
  token: ManageTokenSchema,
  reason: z.string().max(500).optional(),
});

export const RescheduleManagedBookingInputSchema = z.object({
  token: ManageTokenSchema,
  start: z.iso.datetime({ offset: true }).describe('The new start, as the availability procedure offers it.'),
});
