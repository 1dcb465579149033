import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { limitParam } from '../../lib/pagination.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { OffsetParam } from '../../lib/query-params.ts';
import { getContactHistory } from './contact-history.service.ts';
import { ContactHistorySchema, ContactSchema } from './contacts.schemas.ts';
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

export const ContactHistoryInputSchema = z.object({
  email: z
    .email()
    .max(254)
    .meta({ description: 'The contact’s e-mail address, in any letter case.', examples: [EXAMPLE.email] }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .meta({ description: 'At most this many of the latest bookings, and of the latest leads: default 20, maximum 100.', examples: [20] }),
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

  history: scopedProcedure('read:contacts')
    .meta({
      openapi: {
        method: 'GET',
        path: '/contacts/{email}/history',
        operationId: 'getContactHistory',
        tags: ['Contacts'],
        summary: 'Get a contact’s history',
        description:
          'The contact with their latest bookings (by start time) and leads (by capture time), latest first, and how many ' +
          'there are of each. The address matches in any letter case; one that is not a contact of the user is 404. ' +
          'A booking shows when, what and how it went; what the invitee wrote is on the booking (`GET /bookings/{id}`).',
      },
    })
    .input(ContactHistoryInputSchema)
    .output(ContactHistorySchema)
    .query(({ ctx, input }) => getContactHistory(ctx.em, ctx.principal.userId, input.email, input.limit)),
});
