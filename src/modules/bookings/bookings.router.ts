import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { CursorParam, cursorPage, limitParam } from '../../lib/pagination.ts';
import { dateTimeQueryParam } from '../../lib/query-params.ts';
import { BookingSchema, BookingStatusSchema } from './bookings.schemas.ts';
import { cancelBooking, getBooking, listBookings } from './bookings.service.ts';

export const ListBookingsInputSchema = z
  .object({
    status: BookingStatusSchema.meta({ description: 'Only bookings with this status.', examples: ['active'] }).optional(),
    eventTypeId: z
      .string()
      .min(1)
      .max(100)
      // No example: an example id is nobody's event type, and "Try it" would send it, so the list would come back empty.
      .meta({ description: 'Only bookings of this event type.' })
      .optional(),
    order: z
      .enum(['desc', 'asc'])
      .default('desc')
      .meta({
        description: 'By start time: `desc` latest first (the default), `asc` earliest first (e.g. upcoming bookings, soonest first).',
        examples: ['asc'],
      }),
    from: dateTimeQueryParam('Only bookings starting at or after this instant (RFC 3339).', EXAMPLE.from).optional(),
    to: dateTimeQueryParam('Only bookings starting at or before this instant (RFC 3339); not before `from` (400 otherwise).', EXAMPLE.to).optional(),
    cursor: CursorParam,
    limit: limitParam(50, 100),
  })
  .superRefine((input, issues) => {
    if (input.from && input.to && new Date(input.from) > new Date(input.to)) {
      issues.addIssue({ code: 'custom', path: ['to'], message: 'must not be before from' });
    }
  });

export const CancelBookingInputSchema = z.object({
  id: z.string().min(1).max(100).meta({ description: 'The booking to cancel.', examples: [EXAMPLE.bookingId] }),
  reason: z
    .string()
    .max(500)
    .meta({ description: 'Why the booking is canceled; at most 500 characters.', examples: ['Something came up, sorry!'] })
    .optional(),
});

export const bookingsRouter = router({
  list: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/bookings',
        operationId: 'listBookings',
        tags: ['Bookings'],
        summary: "List the user's bookings",
        description:
          'Newest first: by start time, latest first (bookings starting at the same instant in a fixed order); ' +
          '`order=asc` lists earliest first. ' +
          'Page through with `nextCursor`; a cursor is valid only with the same filters and the same user.',
      },
    })
    .input(ListBookingsInputSchema)
    .output(cursorPage(BookingSchema))
    .query(({ ctx, input }) =>
      listBookings(ctx.em, ctx.principal.userId, {
        status: input.status,
        eventTypeId: input.eventTypeId,
        order: input.order,
        from: input.from === undefined ? undefined : new Date(input.from),
        to: input.to === undefined ? undefined : new Date(input.to),
        cursor: input.cursor,
        limit: input.limit,
      }),
    ),

  get: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/bookings/{id}',
        operationId: 'getBooking',
        tags: ['Bookings'],
        summary: 'Get one booking',
        description: 'One booking of the user’s event types, active or canceled; another user’s or an unknown one is 404.',
      },
    })
    .input(z.object({ id: z.string().min(1).max(100).meta({ description: 'The booking.', examples: [EXAMPLE.bookingId] }) }))
    .output(BookingSchema)
    .query(({ ctx, input }) => getBooking(ctx.em, ctx.principal.userId, input.id)),

  cancel: scopedProcedure('write:bookings')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/bookings/{id}',
        operationId: 'cancelBooking',
        tags: ['Bookings'],
        summary: 'Cancel a booking',
        description:
          'Cancels the booking as the host and frees its time. Idempotent: canceling a canceled booking ' +
          'answers 200 with the booking unchanged (the first cancellation’s time and reason stay).',
      },
    })
    .input(CancelBookingInputSchema)
    .output(BookingSchema)
    .mutation(({ ctx, input }) => cancelBooking(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
