import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';

/**
 * `request`: a booking that waits for the host's confirmation was made; `decline`: the host declined it (or nobody
 * confirmed it before its start); `confirmation` follows a request's confirmation as it follows a booking.
 */
export const MESSAGE_KINDS = ['confirmation', 'update', 'cancellation', 'reminder', 'request', 'decline'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** Who a message is for: the invitee, one of the guests they added, or the host. */
export const MESSAGE_AUDIENCES = ['invitee', 'guest', 'host'] as const;
export type MessageAudience = (typeof MESSAGE_AUDIENCES)[number];

export const MESSAGE_STATUSES = ['scheduled', 'queued', 'sent', 'failed', 'skipped'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const BookingMessageSchema = z
  .object({
    id: z.string().meta({ description: 'The message’s id (its Message-ID is `<id@SITE_URL’s host>`).', examples: [EXAMPLE.messageId] }),
    kind: z.enum(MESSAGE_KINDS).meta({
      description:
        'What the message says: `confirmation` (booked, or a request confirmed), `update` (a new time), ' +
        '`cancellation`, `reminder`, `request` (a booking waiting for the host’s confirmation was made) or ' +
        '`decline` (that request was declined, or not confirmed before its start).',
      examples: ['confirmation'],
    }),
    audience: z.enum(MESSAGE_AUDIENCES).meta({ description: 'Who it is for: the invitee, a guest or the host.', examples: ['invitee'] }),
    recipient: z.string().meta({ description: 'The address it goes to (one recipient per message).', examples: [EXAMPLE.email] }),
    status: z.enum(MESSAGE_STATUSES).meta({
      description:
        '`scheduled` (a reminder waiting for its time), `queued` (due; being sent or retried), `sent` (accepted by ' +
        'the SMTP server), `failed` (refused for good, or out of retries: see `lastError`), `skipped` (never sent: ' +
        '`lastError` says why, e.g. no SMTP server is configured and the message was kept).',
      examples: ['sent'],
    }),
    scheduledFor: z.iso.datetime().meta({ description: 'When it is (or was) due.', examples: [EXAMPLE.createdAt] }),
    sentAt: z.iso.datetime().nullable().meta({ description: 'When the SMTP server accepted it; null until then.', examples: [EXAMPLE.createdAt] }),
    attempts: z.int().meta({ description: 'How many times sending was tried.', examples: [1] }),
    lastError: z
      .string()
      .nullable()
      .meta({ description: 'Why the last attempt failed (the SMTP server’s reply), or why it was skipped.', examples: [null] }),
    serverReply: z
      .string()
      .nullable()
      .meta({
        description:
          'What the SMTP server answered when it accepted the message (e.g. `250 2.0.0 Ok: queued as 4BcD1`): the handle ' +
          'to find it in the server’s log. Null until it is sent; a refusal’s reply is in `lastError`.',
        examples: ['250 2.0.0 Ok: queued as 4BcD1'],
      }),
    resentFrom: z
      .string()
      .nullable()
      .meta({ description: 'The failed message this one sends again, if it is a resend.', examples: [null] }),
  })
  .meta({ id: 'BookingMessage', description: 'One e-mail about a booking, to one recipient.' });

export type BookingMessage = z.infer<typeof BookingMessageSchema>;

/** The message as it goes (or would have gone) out, for the host to read. */
export const MessageContentSchema = z
  .object({
    message: BookingMessageSchema,
    from: z.string().meta({ description: 'The From header.', examples: ['Scheduling <no-reply@scheduling.example>'] }),
    to: z.string().meta({ description: 'The To header.', examples: [EXAMPLE.email] }),
    subject: z.string().meta({ description: 'The subject.', examples: ['Confirmed: Intro call with Olivia Host'] }),
    messageIdHeader: z.string().meta({ description: 'The Message-ID header, the same on every attempt.', examples: ['<5d7f9b1e-3c5a-4e7b-9d1f-2b4d6f8a0c53@scheduling.example>'] }),
    text: z.string().meta({ description: 'The plain-text part.', examples: ['Your booking is confirmed.'] }),
    html: z.string().meta({ description: 'The HTML part.', examples: ['<!doctype html>…'] }),
    ics: z
      .string()
      .nullable()
      .meta({ description: 'The attached invitation (`text/calendar`), or null when the message has none.', examples: [null] }),
  })
  .meta({
    id: 'BookingMessageContent',
    description: 'A message exactly as it is sent, except that the invitee’s private manage link is masked.',
  });

export type MessageContent = z.infer<typeof MessageContentSchema>;
