import { z } from 'zod';
import { scopedProcedure } from '../../api/procedures.ts';
import { router } from '../../api/trpc.ts';
import { DomainError } from '../../lib/errors.ts';
import { EXAMPLE } from '../../lib/examples.ts';
import { CursorParam, cursorPage, limitParam } from '../../lib/pagination.ts';
import { type Delivery, DeliverySchema, WebhookEndpointSchema, WebhookEventTypeSchema, WebhookSecretSchema } from './webhooks.schemas.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  MAX_ENDPOINTS_PER_USER,
  redeliver,
  rotateWebhookSecret,
  sendTestEvent,
  TEST_EVENTS_PER_MINUTE,
  type TestEventOutcome,
  updateWebhook,
} from './webhooks.service.ts';

const WebhookIdSchema = z.string().min(1).max(100).meta({ description: 'The webhook endpoint.', examples: [EXAMPLE.webhookId] });
const WebhookUrlSchema = z
  .string()
  .max(2000)
  .meta({
    description:
      'Where events are POSTed: `https://` on a public host (private, loopback, metadata, documentation and other special-purpose addresses are refused, ' +
      'unless the service runs with `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`, for development only).',
    examples: ['https://hooks.example.com/scheduling'],
  });
const EventsSchema = z
  .array(WebhookEventTypeSchema)
  .min(1)
  .max(20)
  .meta({
    description: 'The event kinds to receive (`ping` comes only from the test operation).',
    examples: [['booking.created', 'booking.canceled']],
  });
const DescriptionSchema = z.string().max(500).meta({ description: 'A note for yourself, at most 500 characters.', examples: ['CRM sync'] });

export const CreateWebhookInputSchema = z.strictObject({
  url: WebhookUrlSchema,
  events: EventsSchema,
  description: DescriptionSchema.optional(),
  active: z.boolean().default(true).meta({ description: 'Whether events are delivered to it.', examples: [true] }),
});

export const UpdateWebhookInputSchema = z.strictObject({
  id: WebhookIdSchema,
  url: WebhookUrlSchema.optional(),
  events: EventsSchema.optional(),
  description: DescriptionSchema.nullable()
    .meta({ description: 'A note for yourself, at most 500 characters; null removes it.', examples: ['CRM sync'] })
    .optional(),
  active: z
    .boolean()
    .meta({ description: '`true` re-enables an endpoint the service disabled, clearing `disabledReason`.', examples: [true] })
    .optional(),
});

const WebhookIdInputSchema = z.object({ id: WebhookIdSchema });

const TAGS = ['Webhooks'];
const policyOf = (env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean }) => ({
  allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
});

export const webhooksRouter = router({
  create: scopedProcedure('write:webhooks')
    .meta({
      successStatus: 201,
      errorStatuses: [409],
      openapi: {
        method: 'POST',
        path: '/webhooks',
        operationId: 'createWebhook',
        tags: TAGS,
        summary: 'Register a webhook endpoint',
        description:
          'Returns the endpoint and its signing `secret`, which no other response shows again (it is stored ' +
          `encrypted, so that deliveries can be signed). At most ${MAX_ENDPOINTS_PER_USER} endpoints per user (409 beyond). ` +
          'A URL that is not `https://` or whose host is or resolves to anything but a public unicast address (private, ' +
          'loopback, link-local, CGNAT, multicast, unspecified, metadata, documentation, NAT64 and the other IANA ' +
          'special-purpose ranges) is 400.',
      },
    })
    .input(CreateWebhookInputSchema)
    .output(WebhookEndpointSchema.extend({ secret: WebhookSecretSchema }))
    .mutation(async ({ ctx, input }) => {
      return createWebhook(ctx.em, ctx.principal.userId, input, policyOf(ctx.env), ctx.clock.now());
    }),

  list: scopedProcedure('read:webhooks')
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks',
        operationId: 'listWebhooks',
        tags: TAGS,
        summary: 'List webhook endpoints',
        description: "The user's endpoints, oldest first, without their secrets.",
      },
    })
    .input(z.void())
    .output(z.object({ data: z.array(WebhookEndpointSchema).meta({ description: 'The endpoints, oldest first.' }) }))
    .query(async ({ ctx }) => ({ data: await listWebhooks(ctx.em, ctx.principal.userId) })),

  get: scopedProcedure('read:webhooks')
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks/{id}',
        operationId: 'getWebhook',
        tags: TAGS,
        summary: 'Get a webhook endpoint',
        description: 'One endpoint, without its secret.',
      },
    })
    .input(WebhookIdInputSchema)
    .output(WebhookEndpointSchema)
    .query(({ ctx, input }) => getWebhook(ctx.em, ctx.principal.userId, input.id)),

  update: scopedProcedure('write:webhooks')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/webhooks/{id}',
        operationId: 'updateWebhook',
        tags: TAGS,
        summary: 'Change a webhook endpoint',
        description:
          'Changes the fields sent; absent fields keep their value. `active: true` turns a disabled endpoint back ' +
          'on and clears `disabledReason`.',
      },
    })
    .input(UpdateWebhookInputSchema)
    .output(WebhookEndpointSchema)
    .mutation(({ ctx, input }) => updateWebhook(ctx.em, ctx.principal.userId, input, policyOf(ctx.env))),

  delete: scopedProcedure('write:webhooks')
    .meta({
      successStatus: 204,
      openapi: {
        method: 'DELETE',
        path: '/webhooks/{id}',
        operationId: 'deleteWebhook',
        tags: TAGS,
        summary: 'Delete a webhook endpoint',
        description: 'The endpoint is gone (404 afterwards) and its pending deliveries are dropped.',
      },
    })
    .input(WebhookIdInputSchema)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteWebhook(ctx.em, ctx.principal.userId, input.id);
    }),

  rotateSecret: scopedProcedure('write:webhooks')
    .meta({
      openapi: {
        method: 'POST',
        path: '/webhooks/{id}/rotate-secret',
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: "Replace a webhook endpoint's signing secret",
        description:
          'Returns the new secret (shown this once). For 24 hours deliveries carry two signatures, by the old and ' +
          'the new secret, so receivers can switch without dropping events.',
      },
    })
    .input(WebhookIdInputSchema)
    .output(z.object({ secret: WebhookSecretSchema }))
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.em, ctx.principal.userId, input.id, ctx.clock.now())),

  test: scopedProcedure('write:webhooks')
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/webhooks/{id}/test',
        operationId: 'testWebhook',
        tags: TAGS,
        summary: 'Send a test event',
        description:
          'Queues a `ping` event (`data: {webhookId}`) to this endpoint alone. A disabled endpoint gets none (409). ' +
          `At most ${TEST_EVENTS_PER_MINUTE} a minute per endpoint: beyond, 429 with \`Retry-After\`.`,
      },
    })
    .input(WebhookIdInputSchema)
    .output(DeliverySchema)
    .mutation(async ({ ctx, input }) => {
      return queuedOrRateLimited(ctx.response.headers, await sendTestEvent(ctx.em, ctx.principal.userId, input.id, ctx.clock.now()));
    }),

  deliveries: scopedProcedure('read:webhooks')
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks/{id}/deliveries',
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: "List a webhook endpoint's deliveries",
        description: 'Newest first. Page through with `nextCursor`; a cursor is valid only for the same endpoint and user.',
      },
    })
    .input(z.object({ id: WebhookIdSchema, cursor: CursorParam, limit: limitParam(20, 100) }))
    .output(cursorPage(DeliverySchema))
    .query(({ ctx, input }) => listDeliveries(ctx.em, ctx.principal.userId, input)),

  redeliver: scopedProcedure('write:webhooks')
    .meta({
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
        operationId: 'redeliverWebhook',
        tags: TAGS,
        summary: 'Deliver an event again',
        description: 'Queues the same event (same `webhook-id`, same body) again now, as a new delivery.',
      },
    })
    .input(z.object({ id: WebhookIdSchema, deliveryId: z.string().min(1).max(100).meta({ description: 'The delivery to repeat.', examples: [EXAMPLE.deliveryId] }) }))
    .output(DeliverySchema)
    .mutation(async ({ ctx, input }) => {
      return queuedOrRateLimited(ctx.response.headers, await redeliver(ctx.em, ctx.principal.userId, input, ctx.clock.now()));
    }),
});

function queuedOrRateLimited(headers: Record<string, string>, outcome: TestEventOutcome): Delivery {
  if ('queued' in outcome) return outcome.queued;
  headers['Retry-After'] = String(outcome.retryAfterSec);
  headers['Cache-Control'] = 'no-store';
  throw new DomainError(
    'rate_limited',
    `At most ${TEST_EVENTS_PER_MINUTE} test events a minute per webhook endpoint. Retry after ${outcome.retryAfterSec} seconds.`,
  );
}
