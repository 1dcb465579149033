import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { limitParam } from '../../lib/pagination.ts';
import { OffsetParam } from '../../lib/query-params.ts';
import { ContactSchema } from './contacts.schemas.ts';
import { listContacts } from './contacts.service.ts';

export const ListContactsInputSchema = z.object({
  kind: z.enum(['client', 'lead']).describe('`client`: people who have booked; `lead`: details only.').optional(),
  q: z
    .string()
    .max(200)
    .describe('Case-insensitive substring of the name or e-mail address (`%` and `_` match themselves).')
    .optional(),
  offset: OffsetParam,
  limit: limitParam(50, 200),
});

export const contactsRouter = router({
  list: scopedProcedure('read:contacts')
    .meta({
      openapi: {
        method: 'GET',
        path: '/contacts',
        operationId: 'listContacts',
        tags: ['Contacts'],
        summary: 'List contacts',
        description:
          'Clients and leads merged by e-mail address (case-insensitively), most recent activity first. ' +
          'Paged by offset: pass `nextOffset` as `offset` for the next page.',
      },
    })
    .input(ListContactsInputSchema)
    .output(
      z.object({
        data: z.array(ContactSchema),
        total: z.int().describe('How many contacts match the filters, over all pages.'),
        nextOffset: z.int().nullable().describe('The `offset` of the next page; null on the last page.'),
      }),
    )
    .query(({ ctx, input }) => listContacts(ctx.em, ctx.principal.userId, input)),
});
