import { busyTimeWriteOf } from './busy-time-write.ts';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { holderOf } from '../slot-holds/hold-rules.ts';
import { createBooking } from './booking-creation.service.ts';
import { BookingSchema, CreateBookingInputSchema } from './bookings.schemas.ts';

export const bookingCreationRouter = router({
  create: scopedProcedure('write:bookings')
    .meta({
      successStatus: 201,
      idempotent: true,
      errorStatuses: [409, 422],
      openapi: {
        method: 'POST',
        path: '/bookings',
        operationId: 'createBooking',
        tags: ['Bookings'],
        summary: 'Book a slot on one of the user’s event types',
        description:
          'Creates a booking at `start` for `durationMin` minutes: `active`, or `pending` (holding the slot until the ' +
          'host confirms or declines it) when the event type has `requiresConfirmation`. The slot must be one GET /availability ' +
          'offers for that duration: otherwise 409 (outside the hours, off the grid, in the past or within the ' +
          'minimum notice, outside the booking window, on a day, week or month its limits have filled, already ' +
          'taken, or a duration the event type does not offer); an inactive event type is also 409. Double bookings are impossible: the database refuses overlapping busy time of one host, and a ' +
          'request that loses a race gets 409. Group event types take several invitees per slot up to their seats; ' +
          'round-robin ones assign the least recently booked free host; collective ones need every host free. ' +
          'With an `Idempotency-Key`, a retry (same key, same body) returns the first response again with ' +
          '`Idempotent-Replayed: true` instead of a 409; the same key with another body is 422. ' +
          "An unbooked lead of this event type with the invitee's e-mail (any letter case) becomes booked. " +
          'With `holdId`, books the slot of your hold (POST /slot-holds) and ends it: nobody else could take it meanwhile; ' +
          'a hold that ended, or another credential’s, is 404, and a `start`, `durationMin` or `eventTypeId` other than ' +
          'the hold’s is 400 on that field. ' +
          'Where it happens: `location` chooses one of the event type’s `locations` (it may be left out when there is ' +
          'one; a missing or wrong choice is 400 naming the field), and the booking’s `location` says the place.',
      },
    })
    .input(CreateBookingInputSchema)
    .output(BookingSchema)
    .mutation(async ({ ctx, input }) => {
      const result = await createBooking(ctx.em, input, {
        caller: { kind: 'owner', userId: ctx.principal.userId },
        ...busyTimeWriteOf(ctx),
        idempotency: ctx.idempotency,
        holder: holderOf(ctx.principal),
      });
      ctx.response.status = result.status;
      return result.booking;
    }),
});
