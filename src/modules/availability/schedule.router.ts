import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { ScheduleInputSchema, ScheduleSchema } from './schedule.schemas.ts';
import { getSchedule, replaceSchedule } from './schedule.service.ts';

export const scheduleRouter = router({
  get: scopedProcedure('read:availability')
    .meta({
      openapi: { method: 'GET', path: '/schedule', tags: ['Availability'], summary: 'Get the weekly schedule and date overrides', operationId: 'getSchedule' },
    })
    .input(z.void())
    .output(ScheduleSchema)
    .query(({ ctx }) => getSchedule(ctx.em, ctx.principal.userId)),

  replace: scopedProcedure('write:availability')
    .meta({
      openapi: { method: 'PUT', path: '/schedule', tags: ['Availability'], summary: 'Replace the weekly schedule and date overrides', operationId: 'replaceSchedule' },
    })
    .input(ScheduleInputSchema)
    .output(ScheduleSchema)
    .mutation(({ ctx, input }) => replaceSchedule(ctx.em, ctx.principal.userId, input)),
});
