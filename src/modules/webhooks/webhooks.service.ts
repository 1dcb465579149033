import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { openKeyset, type Page, sortKeySql } from '../../lib/keyset.ts';
import { newId } from '../../lib/ids.ts';
import { webhookUrlProblem } from './address-safety.ts';
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
  const problem = await webhookUrlProblem(url, policy.allowPrivateNetworks);
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
      [newId(), ownerId, input.url, uniqueEvents(input.events), input.description ?? null, input.active, secret, now],
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
 * off) and the failing streak, so a re-enabled endpoint gets 5 more days before it is disabled again.
 */
export async function updateWebhook(
  em: EntityManager,
  ownerId: string,
  input: UpdateWebhookInput,
  policy: WebhookPolicy,
): Promise<WebhookEndpoint> {
  if (input.url !== undefined) await checkUrl(input.url, policy);
  const [row] = await em.execute<WebhookEndpointRow[]>(
    `update webhook_endpoint set
        url = coalesce(?, url),
        events = coalesce(?::text[], events),
        description = case when ? then ? else description end,
        active = coalesce(?, active),
        disabled_reason = case when ?::boolean is null then disabled_reason else null end,
        failing_since = case when ?::boolean is null then failing_since else null end
      where id = ? and owner_id = ?
      returning ${ENDPOINT_COLUMNS}`,
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
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_endpoint set previous_secret = secret, previous_secret_expires_at = ?, secret = ?
      where id = ? and owner_id = ? returning id`,
    [new Date(now.getTime() + ROTATION_OVERLAP_MS), secret, id, ownerId],
  );
  if (rows.length === 0) throw notFound('Webhook endpoint');
  return { secret };
}

async function readDelivery(em: EntityManager, deliveryId: string): Promise<Delivery> {
  const [row] = await em.execute<DeliveryRow[]>(`select ${DELIVERY_COLUMNS} from ${DELIVERY_FROM} where d.id = ?`, [deliveryId]);
  return toDelivery(row!);
}

/** Queues a `ping` to this endpoint alone, even a disabled one. */
export async function sendTestEvent(em: EntityManager, ownerId: string, id: string, now: Date): Promise<Delivery> {
  return em.transactional(async (tx) => {
    await getWebhook(tx, ownerId, id);
    return readDelivery(tx, await emitPing(tx, ownerId, id, now));
  });
}

/** Queues the event of one of the endpoint's deliveries again, now, as a new delivery (same webhook-id, same body). */
export async function redeliver(
  em: EntityManager,
  ownerId: string,
  input: { id: string; deliveryId: string },
  now: Date,
): Promise<Delivery> {
  return em.transactional(async (tx) => {
    const [original] = await tx.execute<{ event_id: string }[]>(
      `select d.event_id from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id
        where d.id = ? and d.endpoint_id = ? and w.owner_id = ?`,
      [input.deliveryId, input.id, ownerId],
    );
    if (!original) throw notFound('Delivery');
    return readDelivery(tx, await queueDelivery(tx, input.id, original.event_id, now));
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
