import { busyTimeWriteOf } from '../bookings/busy-time-write.ts';
import { publicRateLimitedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { z } from 'zod';
import { cancelManagedBooking, getManagedBooking, rescheduleManagedBooking } from './managed-booking.service.ts';
import {
  CancelManagedBookingInputSchema,
  CaptureLeadInputSchema,
  CaptureLeadOutputSchema,
  ManagedBookingSchema,
  ManageTokenSchema,
  PublicAvailabilityInputSchema,
  PublicAvailabilityOutputSchema,
  PublicBookingInputSchema,
  PublicBookingResultSchema,
  PublicBookingSeriesInputSchema,
  PublicBookingSeriesResultSchema,
  PublicEventTypeInputSchema,
  PublicEventTypeSchema,
  PublicHoldInputSchema,
  PublicSlotHoldSchema,
  ReleasePublicHoldInputSchema,
  RescheduleManagedBookingInputSchema,
} from './public-booking.schemas.ts';
import { holdPublicly, releasePublicHold } from './public-holds.service.ts';
import { bookPublicly, bookSeriesPublicly, capturePublicLead, getPublicAvailability, getPublicEventType } from './public-booking.service.ts';

/**
 * The first-party booking page's procedures: unauthenticated, rate-limited per client address, served on
 * /trpc only (no `openapi` meta: they are not part of the token-protected /api/v2 contract).
 */
export const publicBookingRouter = router({
  eventType: publicRateLimitedProcedure
    .input(PublicEventTypeInputSchema)
    .output(PublicEventTypeSchema)
    .query(({ ctx, input }) => getPublicEventType(ctx.em, input, ctx.env.SITE_URL)),

  availability: publicRateLimitedProcedure
    .input(PublicAvailabilityInputSchema)
    .output(PublicAvailabilityOutputSchema)
    .query(({ ctx, input }) => getPublicAvailability(ctx.em, input, ctx.clock.now())),

  book: publicRateLimitedProcedure
    .meta({ idempotent: true })
    .input(PublicBookingInputSchema)
    .output(PublicBookingResultSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await bookPublicly(ctx.em, input, {
        ...busyTimeWriteOf(ctx),
        idempotency: ctx.idempotency,
        siteUrl: ctx.env.SITE_URL,
      });
      ctx.response.status = result.status;
      return result.links ? { ...result.booking, links: result.links } : result.booking;
    }),

  /** Holds the picked time while the invitee fills in the form (POST /slot-holds's rules); the answer's token makes it the page's. */
  hold: publicRateLimitedProcedure
    .input(PublicHoldInputSchema)
    .output(PublicSlotHoldSchema)
    .mutation(({ ctx, input }) =>
      holdPublicly(ctx.em, input, {
        ...busyTimeWriteOf(ctx),
        ttlMs: ctx.env.SLOT_HOLD_TTL,
        clientAddress: ctx.request.ip,
      }),
    ),

  /** Lets the page's hold go (the invitee went back to the times): 404 when it ended or is not this page's. */
  releaseHold: publicRateLimitedProcedure
    .input(ReleasePublicHoldInputSchema)
    .output(z.object({ released: z.literal(true) }))
    .mutation(({ ctx, input }) => releasePublicHold(ctx.em, input, ctx.clock.now())),

  bookSeries: publicRateLimitedProcedure
    .meta({ idempotent: true })
    .input(PublicBookingSeriesInputSchema)
    .output(PublicBookingSeriesResultSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await bookSeriesPublicly(ctx.em, input, {
        ...busyTimeWriteOf(ctx),
        idempotency: ctx.idempotency,
        siteUrl: ctx.env.SITE_URL,
      });
      ctx.response.status = result.status;
      return result.series;
    }),

  /** The invitee's private manage page: the booking its secret opens (404 for any other string). */
  managed: publicRateLimitedProcedure
    .input(z.object({ token: ManageTokenSchema }))
    .output(ManagedBookingSchema)
    .query(({ ctx, input }) => getManagedBooking(ctx.em, input.token, ctx.env.SITE_URL)),

  cancelManaged: publicRateLimitedProcedure
    .input(CancelManagedBookingInputSchema)
    .output(ManagedBookingSchema)
    .mutation(({ ctx, input }) => cancelManagedBooking(ctx.em, input, ctx.clock.now(), ctx.env.SITE_URL)),

  rescheduleManaged: publicRateLimitedProcedure
    .input(RescheduleManagedBookingInputSchema)
    .output(ManagedBookingSchema)
    .mutation(({ ctx, input }) =>
      rescheduleManagedBooking(ctx.em, input, {
        ...busyTimeWriteOf(ctx),
        siteUrl: ctx.env.SITE_URL,
      }),
    ),

  captureLead: publicRateLimitedProcedure
    .input(CaptureLeadInputSchema)
    .output(CaptureLeadOutputSchema)
    .mutation(({ ctx, input }) => capturePublicLead(ctx.em, input, ctx.clock.now())),
});
