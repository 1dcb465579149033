import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { emitWebhookEvent } from '../../src/modules/webhooks/outbox.ts';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1 that records every request, then answers with `answer(request)`'s status
 * (200 by default) after its delay; an answer of `'hang'` keeps the request open until the receiver closes.
 */
export async function startReceiver(
  answer: (request: Received) => { status: number; delayMs?: number; body?: string } | 'hang' = () => ({ status: 200 }),
): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const reply = answer(request);
      if (reply === 'hang') return;
      setTimeout(() => {
        res.statusCode = reply.status;
        res.end(reply.body ?? 'ok');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface VerifiedEvent {
  id: string;
  type: string;
  data: { id: string } & Record<string, unknown>;
}

/** Every request verified with standardwebhooks as a receiver would (throws on a bad signature). */
export function verifiedEvents(receiver: Receiver, secret: string): VerifiedEvent[] {
  const verifier = new Webhook(secret);
  return receiver.received.map((request) => {
    const event = verifier.verify(request.body, request.headers as Record<string, string>) as VerifiedEvent;
    expect(request.headers['webhook-id']).toBe(event.id);
    return event;
  });
}

/** Waits until the receiver has got, signed, each `[type, resource id]`, and returns those events. */
export async function expectDelivered(receiver: Receiver, secret: string, expected: [string, string][]): Promise<VerifiedEvent[]> {
  const key = (type: string, id: string) => `${type} ${id}`;
  return eventually(() => {
    const events = verifiedEvents(receiver, secret);
    const byKey = new Map(events.map((event) => [key(event.type, event.data.id), event]));
    const found = expected.map(([type, id]) => byKey.get(key(type, id)));
    return found.every(Boolean) ? (found as VerifiedEvent[]) : undefined;
  });
}

/** A weekday at `hour`:00 UTC, `weeks` weeks ahead (distinct slots per test). */
export function futureSlot(weeks: number, hour: number): string {
  const day = new Date(Date.now() + weeks * 7 * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  while ([0, 6].includes(day.getUTCDay())) day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString();
}

/**
 * Writes `count` `lead.created` events of the owner into the outbox, as lead changes would (test pings are limited
 * to a few a minute per endpoint); returns the owner's event ids.
 */
export async function emitLeadEvents(em: EntityManager, ownerId: string, count: number): Promise<string[]> {
  await em.transactional(async (tx) => {
    for (let i = 0; i < count; i++) await emitWebhookEvent(tx, ownerId, 'lead.created', { id: `lead_${i}` }, new Date());
  });
  const rows = await em.execute<{ id: string }[]>('select id from webhook_event where owner_id = ?', [ownerId]);
  return rows.map((row) => row.id);
}
