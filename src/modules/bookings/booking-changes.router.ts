import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { confirmBooking, declineBooking } from './booking-confirmation.service.ts';
import { busyTimeWriteOf } from './busy-time-write.ts';
import { setBookingNoShow } from './booking-no-show.service.ts';
import { rescheduleBooking } from './booking-reschedule.service.ts';
import { BookingSchema } from './bookings.schemas.ts';

const BookingIdSchema = z.string().min(1).max(100).meta({ description: 'The booking.', examples: [EXAMPLE.bookingId] });

export const RescheduleBookingInputSchema = z.strictObject({
  id: BookingIdSchema,
  start: z.iso
    .datetime({ offset: true })
    .meta({ description: 'The new start, as returned by /availability.', examples: ['2026-12-02T14:00:00Z'] }),
  durationMin: z
    .int()
    .min(1)
    .max(1440)
    .meta({ description: 'The new duration: one of the event type’s durations. Default: the booking’s current duration.', examples: [30] })
    .optional(),
});

export const BookingNoShowInputSchema = z.strictObject({
  id: BookingIdSchema,
  noShow: z.boolean().default(true).meta({ description: '`false` takes a no-show mark back.', examples: [true] }),
});

export const DeclineBookingInputSchema = z.strictObject({
  id: BookingIdSchema,
  reason: z
    .string()
    .max(500)
    .meta({ description: 'Why the booking is declined; at most 500 characters.', examples: ['I am away that week, sorry.'] })
    .optional(),
});

/** Changes to an existing booking: rescheduling, no-shows, confirming and declining (cancellation is DELETE /bookings/{id}). */
export const bookingChangesRouter = router({
  reschedule: scopedProcedure('write:bookings')
    .meta({
      idempotent: true,
      errorStatuses: [409, 422],
      openapi: {
        method: 'POST',
        path: '/bookings/{id}/reschedule',
        operationId: 'rescheduleBooking',
        tags: ['Bookings'],
        summary: 'Move a booking to another slot',
        description:
          'Moves the booking (same id, same invitee) to `start`, for `durationMin` minutes (default: its current ' +
          'duration). The new slot must be one GET /availability would offer, counting the booking’s own current ' +
          'time as free (so it can move by less than its length): otherwise 409 (outside the hours, off the grid, ' +
          'in the past or within the minimum notice, taken, or a duration the event type does not offer). A canceled ' +
          'booking or an inactive event type is 409. The old time is freed in the same transaction; on any failure ' +
          'the booking keeps its old time. Naturally idempotent: moving a booking to the time it already has ' +
          'answers 200 with it unchanged; an `Idempotency-Key` replays the first response, as for POST /bookings. ' +
          'A round-robin booking keeps its host when that host is free at the new time. A no-show mark is cleared.',
      },
    })
    .input(RescheduleBookingInputSchema)
    .output(BookingSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await rescheduleBooking(ctx.em, ctx.principal.userId, input, {
        ...busyTimeWriteOf(ctx),
        idempotency: ctx.idempotency,
      });
      return result.booking;
    }),

  markNoShow: scopedProcedure('write:bookings')
    .meta({
      repeatable: true,
      openapi: {
        method: 'POST',
        path: '/bookings/{id}/no-show',
        operationId: 'markBookingNoShow',
        tags: ['Bookings'],
        summary: 'Mark the invitee of a booking as a no-show',
        description:
          'Records that the invitee did not attend (`noShow: true`, the default; send `{}`), or takes that back ' +
          '(`noShow: false`). The contact’s `noShows` counts the marked bookings. Only a booking whose start has ' +
          'passed and that is not canceled can be marked (409 otherwise). Idempotent: setting the value the booking ' +
          'already has changes nothing. The Booking resource does not show the mark.',
      },
    })
    .input(BookingNoShowInputSchema)
    .output(BookingSchema)
    .mutation(({ ctx, input }) => setBookingNoShow(ctx.em, ctx.principal.userId, input, ctx.clock.now())),

  confirm: scopedProcedure('write:bookings')
    .meta({
      repeatable: true,
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/bookings/{id}/confirm',
        operationId: 'confirmBooking',
        tags: ['Bookings'],
        summary: 'Confirm a pending booking',
        description:
          'A `pending` booking (of an event type with `requiresConfirmation`) becomes `active`; the event ' +
          '`booking.confirmed` is sent, the invitee and guests are e-mailed their confirmation with the invitation ' +
          '(`.ics`), the host a note, and the event type’s reminders are planned. Confirming an active booking answers 200 with it unchanged. A canceled or ' +
          'declined booking, or a pending one whose start has passed (it is declined then), is 409. No request body.',
      },
    })
    .input(z.strictObject({ id: BookingIdSchema }))
    .output(BookingSchema)
    .mutation(({ ctx, input }) => confirmBooking(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),

  decline: scopedProcedure('write:bookings')
    .meta({
      repeatable: true,
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/bookings/{id}/decline',
        operationId: 'declineBooking',
        tags: ['Bookings'],
        summary: 'Decline a pending booking',
        description:
          'A `pending` booking becomes `declined` with the optional `reason` (send `{}` for none), and its time is free again; the ' +
          'event `booking.declined` is sent, and the invitee and guests are e-mailed the decline with the reason. Declining a declined booking answers 200 with it unchanged (the first ' +
          'reason stays). An active booking is 409: cancel it instead (DELETE /bookings/{id}); a canceled one is 409 too.',
      },
    })
    .input(DeclineBookingInputSchema)
    .output(BookingSchema)
    .mutation(({ ctx, input }) => declineBooking(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
