import { publicRateLimitedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { AvailabilityInputSchema, AvailabilityOutputSchema } from '../availability/availability.schemas.ts';
import { BookingSchema, CreateBookingInputSchema } from '../bookings/bookings.schemas.ts';
import {
  CaptureLeadInputSchema,
  CaptureLeadOutputSchema,
  PublicEventTypeInputSchema,
  PublicEventTypeSchema,
} from './public-booking.schemas.ts';
import { bookPublicly, capturePublicLead, getPublicAvailability, getPublicEventType } from './public-booking.service.ts';

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
    .input(AvailabilityInputSchema)
    .output(AvailabilityOutputSchema)
    .query(({ ctx, input }) => getPublicAvailability(ctx.em, input, ctx.clock.now())),

  book: publicRateLimitedProcedure
    .meta({ idempotent: true })
    .input(CreateBookingInputSchema)
    .output(BookingSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await bookPublicly(ctx.em, input, {
        now: ctx.clock.now(),
        idempotency: ctx.idempotency,
        deadline: ctx.request.deadline,
      });
      ctx.response.status = result.status;
      return result.booking;
    }),

  captureLead: publicRateLimitedProcedure
    .input(CaptureLeadInputSchema)
    .output(CaptureLeadOutputSchema)
    .mutation(({ ctx, input }) => capturePublicLead(ctx.em, input, ctx.clock.now())),
});
