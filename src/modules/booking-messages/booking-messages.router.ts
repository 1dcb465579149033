import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { BookingMessageSchema, MessageContentSchema } from './booking-messages.schemas.ts';
import { getMessageContent, listMessages, resendMessage } from './booking-messages.service.ts';
import { mailSettingsOf } from './compose.ts';

const BookingIdSchema = z.string().min(1).max(100).meta({ description: 'The booking.', examples: [EXAMPLE.bookingId] });
const MessageInputSchema = z.object({
  id: BookingIdSchema,
  messageId: z.string().min(1).max(100).meta({ description: 'The message.', examples: [EXAMPLE.messageId] }),
});

const TAGS = ['Bookings'];

/** The e-mail of a booking: what was (or will be) sent to whom, and resending what failed. */
export const bookingMessagesRouter = router({
  listMessages: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/bookings/{id}/messages',
        operationId: 'listBookingMessages',
        tags: TAGS,
        summary: 'List the e-mails of a booking',
        description:
          'Every e-mail the booking caused, oldest first: confirmations, updates and cancellations to the invitee, each ' +
          'guest and the host, and the reminders of its event type. One message per recipient. Each shows whether it ' +
          'is waiting (`scheduled`, `queued`), `sent`, `failed` (with the SMTP server’s reply in `lastError`) or ' +
          '`skipped` (why, in `lastError`: a reminder past or dropped, mail kept because no SMTP server is configured, ' +
          'or an occurrence told of by its series’ one message). A series’ one message per recipient is listed on the ' +
          'occurrence it went out on.',
      },
    })
    .input(z.object({ id: BookingIdSchema }))
    .output(z.object({ data: z.array(BookingMessageSchema).meta({ description: 'The messages, oldest first.' }) }))
    .query(async ({ ctx, input }) => ({ data: await listMessages(ctx.em, ctx.principal.userId, input.id) })),

  getMessage: scopedProcedure('read:bookings')
    .meta({
      openapi: {
        method: 'GET',
        path: '/bookings/{id}/messages/{messageId}',
        operationId: 'getBookingMessage',
        tags: TAGS,
        summary: 'Read one e-mail of a booking',
        description:
          'The message exactly as it is (or would be) sent: headers, text and HTML parts and the attached invitation, ' +
          'except that the invitee’s private manage link is masked. This is how a service without an SMTP server ' +
          'shows the mail it kept.',
      },
    })
    .input(MessageInputSchema)
    .output(MessageContentSchema)
    .query(({ ctx, input }) => getMessageContent(ctx.em, ctx.principal.userId, input, mailSettingsOf(ctx.env))),

  resendMessage: scopedProcedure('write:bookings')
    .meta({
      successStatus: 202,
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/bookings/{id}/messages/{messageId}/resend',
        operationId: 'resendBookingMessage',
        tags: TAGS,
        summary: 'Send a failed e-mail again',
        description:
          'Queues a new message with the failed one’s content, to the same recipient, due now (a body is optional); ' +
          'it has its own id and Message-ID and names the failed one in `resentFrom`, which keeps its error. Only a ' +
          '`failed` message can be resent (409 otherwise), and not a reminder of a canceled booking.',
      },
    })
    .input(MessageInputSchema)
    .output(BookingMessageSchema)
    .mutation(({ ctx, input }) => resendMessage(ctx.em, ctx.principal.userId, input, ctx.clock.now())),
});
