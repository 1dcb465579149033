import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { busyTimeWriteOf } from '../bookings/busy-time-write.ts';
import { holderOf } from './hold-rules.ts';
import { CreateSlotHoldInputSchema, SlotHoldIdInputSchema, SlotHoldSchema } from './slot-holds.schemas.ts';
import { createSlotHold, getSlotHold, releaseSlotHold } from './slot-holds.service.ts';

const TAGS = ['Slot holds'];

export const slotHoldsRouter = router({
  create: scopedProcedure('write:bookings')
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/slot-holds',
        operationId: 'createSlotHold',
        tags: TAGS,
        summary: 'Hold a slot while the invitee decides',
        description:
          'Keeps a slot GET /availability offers for you until `expiresAt` (the service’s `SLOT_HOLD_TTL`, 10 minutes ' +
          'unless its operator set another): nobody else can book or hold it, and /availability does not offer it. ' +
          'Book it with POST /bookings and `holdId` (the same credential: the same user’s tokens, or the same OAuth ' +
          'app), or a series from it with POST /booking-series and `holdId`, or let it go with DELETE /slot-holds/{id}; once it ends, the slot is like any other. Round robin holds ' +
          'the host a booking would get now; collective holds every host. A time the event type does not offer (in ' +
          'the past, within the minimum notice, outside the booking window or the hours, off the slot grid) is 400 on ' +
          '`startAt`, a duration it does not offer 400 on `durationMin`, a group event type 400 on `eventTypeId`; a ' +
          'slot already booked or held, or a day its limits have filled, is 409, as is an inactive event type.',
      },
    })
    .input(CreateSlotHoldInputSchema)
    .output(SlotHoldSchema)
    .mutation(({ ctx, input }) =>
      createSlotHold(ctx.em, input, {
        caller: { kind: 'owner', userId: ctx.principal.userId },
        holder: holderOf(ctx.principal),
        ...busyTimeWriteOf(ctx),
        ttlMs: ctx.env.SLOT_HOLD_TTL,
      }),
    ),

  get: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/slot-holds/{id}',
        operationId: 'getSlotHold',
        tags: TAGS,
        summary: 'Get one of your slot holds',
        description: 'A hold you made and that has not ended; one that ended, was booked or let go, or another credential’s, is 404.',
      },
    })
    .input(SlotHoldIdInputSchema)
    .output(SlotHoldSchema)
    .query(({ ctx, input }) => getSlotHold(ctx.em, holderOf(ctx.principal), input.id, ctx.clock.now())),

  release: scopedProcedure('write:bookings')
    .meta({
      successStatus: 204,
      openapi: {
        method: 'DELETE',
        path: '/slot-holds/{id}',
        operationId: 'releaseSlotHold',
        tags: TAGS,
        summary: 'Let a slot hold go',
        description: 'Frees the held slot at once. A hold that ended, was booked or let go already, or another credential’s, is 404.',
      },
    })
    .input(SlotHoldIdInputSchema)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await releaseSlotHold(ctx.em, holderOf(ctx.principal), input.id, ctx.clock.now());
    }),
});
