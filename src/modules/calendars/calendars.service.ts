import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { outboundUrlProblem } from '../../lib/outbound-guard.ts';
import { sealSecret } from '../../lib/sealed-secrets.ts';
import type { CaldavCredentials } from './caldav-client.ts';
import { CONNECTION_COLUMNS, type ConnectionRow, toConnection } from './calendar.rows.ts';
import type { CalendarConnection, CreateConnectionInput, UpdateConnectionInput } from './calendars.schemas.ts';

export const MAX_CONNECTIONS_PER_USER = 10;

export interface CalendarPolicy {
  /** CALENDAR_ALLOW_PRIVATE_NETWORKS: http:// and local addresses allowed (development and tests only). */
  allowPrivateNetworks: boolean;
}

/** `webcal://` (how Apple and Google hand feeds out) is the same address over https. */
export function feedUrl(raw: string): string {
  return raw.replace(/^webcals?:\/\//i, 'https://');
}

/** What may be shown of a feed's address: scheme, host and the path's last 4 characters (the rest is the secret). */
export function maskedUrl(url: URL): string {
  const path = `${url.pathname}${url.search}`;
  return `${url.protocol}//${url.host}/…${path.length > 12 ? path.slice(-4) : ''}`;
}

/** What a new connection stores: its kind, sealed secret, the address part that may be shown, and a default name. */
interface NewConnection {
  kind: 'ics' | 'caldav';
  sealed: string;
  masked: string;
  name: string;
}

/**
 * A new connection, `pending`, its first sync due at once (the sync worker claims it within a poll). Nothing here
 * contacts the calendar server; its address is checked (scheme, resolved host) as webhooks' are.
 */
export async function createConnection(
  em: EntityManager,
  ownerId: string,
  input: CreateConnectionInput,
  policy: CalendarPolicy,
  now: Date,
): Promise<CalendarConnection> {
  const connection = input.kind === 'caldav' ? await newCaldavAccount(em, input, policy) : await newFeed(em, input, policy);
  const id = newId();
  await em.transactional(async (tx) => {
    // Serialises one owner's creations, so that two at once cannot both be the 10th.
    await tx.execute('select id from app_user where id = ? for update', [ownerId]);
    const [count] = await tx.execute<{ n: number }[]>('select count(*)::int as n from calendar_connection where owner_id = ?', [ownerId]);
    if ((count?.n ?? 0) >= MAX_CONNECTIONS_PER_USER) {
      throw new DomainError('conflict', `A user can have at most ${MAX_CONNECTIONS_PER_USER} calendar connections`);
    }
    await tx.execute(
      `insert into calendar_connection (id, owner_id, kind, name, secret, masked_url, next_sync_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, ownerId, connection.kind, connection.name, connection.sealed, connection.masked, now, now],
      'run',
    );
    // A feed is one calendar; an account's calendars are discovered by its first sync.
    if (connection.kind === 'ics') {
      await tx.execute('insert into connected_calendar (id, connection_id, name) values (?, ?, ?)', [newId(), id, connection.name], 'run');
    }
  });
  return getConnection(em, ownerId, id);
}

async function newFeed(em: EntityManager, input: CreateConnectionInput, policy: CalendarPolicy): Promise<NewConnection> {
  if (input.url === undefined) throw invalidField(['url'], 'is required for an iCalendar feed');
  const url = feedUrl(input.url);
  const problem = await outboundUrlProblem(url, policy.allowPrivateNetworks);
  if (problem) throw invalidField(['url'], problem);
  const parsed = new URL(url);
  const sealed = await sealSecret(em, 'calendar-credentials', url);
  return { kind: 'ics', sealed, masked: maskedUrl(parsed), name: input.name ?? parsed.hostname };
}

/** The credentials are sealed together; only the server's scheme and host are ever shown. */
async function newCaldavAccount(em: EntityManager, input: CreateConnectionInput, policy: CalendarPolicy): Promise<NewConnection> {
  for (const field of ['serverUrl', 'username', 'password'] as const) {
    if (!input[field]) throw invalidField([field], 'is required for a CalDAV account');
  }
  const problem = await outboundUrlProblem(input.serverUrl!, policy.allowPrivateNetworks);
  if (problem) throw invalidField(['serverUrl'], problem);
  const parsed = new URL(input.serverUrl!);
  const credentials: CaldavCredentials = { serverUrl: parsed.href, username: input.username!, password: input.password! };
  const sealed = await sealSecret(em, 'calendar-credentials', JSON.stringify(credentials));
  return { kind: 'caldav', sealed, masked: `${parsed.protocol}//${parsed.host}`, name: input.name ?? parsed.hostname };
}

export async function listConnections(em: EntityManager, ownerId: string): Promise<CalendarConnection[]> {
  const rows = await em.execute<ConnectionRow[]>(
    `select ${CONNECTION_COLUMNS} from calendar_connection c where c.owner_id = ? order by c.created_at, c.id`,
    [ownerId],
  );
  return rows.map(toConnection);
}

export async function getConnection(em: EntityManager, ownerId: string, id: string): Promise<CalendarConnection> {
  const [row] = await em.execute<ConnectionRow[]>(
    `select ${CONNECTION_COLUMNS} from calendar_connection c where c.id = ? and c.owner_id = ?`,
    [id, ownerId],
  );
  if (!row) throw notFound('Calendar connection');
  return toConnection(row);
}

/**
 * Renames a connection and sets which of its calendars count as busy (their stored busy times count, or stop
 * counting, at once) and which receives bookings: at most one calendar across the owner's connections, and never
 * a feed's (read-only).
 */
export async function updateConnection(em: EntityManager, ownerId: string, input: UpdateConnectionInput): Promise<CalendarConnection> {
  await em.transactional(async (tx) => {
    // Serialises the owner's changes, so that two at once cannot each add a booking target.
    await tx.execute('select id from app_user where id = ? for update', [ownerId]);
    const [connection] = await tx.execute<{ kind: string }[]>('select kind from calendar_connection where id = ? and owner_id = ?', [
      input.id,
      ownerId,
    ]);
    if (!connection) throw notFound('Calendar connection');
    if (input.name !== undefined) await tx.execute('update calendar_connection set name = ? where id = ?', [input.name, input.id], 'run');
    for (const [index, change] of (input.calendars ?? []).entries()) {
      if (change.bookingTarget && connection.kind === 'ics') {
        throw invalidField(['calendars', index, 'bookingTarget'], 'an iCalendar feed is read-only: it cannot receive bookings');
      }
      const updated = await tx.execute<{ id: string }[]>(
        `update connected_calendar set busy = coalesce(?, busy), booking_target = coalesce(?, booking_target)
          where id = ? and connection_id = ? returning id`,
        [change.busy ?? null, change.bookingTarget ?? null, change.id, input.id],
      );
      if (updated.length === 0) throw invalidField(['calendars', index, 'id'], 'is not a calendar of this connection');
      if (change.busy !== undefined) {
        await tx.execute('update calendar_busy set counts = ? where calendar_id = ?', [change.busy, change.id], 'run');
        await tx.execute('update calendar_busy_day set counts = ? where calendar_id = ?', [change.busy, change.id], 'run');
      }
    }
    const [targets] = await tx.execute<{ n: number }[]>(
      `select count(*)::int as n from connected_calendar cal join calendar_connection c on c.id = cal.connection_id
        where c.owner_id = ? and cal.booking_target`,
      [ownerId],
    );
    if ((targets?.n ?? 0) > 1) throw invalidField(['calendars'], 'at most one calendar across your connections can receive bookings');
  });
  return getConnection(em, ownerId, input.id);
}

/** Removes a connection; its busy times go with it (cascade), in the same statement. */
export async function deleteConnection(em: EntityManager, ownerId: string, id: string): Promise<void> {
  const deleted = await em.execute<{ id: string }[]>('delete from calendar_connection where id = ? and owner_id = ? returning id', [id, ownerId]);
  if (deleted.length === 0) throw notFound('Calendar connection');
}

/** Makes a connection due now: the sync worker of any instance takes it within a poll. */
export async function requestSync(em: EntityManager, ownerId: string, id: string, now: Date): Promise<CalendarConnection> {
  const updated = await em.execute<{ id: string }[]>(
    'update calendar_connection set next_sync_at = least(next_sync_at, ?) where id = ? and owner_id = ? returning id',
    [now, id, ownerId],
  );
  if (updated.length === 0) throw notFound('Calendar connection');
  return getConnection(em, ownerId, id);
}
