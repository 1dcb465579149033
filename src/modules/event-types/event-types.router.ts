import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EventTypeSchema } from './event-types.schemas.ts';
import { listEventTypes } from './event-types.service.ts';

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
    .output(z.object({ data: z.array(EventTypeSchema) }))
    .query(async ({ ctx }) => ({ data: await listEventTypes(ctx.em, ctx.principal.userId, ctx.env.SITE_URL) })),
});
