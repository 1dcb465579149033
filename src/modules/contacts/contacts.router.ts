import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { limitParam } from '../../lib/pagination.ts';
import { OffsetParam } from '../../lib/query-params.ts';
import { ContactSchema } from './contacts.schemas.ts';
import { listContacts } from './contacts.service.ts';

export const ListContactsInputSchema = z.object({
  kind: z
    .enum(['client', 'lead'])
    .meta({ description: '`client`: people who have booked; `lead`: details only.', examples: ['client'] })
    .optional(),
  q: z
    .string()
    .max(200)
    .meta({ description: 'Case-insensitive substring of the name or e-mail address (`%` and `_` match themselves).', examples: ['ines'] })
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
        data: z.array(ContactSchema).meta({ description: 'This page’s contacts.' }),
        total: z.int().meta({ description: 'How many contacts match the filters, over all pages.', examples: [42] }),
        nextOffset: z.int().nullable().meta({ description: 'The `offset` of the next page; null on the last page.', examples: [20] }),
      }),
    )
    .query(({ ctx, input }) => listContacts(ctx.em, ctx.principal.userId, input)),
});
