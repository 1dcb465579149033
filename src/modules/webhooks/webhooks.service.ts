import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { openKeyset, type Page, sortKeySql } from '../../lib/keyset.ts';
import { newId } from '../../lib/ids.ts';
import { sealSecret } from '../../lib/sealed-secrets.ts';
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import { outboundUrlProblem } from '../../lib/outbound-guard.ts';
import { ENDPOINT_DISABLED_ERROR } from './delivery-outcome.ts';
import { emitPing, queueDelivery } from './outbox.ts';
import {
  DELIVERY_COLUMNS,
  DELIVERY_FROM,
  type DeliveryRow,
  ENDPOINT_COLUMNS,
  toDelivery,
  toWebhookEndpoint,
  type WebhookEndpointRow,
} from './webhook.rows.ts';
import type { Delivery, WebhookEndpoint } from './webhooks.schemas.ts';

export const MAX_ENDPOINTS_PER_USER = 20;
/** How long deliveries are signed with the old secret too after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Test events one endpoint may be sent per minute (sliding): enough to try a receiver out, too few to flood it. */
export const TEST_EVENTS_PER_MINUTE = 5;
const TEST_EVENT_WINDOW_MS = 60_000;

export interface WebhookPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: http:// and local addresses allowed (development and tests only). */
  allowPrivateNetworks: boolean;
}

/** A Standard Webhooks secret: this prefix and the base64 of 32 random bytes. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

function newSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

async function checkUrl(url: string, policy: WebhookPolicy): Promise<void> {
  const problem = await outboundUrlProblem(url, policy.allowPrivateNetworks, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  if (problem) throw invalidField(['url'], problem);
}

export interface CreateWebhookInput {
  url: string;
  events: string[];
  description?: string | undefined;
  active: boolean;
}

export async function createWebhook(
  em: EntityManager,
  ownerId: string,
  input: CreateWebhookInput,
  policy: WebhookPolicy,
  now: Date,
): Promise<WebhookEndpoint & { secret: string }> {
  await checkUrl(input.url, policy);
  const secret = newSecret();
  const sealed = await sealSecret(em, 'webhook-signing-secret', secret);
  return em.transactional(async (tx) => {
    // Serialises one owner's creations, so that two at once cannot both be the 20th.
    await tx.execute('select id from app_user where id = ? for update', [ownerId]);
    const [count] = await tx.execute<{ n: number }[]>('select count(*)::int as n from webhook_endpoint where owner_id = ?', [
      ownerId,
    ]);
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_USER) {
      throw new DomainError('conflict', `A user can have at most ${MAX_ENDPOINTS_PER_USER} webhook endpoints`);
    }
    const [row] = await tx.execute<WebhookEndpointRow[]>(
      `insert into webhook_endpoint (id, owner_id, url, events, description, active, secret, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?) returning ${ENDPOINT_COLUMNS}`,
      [newId(), ownerId, input.url, uniqueEvents(input.events), input.description ?? null, input.active, sealed, now],
    );
    return { ...toWebhookEndpoint(row!), secret };
  });
}

function uniqueEvents(events: string[]): string {
  // A PostgreSQL array literal; event kinds come from a closed enum, so no quoting is needed.
  return `{${[...new Set(events)].join(',')}}`;
}

export async function listWebhooks(em: EntityManager, ownerId: string): Promise<WebhookEndpoint[]> {
  const rows = await em.execute<WebhookEndpointRow[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoint where owner_id = ? order by created_at, id`,
    [ownerId],
  );
  return rows.map(toWebhookEndpoint);
}

export async function getWebhook(em: EntityManager, ownerId: string, id: string): Promise<WebhookEndpoint> {
  const [row] = await em.execute<WebhookEndpointRow[]>(
    `select ${ENDPOINT_COLUMNS} from webhook_endpoint where id = ? and owner_id = ?`,
    [id, ownerId],
  );
  if (!row) throw notFound('Webhook endpoint');
  return toWebhookEndpoint(row);
}

export interface UpdateWebhookInput {
  id: string;
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  active?: boolean | undefined;
}

/**
 * Changes the fields sent. Any `active` the owner sends clears `disabledReason` (it says why the service turned it
 * off) and the failing streak, so a re-enabled endpoint gets 5 more days before it is disabled again. Turning it
 * off ends its pending deliveries `failed`.
 */
export async function updateWebhook(
  em: EntityManager,
  ownerId: string,
  input: UpdateWebhookInput,
  policy: WebhookPolicy,
): Promise<WebhookEndpoint> {
  if (input.url !== undefined) await checkUrl(input.url, policy);
  const [row] = await em.execute<WebhookEndpointRow[]>(
    `with updated as (
       update webhook_endpoint set
          url = coalesce(?, url),
          events = coalesce(?::text[], events),
          description = case when ? then ? else description end,
          active = coalesce(?, active),
          disabled_reason = case when ?::boolean is null then disabled_reason else null end,
          failing_since = case when ?::boolean is null then failing_since else null end
        where id = ? and owner_id = ?
        returning ${ENDPOINT_COLUMNS}
     ), ended as (
       update webhook_delivery set status = 'failed', next_attempt_at = null, last_error = ?
        where endpoint_id in (select id from updated where not active) and status = 'pending'
     )
     select * from updated`,
    [
      input.url ?? null,
      input.events === undefined ? null : uniqueEvents(input.events),
      input.description !== undefined,
      input.description ?? null,
      input.active ?? null,
      input.active ?? null,
      input.active ?? null,
      input.id,
      ownerId,
      ENDPOINT_DISABLED_ERROR,
    ],
  );
  if (!row) throw notFound('Webhook endpoint');
  return toWebhookEndpoint(row);
}

/** Deletes the endpoint; its deliveries (pending ones included) go with it. */
export async function deleteWebhook(em: EntityManager, ownerId: string, id: string): Promise<void> {
  const rows = await em.execute<{ id: string }[]>('delete from webhook_endpoint where id = ? and owner_id = ? returning id', [
    id,
    ownerId,
  ]);
  if (rows.length === 0) throw notFound('Webhook endpoint');
}

/** A new secret; the current one keeps signing too for 24 hours, so receivers can switch without losing events. */
export async function rotateWebhookSecret(em: EntityManager, ownerId: string, id: string, now: Date): Promise<{ secret: string }> {
  const secret = newSecret();
  const sealed = await sealSecret(em, 'webhook-signing-secret', secret);
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_endpoint set previous_secret = secret, previous_secret_expires_at = ?, secret = ?
      where id = ? and owner_id = ? returning id`,
    [new Date(now.getTime() + ROTATION_OVERLAP_MS), sealed, id, ownerId],
  );
  if (rows.length === 0) throw notFound('Webhook endpoint');
  return { secret };
}

async function readDelivery(em: EntityManager, deliveryId: string): Promise<Delivery> {
  const [row] = await em.execute<DeliveryRow[]>(`select ${DELIVERY_COLUMNS} from ${DELIVERY_FROM} where d.id = ?`, [deliveryId]);
  return toDelivery(row!);
}

export type TestEventOutcome = { queued: Delivery } | { retryAfterSec: number };

/**
 * Queues a `ping` to this endpoint alone: 409 when it is disabled, and at most TEST_EVENTS_PER_MINUTE a minute
 * (otherwise the seconds to wait).
 */
export async function sendTestEvent(em: EntityManager, ownerId: string, id: string, now: Date): Promise<TestEventOutcome> {
  return em.transactional(async (tx) => {
    // The row lock makes concurrent pings to one endpoint count one after the other.
    const [endpoint] = await tx.execute<{ active: boolean }[]>(
      'select active from webhook_endpoint where id = ? and owner_id = ? for update',
      [id, ownerId],
    );
    if (!endpoint) throw notFound('Webhook endpoint');
    if (!endpoint.active) {
      throw new DomainError(
        'conflict',
        'This webhook endpoint is disabled: enable it (set "active" to true) before sending it a test event.',
      );
    }
    const retryAfterSec = await testEventRetryAfter(tx, id, now);
    if (retryAfterSec !== undefined) return { retryAfterSec };
    return { queued: await readDelivery(tx, await emitPing(tx, ownerId, id, now)) };
  });
}

/** Whole seconds until the endpoint's oldest ping of the last minute leaves the window, or undefined when one may be sent now. */
async function testEventRetryAfter(tx: EntityManager, endpointId: string, now: Date): Promise<number | undefined> {
  const recent = await tx.execute<{ created_at: SqlTimestamp }[]>(
    `select d.created_at from webhook_delivery d join webhook_event e on e.id = d.event_id
      where d.endpoint_id = ? and e.type = 'ping' and d.created_at > ?
      order by d.created_at desc limit ?`,
    [endpointId, new Date(now.getTime() - TEST_EVENT_WINDOW_MS), TEST_EVENTS_PER_MINUTE],
  );
  if (recent.length < TEST_EVENTS_PER_MINUTE) return undefined;
  const leavesWindowAt = toDate(recent.at(-1)!.created_at).getTime() + TEST_EVENT_WINDOW_MS;
  return Math.max(1, Math.ceil((leavesWindowAt - now.getTime()) / 1000));
}

/**
 * Queues the event of one of the endpoint's deliveries again, now, as a new delivery (same webhook-id, same body). A
 * `ping` sent again counts against the endpoint's test events, so redelivery is no way round their limit.
 */
export async function redeliver(
  em: EntityManager,
  ownerId: string,
  input: { id: string; deliveryId: string },
  now: Date,
): Promise<TestEventOutcome> {
  return em.transactional(async (tx) => {
    const [original] = await tx.execute<{ event_id: string; type: string }[]>(
      `select d.event_id, e.type from webhook_delivery d
         join webhook_endpoint w on w.id = d.endpoint_id
         join webhook_event e on e.id = d.event_id
        where d.id = ? and d.endpoint_id = ? and w.owner_id = ?
        for update of w`,
      [input.deliveryId, input.id, ownerId],
    );
    if (!original) throw notFound('Delivery');
    if (original.type === 'ping') {
      const retryAfterSec = await testEventRetryAfter(tx, input.id, now);
      if (retryAfterSec !== undefined) return { retryAfterSec };
    }
    return { queued: await readDelivery(tx, await queueDelivery(tx, input.id, original.event_id, now)) };
  });
}

type DeliveryPageRow = DeliveryRow & { sort_key: string };

/** The endpoint's deliveries, newest first; keyset paging over webhook_delivery_endpoint_created_idx. */
export async function listDeliveries(
  em: EntityManager,
  ownerId: string,
  query: { id: string; cursor?: string | undefined; limit: number },
): Promise<Page<Delivery>> {
  await getWebhook(em, ownerId, query.id);
  const keyset = await openKeyset(em, { resource: 'webhook-deliveries', userId: ownerId, filter: { id: query.id } }, query.cursor);
  const params: unknown[] = [query.id];
  let after = '';
  if (keyset.after) {
    after = 'and (d.created_at, d.id) < (?::timestamptz, ?)';
    params.push(keyset.after.key, keyset.after.id);
  }
  params.push(query.limit + 1);
  const rows = await em.execute<DeliveryPageRow[]>(
    `select ${DELIVERY_COLUMNS}, ${sortKeySql('d.created_at')} as sort_key
       from ${DELIVERY_FROM}
      where d.endpoint_id = ? ${after}
      order by d.created_at desc, d.id desc
      limit ?`,
    params,
  );
  return keyset.page(rows, query.limit, toDelivery);
}
