import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { CalendarConnectionSchema, CreateConnectionInputSchema, UpdateConnectionInputSchema } from './calendars.schemas.ts';
import {
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  MAX_CONNECTIONS_PER_USER,
  requestSync,
  updateConnection,
} from './calendars.service.ts';

const ConnectionIdInputSchema = z.object({
  id: z.string().min(1).max(100).meta({ description: 'The calendar connection.', examples: [EXAMPLE.calendarConnectionId] }),
});

const TAGS = ['Calendars'];
const policyOf = (env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: boolean }) => ({ allowPrivateNetworks: env.CALENDAR_ALLOW_PRIVATE_NETWORKS });

export const calendarsRouter = router({
  create: scopedProcedure('write:calendars')
    .meta({
      successStatus: 201,
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/calendar-connections',
        operationId: 'createCalendarConnection',
        tags: TAGS,
        summary: 'Connect a calendar',
        description:
          'Connects an iCalendar feed (`kind: "ics"`) or a CalDAV account (`kind: "caldav"`, its calendars discovered); ' +
          'their events count as busy time for availability and booking. The answer never waits on the calendar ' +
          'server, even for a wrong password: the connection is `pending`, and its first sync, which starts at once, ' +
          'turns it `ok` or `error`. The URL and credentials are stored encrypted and never shown again. An address ' +
          'that is not `https://` (or `webcal://` for a feed) or whose host resolves to anything but a public address ' +
          `is 400. At most ${MAX_CONNECTIONS_PER_USER} connections per user (409 beyond).`,
      },
    })
    .input(CreateConnectionInputSchema)
    .output(CalendarConnectionSchema)
    .mutation(({ ctx, input }) => createConnection(ctx.em, ctx.principal.userId, input, policyOf(ctx.env), ctx.clock.now())),

  list: scopedProcedure('read:calendars')
    .meta({
      openapi: {
        method: 'GET',
        path: '/calendar-connections',
        operationId: 'listCalendarConnections',
        tags: TAGS,
        summary: 'List connected calendars',
        description: "The user's connections, oldest first, with their sync status.",
      },
    })
    .input(z.void())
    .output(z.object({ data: z.array(CalendarConnectionSchema).meta({ description: 'The connections, oldest first.' }) }))
    .query(async ({ ctx }) => ({ data: await listConnections(ctx.em, ctx.principal.userId) })),

  get: scopedProcedure('read:calendars')
    .meta({
      openapi: {
        method: 'GET',
        path: '/calendar-connections/{id}',
        operationId: 'getCalendarConnection',
        tags: TAGS,
        summary: 'Get a connected calendar',
        description: 'One connection with its calendars and sync status.',
      },
    })
    .input(ConnectionIdInputSchema)
    .output(CalendarConnectionSchema)
    .query(({ ctx, input }) => getConnection(ctx.em, ctx.principal.userId, input.id)),

  update: scopedProcedure('write:calendars')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/calendar-connections/{id}',
        operationId: 'updateCalendarConnection',
        tags: TAGS,
        summary: 'Change a connected calendar',
        description:
          'Renames it and sets which of its calendars count as busy (at once) and which receives bookings: at most ' +
          "one calendar across the user's connections (400 otherwise), and never a feed's, which is read-only.",
      },
    })
    .input(UpdateConnectionInputSchema)
    .output(CalendarConnectionSchema)
    .mutation(({ ctx, input }) => updateConnection(ctx.em, ctx.principal.userId, input)),

  delete: scopedProcedure('write:calendars')
    .meta({
      successStatus: 204,
      openapi: {
        method: 'DELETE',
        path: '/calendar-connections/{id}',
        operationId: 'deleteCalendarConnection',
        tags: TAGS,
        summary: 'Remove a connected calendar',
        description: 'The connection is gone (404 afterwards) and its busy times stop counting at once.',
      },
    })
    .input(ConnectionIdInputSchema)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteConnection(ctx.em, ctx.principal.userId, input.id);
    }),

  sync: scopedProcedure('write:calendars')
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/calendar-connections/{id}/sync',
        operationId: 'syncCalendarConnection',
        tags: TAGS,
        summary: 'Sync a connected calendar now',
        description: 'Queues a sync now (a body is optional); the answer does not wait for it. Its outcome shows in `status`, `lastSyncedAt` and `lastError`.',
      },
    })
    .input(ConnectionIdInputSchema)
    .output(CalendarConnectionSchema)
    .mutation(({ ctx, input }) => requestSync(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),
});
