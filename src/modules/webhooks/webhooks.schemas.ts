import { z } from 'zod';
import { EXAMPLE } from '../../lib/examples.ts';
import { BookingSchema } from '../bookings/bookings.schemas.ts';
import { LeadSchema } from '../leads/leads.schemas.ts';

/** What an endpoint can subscribe to; `ping` is not among them: it comes only from POST /webhooks/{id}/test. */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'booking.created',
  'booking.rescheduled',
  'booking.canceled',
  'booking.no_show',
  'booking.requested',
  'booking.confirmed',
  'booking.declined',
  'lead.created',
  'lead.updated',
  'lead.converted',
] as const;

export const WebhookEventTypeSchema = z
  .enum(SUBSCRIBABLE_EVENT_TYPES)
  .meta({ id: 'WebhookEventType', description: 'A kind of change a webhook endpoint can receive.', examples: ['booking.created'] });
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema> | 'ping';

export const WebhookEndpointSchema = z
  .object({
    id: z.string().meta({ description: 'The endpoint’s id.', examples: [EXAMPLE.webhookId] }),
    url: z.url().meta({ description: 'Where events are POSTed.', examples: ['https://hooks.example.com/scheduling'] }),
    events: z
      .array(WebhookEventTypeSchema)
      .meta({ description: 'The event kinds it receives.', examples: [['booking.created', 'booking.canceled']] }),
    description: z.string().nullable().meta({ description: 'A note for the owner, if any.', examples: ['CRM sync'] }),
    active: z.boolean().meta({ description: 'Whether events are delivered to it.', examples: [true] }),
    disabledReason: z
      .string()
      .nullable()
      .meta({
        description: 'Why the service turned the endpoint off (410 Gone, or failing for 5 days); null otherwise.',
        examples: [null],
      }),
    createdAt: z.iso.datetime().meta({ description: 'When the endpoint was registered.', examples: [EXAMPLE.createdAt] }),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookSecretSchema = z
  .string()
  .meta({
    description: 'The signing secret (`whsec_` + base64 of 32 random bytes): shown in this response only.',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3wC7Hc8qYzE='],
  });

export const DeliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed']).meta({
  id: 'WebhookDeliveryStatus',
  description: '`pending` while attempts remain, then `succeeded` (a 2xx) or `failed`.',
  examples: ['succeeded'],
});

export const DeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The delivery’s id.', examples: [EXAMPLE.deliveryId] }),
    eventId: z.string().meta({
      description: 'The event id, sent as `webhook-id`: the same on every attempt and redelivery.',
      examples: [EXAMPLE.webhookEventId],
    }),
    eventType: z.string().meta({ description: 'The kind of event delivered (or `ping`).', examples: ['booking.created'] }),
    body: z.string().meta({
      description: 'The JSON body POSTed, exactly the bytes that were signed: the same on every attempt and redelivery.',
      examples: [`{"id":"${EXAMPLE.webhookEventId}","type":"ping","createdAt":"${EXAMPLE.createdAt}","data":{"webhookId":"${EXAMPLE.webhookId}"}}`],
    }),
    status: DeliveryStatusSchema,
    attempts: z.int().meta({ description: 'Attempts made so far.', examples: [1] }),
    lastStatusCode: z.int().nullable().meta({ description: 'The HTTP status of the last attempt; null when none answered.', examples: [200] }),
    lastError: z.string().nullable().meta({ description: 'Why the last attempt failed, if it did.', examples: [null] }),
    nextAttemptAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When the next attempt is due; null when none is.', examples: [null] }),
    createdAt: z.iso.datetime().meta({ description: 'When the event was queued for this endpoint.', examples: [EXAMPLE.createdAt] }),
    deliveredAt: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'When a 2xx was received; null until then.', examples: ['2026-11-24T10:15:01Z'] }),
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

/** What each event's `data` is: the resource exactly as the API returns it (`ping`: the endpoint's id). */
export const WEBHOOK_EVENT_DATA = {
  'booking.created': BookingSchema,
  'booking.rescheduled': BookingSchema,
  'booking.canceled': BookingSchema,
  'booking.no_show': BookingSchema,
  'booking.requested': BookingSchema,
  'booking.confirmed': BookingSchema,
  'booking.declined': BookingSchema,
  'lead.created': LeadSchema,
  'lead.updated': LeadSchema,
  'lead.converted': LeadSchema,
  ping: z
    .object({ webhookId: z.string().meta({ description: 'The endpoint being tested.', examples: [EXAMPLE.webhookId] }) })
    .meta({ description: 'Which endpoint the test event is for.' }),
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** The body POSTed for one event type (the OpenAPI document's `webhooks` section describes each). */
export function webhookEventBodySchema(type: WebhookEventType) {
  return z.object({
    id: z
      .string()
      .meta({ description: 'The event id (`evt_…`), also sent as `webhook-id`: the same on every attempt.', examples: [EXAMPLE.webhookEventId] }),
    type: z.literal(type).meta({ description: 'The kind of event.', examples: [type] }),
    createdAt: z.iso.datetime().meta({ description: 'When the change committed.', examples: [EXAMPLE.createdAt] }),
    data: WEBHOOK_EVENT_DATA[type],
  });
}
