import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../lib/ids.ts';
import { runWrites, type SqlWrite } from '../../lib/sql-writes.ts';
import type { WebhookEventType } from './webhooks.schemas.ts';

/** An event id as Svix and Stripe spell them: a type prefix and a random id. */
function newEventId(): string {
  return `evt_${newId().replaceAll('-', '')}`;
}

/** The exact body every attempt of an event sends (Standard Webhooks signs these bytes). */
function eventBody(id: string, type: WebhookEventType, createdAt: Date, data: unknown): string {
  return JSON.stringify({ id, type, createdAt: createdAt.toISOString(), data });
}

/**
 * An event and one pending delivery per active endpoint of the owner subscribed to its type, in one statement
 * (the caller's transaction holds its hosts' locks meanwhile, so round trips count); nothing at all when no
 * endpoint is subscribed. Run it in the transaction of the change the event describes: a write that rolls back
 * then emits nothing.
 */
export function webhookEventWrite(ownerId: string, type: Exclude<WebhookEventType, 'ping'>, data: unknown, now: Date): SqlWrite {
  const id = newEventId();
  return {
    label: 'webhook.emit',
    build: (as) => ({
      ctes: [
        [as('subscribed'), 'select w.id from webhook_endpoint w where w.owner_id = ? and w.active and ? = any (w.events)'],
        [
          as('event'),
          `insert into webhook_event (id, owner_id, type, body, created_at)
       select ?, ?, ?, ?, ? where exists (select 1 from ${as('subscribed')})
       returning id`,
        ],
      ],
      statement: `insert into webhook_delivery (id, endpoint_id, event_id, next_attempt_at, created_at)
     select gen_random_uuid()::text, s.id, e.id, ?, ? from ${as('subscribed')} s cross join ${as('event')} e`,
    }),
    params: [ownerId, type, id, ownerId, type, eventBody(id, type, now, data), now, now, now],
  };
}

export async function emitWebhookEvent(
  tx: EntityManager,
  ownerId: string,
  type: Exclude<WebhookEventType, 'ping'>,
  data: unknown,
  now: Date,
): Promise<void> {
  await runWrites(tx, [webhookEventWrite(ownerId, type, data, now)]);
}

/** A `ping` event for one endpoint (POST /webhooks/{id}/test); returns the delivery's id. */
export async function emitPing(tx: EntityManager, ownerId: string, endpointId: string, now: Date): Promise<string> {
  const id = newEventId();
  await tx.execute(
    'insert into webhook_event (id, owner_id, type, body, created_at) values (?, ?, ?, ?, ?)',
    [id, ownerId, 'ping', eventBody(id, 'ping', now, { webhookId: endpointId }), now],
    'run',
  );
  return queueDelivery(tx, endpointId, id, now);
}

/** A new pending delivery of an existing event to an endpoint, due now by the app's clock (the one the workers compare with). */
export async function queueDelivery(tx: EntityManager, endpointId: string, eventId: string, now: Date): Promise<string> {
  const deliveryId = newId();
  await tx.execute(
    `insert into webhook_delivery (id, endpoint_id, event_id, next_attempt_at, created_at) values (?, ?, ?, ?, ?)`,
    [deliveryId, endpointId, eventId, now, now],
    'run',
  );
  return deliveryId;
}
