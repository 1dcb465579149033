import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { CreateEventTypeInputSchema, EventTypeIdInputSchema, UpdateEventTypeInputSchema } from './event-type-input.schemas.ts';
import { EventTypeSchema } from './event-types.schemas.ts';
import { createEventType, deactivateEventType, getEventType, listEventTypes, regeneratePrivateLink, updateEventType } from './event-types.service.ts';

const SETTINGS_NOTE =
  'Every setting written is returned by every read. `minimumNoticeMin`, `slotIntervalMin`, `seatsPerSlot`, ' +
  '`bookingWindow` and `limits` shape the slots GET /availability offers (and POST /bookings accepts); a range ' +
  'window whose `end` is before its `start`, or a limit below 1, is 400. `description` and `locations` show on the ' +
  'booking page; with several locations the invitee chooses one (POST /bookings `location`).';

export const eventTypesRouter = router({
  list: scopedProcedure('read:event-types')
    .meta({
      openapi: {
        method: 'GET',
        path: '/event-types',
        operationId: 'listEventTypes',
        tags: ['Event types'],
        summary: "List the authenticated user's event types",
        description: 'Every event type the user owns, active or not, oldest first.',
      },
    })
    .input(z.void())
    .output(z.object({ data: z.array(EventTypeSchema).meta({ description: 'The event types, oldest first.' }) }))
    .query(async ({ ctx }) => ({ data: await listEventTypes(ctx.em, ctx.principal.userId, ctx.env.SITE_URL) })),

  get: scopedProcedure('read:event-types')
    .meta({
      openapi: {
        method: 'GET',
        path: '/event-types/{id}',
        operationId: 'getEventType',
        tags: ['Event types'],
        summary: 'Get one event type',
        description:
          'One event type the user owns, active or not; another user’s or an unknown one is 404. A secret event ' +
          'type’s `url` has no private key (only the responses that create a key carry it).',
      },
    })
    .input(EventTypeIdInputSchema)
    .output(EventTypeSchema)
    .query(({ ctx, input }) => getEventType(ctx.em, ctx.principal.userId, input.id, ctx.env.SITE_URL)),

  create: scopedProcedure('write:event-types')
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/event-types',
        operationId: 'createEventType',
        tags: ['Event types'],
        summary: 'Create an event type',
        description:
          'Creates an event type hosted by the authenticated user. The slug defaults to one derived from the name ' +
          '(made unique with `-2`, `-3`…); an explicit slug the user already has is 409. A secret event type gets a ' +
          `private link, which its \`url\` carries in this response only. ${SETTINGS_NOTE} Round-robin and collective event types are ` +
          'hosted by the owner alone: the API does not manage other hosts. Unknown fields are 400.',
      },
    })
    .input(CreateEventTypeInputSchema)
    .output(EventTypeSchema)
    .mutation(async ({ ctx, input }) => {
      return createEventType(ctx.em, ctx.principal.userId, input, ctx.clock.now(), ctx.env.SITE_URL);
    }),

  update: scopedProcedure('write:event-types')
    .meta({
      errorStatuses: [409],
      openapi: {
        method: 'PATCH',
        path: '/event-types/{id}',
        operationId: 'updateEventType',
        tags: ['Event types'],
        summary: 'Change an event type',
        description:
          'Changes the fields sent; absent fields keep their value. `kind` cannot change (400): create another ' +
          'event type instead. A slug the user already has on another event type is 409. Turning `secret` on ' +
          `creates a new private link (in this response's \`url\` only); turning it off discards it. ${SETTINGS_NOTE} Existing bookings are not ` +
          'touched: they keep their time, duration and the buffers they were booked with. `active: true` reactivates.',
      },
    })
    .input(UpdateEventTypeInputSchema)
    .output(EventTypeSchema)
    .mutation(({ ctx, input }) => updateEventType(ctx.em, ctx.principal.userId, input, ctx.clock.now(), ctx.env.SITE_URL)),

  deactivate: scopedProcedure('write:event-types')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/event-types/{id}',
        operationId: 'deactivateEventType',
        tags: ['Event types'],
        summary: 'Deactivate an event type',
        description:
          'Sets `active` to false: the event type offers no slots and refuses bookings; its bookings and leads keep ' +
          'their history. There is no hard delete through the API. Idempotent: deactivating an inactive event type ' +
          'answers 200 with it unchanged. PATCH with `active: true` reactivates it.',
      },
    })
    .input(EventTypeIdInputSchema)
    .output(EventTypeSchema)
    .mutation(({ ctx, input }) => deactivateEventType(ctx.em, ctx.principal.userId, input.id, ctx.clock.now(), ctx.env.SITE_URL)),

  regeneratePrivateLink: scopedProcedure('write:event-types')
    .meta({
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/event-types/{id}/private-link',
        operationId: 'regenerateEventTypePrivateLink',
        tags: ['Event types'],
        summary: "Replace a secret event type's private link",
        description:
          'Creates a new key for the private link of a secret event type and returns the event type with the new ' +
          'link in `url`. The key is stored hashed: this response is the only place it appears, and the old link ' +
          'stops working at once. 409 when the event type is not secret.',
      },
    })
    .input(EventTypeIdInputSchema)
    .output(EventTypeSchema)
    .mutation(({ ctx, input }) => regeneratePrivateLink(ctx.em, ctx.principal.userId, input.id, ctx.clock.now(), ctx.env.SITE_URL)),
});
