/**
 * The webhook tables as the service reads them (SQL, no ORM entity): one row type, select list and mapper
 * each. The secrets are never part of what is selected for the API.
 */
import { type SqlTimestamp, toIsoString, toIsoStringOrNull } from '../../lib/sql-values.ts';
import type { Delivery, WebhookEndpoint } from './webhooks.schemas.ts';

export interface WebhookEndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabled_reason: string | null;
  created_at: SqlTimestamp;
}

export const ENDPOINT_COLUMNS = 'id, url, events, description, active, disabled_reason, created_at';

export function toWebhookEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEndpoint['events'],
    description: row.description,
    active: row.active,
    disabledReason: row.disabled_reason,
    createdAt: toIsoString(row.created_at),
  };
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  event_body: string;
  status: Delivery['status'];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: SqlTimestamp | null;
  created_at: SqlTimestamp;
  delivered_at: SqlTimestamp | null;
}

/** Selects a DeliveryRow from `webhook_delivery d join webhook_event e on e.id = d.event_id`. */
export const DELIVERY_COLUMNS =
  'd.id, d.event_id, e.type as event_type, e.body as event_body, d.status, d.attempts, d.last_status_code, d.last_error, d.next_attempt_at, d.created_at, d.delivered_at';
export const DELIVERY_FROM = 'webhook_delivery d join webhook_event e on e.id = d.event_id';

export function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    body: row.event_body,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: toIsoStringOrNull(row.next_attempt_at),
    createdAt: toIsoString(row.created_at),
    deliveredAt: toIsoStringOrNull(row.delivered_at),
  };
}
