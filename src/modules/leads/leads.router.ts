import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { CursorParam, cursorPage, limitParam } from '../../lib/pagination.ts';
import { booleanQueryParam } from '../../lib/query-params.ts';
import { LeadSchema, LeadStatusSchema } from './leads.schemas.ts';
import { getLead, listLeads, updateLeadStatus } from './leads.service.ts';

export const ListLeadsInputSchema = z.object({
  status: LeadStatusSchema.meta({ description: 'Only leads in this pipeline status.', examples: ['new'] }).optional(),
  booked: booleanQueryParam('`true`: only leads that converted into a booking; `false`: only those that did not.', false).optional(),
  cursor: CursorParam,
  limit: limitParam(50, 100),
});

const LeadIdSchema = z.string().min(1).max(100).meta({ description: 'The lead.', examples: [EXAMPLE.leadId] });

export const UpdateLeadInputSchema = z.strictObject({
  id: LeadIdSchema,
  status: LeadStatusSchema.meta({ description: 'The new pipeline status: any status may follow any other.', examples: ['contacted'] }),
});

export const leadsRouter = router({
  list: scopedProcedure('read:leads')
    .meta({
      openapi: {
        method: 'GET',
        path: '/leads',
        operationId: 'listLeads',
        tags: ['Leads'],
        summary: 'List captured leads',
        description:
          'Newest first (by capture time). Page through with `nextCursor`; a cursor is valid only with the same filters and the same user.',
      },
    })
    .input(ListLeadsInputSchema)
    .output(cursorPage(LeadSchema))
    .query(({ ctx, input }) => listLeads(ctx.em, ctx.principal.userId, input)),

  get: scopedProcedure('read:leads')
    .meta({
      openapi: {
        method: 'GET',
        path: '/leads/{id}',
        operationId: 'getLead',
        tags: ['Leads'],
        summary: 'Get one lead',
        description: 'One lead the user captured; another user’s or an unknown one is 404.',
      },
    })
    .input(z.object({ id: LeadIdSchema }))
    .output(LeadSchema)
    .query(({ ctx, input }) => getLead(ctx.em, ctx.principal.userId, input.id)),

  update: scopedProcedure('write:leads')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/leads/{id}',
        operationId: 'updateLead',
        tags: ['Leads'],
        summary: "Change a lead's pipeline status",
        description:
          'Sets the pipeline status (`new`, `contacted`, `qualified` or `lost`); any status may follow any other. ' +
          'A contact who has not booked shows the status of their most recent lead; once the person has booked, ' +
          'the contact status is `client` whatever their leads say.',
      },
    })
    .input(UpdateLeadInputSchema)
    .output(LeadSchema)
    .mutation(({ ctx, input }) => updateLeadStatus(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
