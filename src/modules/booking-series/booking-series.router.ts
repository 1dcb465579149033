import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { busyTimeWriteOf } from '../bookings/busy-time-write.ts';
import { holderOf } from '../slot-holds/hold-rules.ts';
import { createBookingSeries } from './booking-series-creation.service.ts';
import {
  BookingSeriesSchema,
  CancelBookingSeriesInputSchema,
  CreateBookingSeriesInputSchema,
  DeclineBookingSeriesInputSchema,
  SeriesIdSchema,
} from './booking-series.schemas.ts';
import { cancelBookingSeries, confirmBookingSeries, declineBookingSeries, getBookingSeries } from './booking-series.service.ts';

export const bookingSeriesRouter = router({
  create: scopedProcedure('write:bookings')
    .meta({
      successStatus: 201,
      idempotent: true,
      errorStatuses: [409, 422],
      openapi: {
        method: 'POST',
        path: '/booking-series',
        operationId: 'createBookingSeries',
        tags: ['Bookings'],
        summary: 'Book a recurring series on one of the user’s event types',
        description:
          'Books `recurrence.count` occurrences from `startAt`, every `interval` days, weeks or months, each keeping the ' +
          'first one’s wall-clock time in the host’s time zone (a monthly series on the 29th to 31st falls on the last ' +
          'day of shorter months). All or nothing, in one transaction: when any occurrence is not one POST /bookings ' +
          'would accept (taken, busy in a connected calendar, outside the hours, the booking window or the minimum ' +
          'notice, over a limit — which counts the series’ own occurrences too), or the event type takes no series ' +
          '(`recurrence: null`) or shorter ones (`recurrence.maxCount`), the answer is 409 and nothing is booked; its ' +
          '`details` name each failing occurrence (`startAt`, `path: ["occurrences", i]`) and each reason (`code`, as ' +
          'GET /availability/explain names it). Each occurrence is an ordinary booking carrying `seriesId`: listed, ' +
          'fetched, rescheduled, canceled, confirmed or declined alone, with its own webhook event, reminders and later ' +
          'e-mails; the series is confirmed by e-mail once (to the invitee, each guest and the host, on the first ' +
          'occurrence, its invitation an event per occurrence), or for an event type with `requiresConfirmation` asked ' +
          'for once (see POST /booking-series/{id}/confirm and /decline; when the first pending occurrence starts ' +
          'unconfirmed, every pending one is declined with it, told once). Round robin gives every ' +
          'occurrence the same host: the fairest one free for all of them. With `holdId`, the first occurrence books ' +
          'the time of your hold (POST /slot-holds) and the hold ends, so nobody could take it meanwhile (round robin ' +
          'keeps the held host when they are free for every occurrence); a refused series leaves the hold as it was. ' +
          'A hold that ended, or another credential’s, is 404, and a `startAt`, `durationMin` or `eventTypeId` other ' +
          'than the hold’s is 400 on that field. With an `Idempotency-Key`, a retry returns the first response again.',
      },
    })
    .input(CreateBookingSeriesInputSchema)
    .output(BookingSeriesSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await createBookingSeries(ctx.em, input, {
        caller: { kind: 'owner', userId: ctx.principal.userId },
        ...busyTimeWriteOf(ctx),
        idempotency: ctx.idempotency,
        holder: holderOf(ctx.principal),
      });
      ctx.response.status = result.status;
      return result.series;
    }),

  get: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/booking-series/{id}',
        operationId: 'getBookingSeries',
        tags: ['Bookings'],
        summary: 'Get a booking series with its occurrences',
        description: 'One of the user’s series, with every occurrence (earliest first, whatever its status); another user’s or an unknown one is 404.',
      },
    })
    .input(z.object({ id: SeriesIdSchema }))
    .output(BookingSeriesSchema)
    .query(({ ctx, input }) => getBookingSeries(ctx.em, ctx.principal.userId, input.id)),

  cancel: scopedProcedure('write:bookings')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/booking-series/{id}',
        operationId: 'cancelBookingSeries',
        tags: ['Bookings'],
        summary: 'Cancel the occurrences of a series still to come',
        description:
          'Cancels, as the host, every occurrence that has not started yet (active or pending), each exactly as ' +
          'DELETE /bookings/{id} would (its time freed, its `booking.canceled` event, its reminders dropped, calendar ' +
          'copies), and answers the series. The invitee, each guest and the host get ONE cancellation e-mail for all ' +
          'of them (its invitation cancels each occurrence’s event), not one per occurrence. Occurrences already past ' +
          'or canceled stay as they are, so canceling again is harmless.',
      },
    })
    .input(CancelBookingSeriesInputSchema)
    .output(BookingSeriesSchema)
    .mutation(({ ctx, input }) => cancelBookingSeries(ctx.em, ctx.principal.userId, input, ctx.clock.now())),

  confirm: scopedProcedure('write:bookings')
    .meta({
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/booking-series/{id}/confirm',
        operationId: 'confirmBookingSeries',
        tags: ['Bookings'],
        summary: 'Confirm the pending occurrences of a series',
        description:
          'Every `pending` occurrence of the series (an event type with `requiresConfirmation`) that has not started ' +
          'becomes `active`, each exactly as POST /bookings/{id}/confirm would (its `booking.confirmed` event, the event ' +
          'type’s reminders planned), in one transaction, and answers the series (as GET /booking-series/{id}). The ' +
          'invitee, each guest and the host get ONE confirmation e-mail for all of them, the invitee’s and guests’ with ' +
          'an invitation holding an event per occurrence. 409 when no pending occurrence is left (each is confirmed, ' +
          'declined, canceled or has started). No request body.',
      },
    })
    .input(z.strictObject({ id: SeriesIdSchema }))
    .output(BookingSeriesSchema)
    .mutation(({ ctx, input }) => confirmBookingSeries(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),

  decline: scopedProcedure('write:bookings')
    .meta({
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/booking-series/{id}/decline',
        operationId: 'declineBookingSeries',
        tags: ['Bookings'],
        summary: 'Decline the pending occurrences of a series',
        description:
          'Every `pending` occurrence of the series that has not started becomes `declined` with the optional `reason` ' +
          '(send `{}` for none), its time free again, each exactly as POST /bookings/{id}/decline would (its ' +
          '`booking.declined` event, calendar copies removed), in one transaction, and answers the series. The ' +
          'invitee, each guest and the host get ONE decline e-mail for all of them, with the reason. 409 when no ' +
          'pending occurrence is left.',
      },
    })
    .input(DeclineBookingSeriesInputSchema)
    .output(BookingSeriesSchema)
    .mutation(({ ctx, input }) => declineBookingSeries(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
