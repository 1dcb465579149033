import { z } from 'zod';
import { BookingSchema } from '../bookings/bookings.schemas.ts';
import { LeadSchema } from '../leads/leads.schemas.ts';

/** What an endpoint can subscribe to; `ping` is not among them: it comes only from POST /webhooks/{id}/test. */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'booking.created',
  'booking.rescheduled',
  'booking.canceled',
  'booking.no_show',
  'lead.created',
  'lead.updated',
  'lead.converted',
] as const;

export const WebhookEventTypeSchema = z.enum(SUBSCRIBABLE_EVENT_TYPES).meta({ id: 'WebhookEventType' });
export type WebhookEventType = z.infer<typeof WebhookEventTypeSchema> | 'ping';

export const WebhookEndpointSchema = z
  .object({
    id: z.string(),
    url: z.url(),
    events: z.array(WebhookEventTypeSchema),
    description: z.string().nullable(),
    active: z.boolean(),
    disabledReason: z
      .string()
      .nullable()
      .describe('Why the service turned the endpoint off (410 Gone, or failing for 5 days); null otherwise.'),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const WebhookSecretSchema = z
  .string()
  .describe('The signing secret (`whsec_` + base64 of 32 random bytes): shown in this response only.');

export const DeliveryStatusSchema = z.enum(['pending', 'succeeded', 'failed']).meta({ id: 'WebhookDeliveryStatus' });

export const DeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string().describe('The event id, sent as `webhook-id`: the same on every attempt and redelivery.'),
    eventType: z.string(),
    status: DeliveryStatusSchema,
    attempts: z.int(),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    deliveredAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

/** What each event's `data` is: the resource exactly as the API returns it (`ping`: the endpoint's id). */
export const WEBHOOK_EVENT_DATA = {
  'booking.created': BookingSchema,
  'booking.rescheduled': BookingSchema,
  'booking.canceled': BookingSchema,
  'booking.no_show': BookingSchema,
  'lead.created': LeadSchema,
  'lead.updated': LeadSchema,
  'lead.converted': LeadSchema,
  ping: z.object({ webhookId: z.string() }),
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** The body POSTed for one event type (the OpenAPI document's `webhooks` section describes each). */
export function webhookEventBodySchema(type: WebhookEventType) {
  return z.object({
    id: z.string().describe('The event id (`evt_…`), also sent as `webhook-id`: the same on every attempt.'),
    type: z.literal(type),
    createdAt: z.iso.datetime().describe('When the change committed.'),
    data: WEBHOOK_EVENT_DATA[type],
  });
}
