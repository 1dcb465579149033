import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { generateToken, hashToken } from '../../lib/secrets.ts';
import { slugify } from '../users/users.service.ts';
import {
  type BookingLimits,
  type BookingWindow,
  EVENT_TYPE_COLUMNS,
  type EventTypeKind,
  type EventTypeRecord,
  type EventTypeRow,
  toEventType,
} from './event-type.rows.ts';
import {
  type CreateEventTypeInput,
  DEFAULT_GROUP_SEATS,
  EVENT_TYPE_LIMITS,
  type UpdateEventTypeInput,
} from './event-type-input.schemas.ts';
import { type EventType, eventTypeUrl, toEventTypeDto } from './event-types.schemas.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';

type EventTypeWithOwnerRow = EventTypeRow & { owner_slug: string };

const EVENT_TYPE_SELECT = `select ${EVENT_TYPE_COLUMNS}, u.slug as owner_slug
       from event_type et join app_user u on u.id = et.owner_id`;

/** `privateLinkKey`: only right after it was created, since only its hash is stored. */
function toDto(row: EventTypeWithOwnerRow, siteUrl: string, privateLinkKey?: string): EventType {
  return toEventTypeDto(toEventType(row), eventTypeUrl(siteUrl, row.owner_slug, row.slug, privateLinkKey));
}

/** The event types the user owns (active or not), oldest first. */
export async function listEventTypes(em: EntityManager, ownerId: string, siteUrl: string): Promise<EventType[]> {
  const rows = await executePrepared<EventTypeWithOwnerRow>(
    em,
    'event_types.list',
    `${EVENT_TYPE_SELECT}
      where et.owner_id = ?
      order by et.created_at, et.id`,
    [ownerId],
  );
  return rows.map((row) => toDto(row, siteUrl));
}

/** GET /event-types/{id}: one of the owner's event types (its `url` without a private key); 404 when not theirs. */
export function getEventType(em: EntityManager, ownerId: string, id: string, siteUrl: string): Promise<EventType> {
  return readEventType(em, ownerId, id, siteUrl);
}

async function readEventType(
  em: EntityManager,
  ownerId: string,
  id: string,
  siteUrl: string,
  privateLinkKey?: string,
): Promise<EventType> {
  const [row] = await em.execute<EventTypeWithOwnerRow[]>(`${EVENT_TYPE_SELECT} where et.id = ? and et.owner_id = ?`, [id, ownerId]);
  if (!row) throw notFound('Event type');
  return toDto(row, siteUrl, privateLinkKey);
}

/** One of the owner's event types, locked for the rest of the transaction; 404 when it is not theirs. */
async function lockEventType(tx: EntityManager, ownerId: string, id: string): Promise<EventTypeRecord> {
  const [row] = await tx.execute<EventTypeRow[]>(
    `select ${EVENT_TYPE_COLUMNS} from event_type et where et.id = ? and et.owner_id = ? for update`,
    [id, ownerId],
  );
  if (!row) throw notFound('Event type');
  return toEventType(row);
}

/**
 * A secret event type's private link key: 256 random bits, like every other secret of the service. Only its
 * hash is stored, so the key is shown once, in the response that created it.
 */
function newPrivateLinkKey(): { key: string; hash: string } {
  const key = generateToken('');
  return { key, hash: hashToken(key) };
}

/** `seatsPerSlot` is a group setting: 400 when given for another kind. */
function assertSeatsFitKind(kind: EventTypeKind, seatsPerSlot: number | undefined): void {
  if (seatsPerSlot !== undefined && kind !== 'group') {
    throw invalidField(['seatsPerSlot'], `only group event types have seats; this one is ${kind}`);
  }
}

/** The booking window's columns: days, start date, end date. */
function windowColumns(window: BookingWindow | null): [number | null, string | null, string | null] {
  if (window === null) return [null, null, null];
  return window.type === 'rolling' ? [window.days, null, null] : [null, window.start, window.end];
}

/** The limits' columns: per day, week, month (`{}` is no limits, as null is). */
function limitColumns(limits: BookingLimits | null): [number | null, number | null, number | null] {
  return [limits?.perDay ?? null, limits?.perWeek ?? null, limits?.perMonth ?? null];
}

/** An empty description (after trimming) is none. */
function descriptionColumn(description: string | null): string | null {
  return description === null || description === '' ? null : description;
}

/** PostgreSQL unique_violation (23505) of the one-slug-per-owner constraint, wherever the ORM put it. */
function isSlugTaken(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (candidate.code === '23505' && String(candidate.constraint ?? '').includes('slug')) return true;
    current = candidate.cause;
  }
  return false;
}

function slugConflict(slug: string): DomainError {
  return new DomainError('conflict', `You already have an event type with the slug "${slug}"; choose another slug.`);
}

/**
 * The name as a slug; `-2`, `-3`… appended when the user already has it. Concurrent creations of one user
 * that derive their slug take turns (a transaction-scoped advisory lock), so they never collide with each other.
 */
async function deriveFreeSlug(tx: EntityManager, ownerId: string, name: string): Promise<string> {
  await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`event-type-slug:${ownerId}`]);
  const hasLatin = /[a-z0-9]/i.test(name.normalize('NFKD'));
  const base = hasLatin ? slugify(name) : 'event';
  const rows = await tx.execute<{ slug: string }[]>(
    `select slug from event_type where owner_id = ? and (slug = ? or slug ~ ?)`,
    [ownerId, base, `^${base}-[0-9]+$`],
  );
  const taken = new Set(rows.map((row) => row.slug));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate) && candidate.length <= EVENT_TYPE_LIMITS.slugMax) return candidate;
  }
}

/**
 * Creates an event type owned by the caller, hosted by the caller alone (event_type_host rows for
 * round-robin and collective teams are not managed through the API). A secret one gets a private link.
 */
export async function createEventType(
  em: EntityManager,
  ownerId: string,
  input: CreateEventTypeInput,
  now: Date,
  siteUrl: string,
): Promise<EventType> {
  assertSeatsFitKind(input.kind, input.seatsPerSlot);
  const seats = input.kind === 'group' ? (input.seatsPerSlot ?? DEFAULT_GROUP_SEATS) : 1;
  const id = newId();
  const privateLink = input.secret ? newPrivateLinkKey() : undefined;
  let slug = input.slug;
  try {
    return await em.transactional(async (tx) => {
      slug ??= await deriveFreeSlug(tx, ownerId, input.name);
      await tx.execute(
        `insert into event_type (id, owner_id, name, slug, kind, durations_min, buffer_before_min, buffer_after_min,
                                 min_notice_min, slot_interval_min, seats_per_slot, color, active, secret,
                                 private_link_key_hash, organization_id, reminders, created_at, updated_at,
                                 booking_window_days, booking_window_start, booking_window_end,
                                 limit_per_day, limit_per_week, limit_per_month, cancel_notice_min,
                                 reschedule_notice_min, requires_confirmation, recurrence_max_count, description, locations, notifications)
         values (?, ?, ?, ?, ?, ?::integer[], ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?::jsonb, ?, ?, ?, ?::date, ?::date, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)`,
        [
          id,
          ownerId,
          input.name,
          slug,
          input.kind,
          `{${input.durationsMin.join(',')}}`,
          input.bufferBeforeMin,
          input.bufferAfterMin,
          input.minimumNoticeMin,
          input.slotIntervalMin,
          seats,
          input.color.toLowerCase(),
          input.active,
          input.secret,
          privateLink?.hash ?? null,
          JSON.stringify(input.reminders),
          now,
          now,
          ...windowColumns(input.bookingWindow),
          ...limitColumns(input.limits),
          input.cancelNoticeMin,
          input.rescheduleNoticeMin,
          input.requiresConfirmation,
          input.recurrence?.maxCount ?? null,
          descriptionColumn(input.description),
          JSON.stringify(input.locations),
          input.notifications,
        ],
        'run',
      );
      return readEventType(tx, ownerId, id, siteUrl, privateLink?.key);
    });
  } catch (error) {
    if (isSlugTaken(error)) throw slugConflict(slug ?? '');
    throw error;
  }
}

/**
 * Changes the given settings of one of the caller's event types; absent fields keep their value. Existing
 * bookings stay as they were booked (time, duration, busy time with the buffers of then).
 */
export async function updateEventType(
  em: EntityManager,
  ownerId: string,
  input: UpdateEventTypeInput,
  now: Date,
  siteUrl: string,
): Promise<EventType> {
  try {
    return await em.transactional(async (tx) => {
      const current = await lockEventType(tx, ownerId, input.id);
      assertSeatsFitKind(current.kind, input.seatsPerSlot);

      const sets: string[] = [];
      const params: unknown[] = [];
      const set = (column: string, value: unknown, cast = '') => {
        sets.push(`${column} = ?${cast}`);
        params.push(value);
      };
      if (input.name !== undefined) set('name', input.name);
      if (input.slug !== undefined) set('slug', input.slug);
      if (input.durationsMin !== undefined) set('durations_min', `{${input.durationsMin.join(',')}}`, '::integer[]');
      if (input.bufferBeforeMin !== undefined) set('buffer_before_min', input.bufferBeforeMin);
      if (input.bufferAfterMin !== undefined) set('buffer_after_min', input.bufferAfterMin);
      if (input.color !== undefined) set('color', input.color.toLowerCase());
      if (input.active !== undefined) set('active', input.active);
      if (input.minimumNoticeMin !== undefined) set('min_notice_min', input.minimumNoticeMin);
      if (input.slotIntervalMin !== undefined) set('slot_interval_min', input.slotIntervalMin);
      if (input.seatsPerSlot !== undefined) set('seats_per_slot', input.seatsPerSlot);
      if (input.bookingWindow !== undefined) {
        const [days, start, end] = windowColumns(input.bookingWindow);
        set('booking_window_days', days);
        set('booking_window_start', start, '::date');
        set('booking_window_end', end, '::date');
      }
      if (input.limits !== undefined) {
        const [perDay, perWeek, perMonth] = limitColumns(input.limits);
        set('limit_per_day', perDay);
        set('limit_per_week', perWeek);
        set('limit_per_month', perMonth);
      }
      if (input.cancelNoticeMin !== undefined) set('cancel_notice_min', input.cancelNoticeMin);
      if (input.rescheduleNoticeMin !== undefined) set('reschedule_notice_min', input.rescheduleNoticeMin);
      if (input.requiresConfirmation !== undefined) set('requires_confirmation', input.requiresConfirmation);
      if (input.recurrence !== undefined) set('recurrence_max_count', input.recurrence?.maxCount ?? null);
      if (input.reminders !== undefined) set('reminders', JSON.stringify(input.reminders), '::jsonb');
      if (input.description !== undefined) set('description', descriptionColumn(input.description));
      if (input.locations !== undefined) set('locations', JSON.stringify(input.locations), '::jsonb');
      if (input.notifications !== undefined) set('notifications', input.notifications);
      let privateLink: ReturnType<typeof newPrivateLinkKey> | undefined;
      if (input.secret === true && !(current.secret && current.privateLinkKeyHash !== null)) {
        privateLink = newPrivateLinkKey();
        set('secret', true);
        set('private_link_key_hash', privateLink.hash);
      } else if (input.secret === false && (current.secret || current.privateLinkKeyHash !== null)) {
        set('secret', false);
        set('private_link_key_hash', null);
      }
      if (sets.length > 0) {
        set('updated_at', now);
        await tx.execute(`update event_type set ${sets.join(', ')} where id = ?`, [...params, input.id], 'run');
      }
      return readEventType(tx, ownerId, input.id, siteUrl, privateLink?.key);
    });
  } catch (error) {
    if (isSlugTaken(error)) throw slugConflict(input.slug ?? '');
    throw error;
  }
}

/**
 * DELETE /event-types/{id}: deactivates (there is no hard delete through the API, so bookings and leads keep
 * their event type). Idempotent: an inactive event type is returned unchanged.
 */
export async function deactivateEventType(em: EntityManager, ownerId: string, id: string, now: Date, siteUrl: string): Promise<EventType> {
  return em.transactional(async (tx) => {
    await tx.execute('update event_type set active = false, updated_at = ? where id = ? and owner_id = ? and active', [now, id, ownerId], 'run');
    return readEventType(tx, ownerId, id, siteUrl);
  });
}

/**
 * POST /event-types/{id}/private-link: a new key for a secret event type's private link, returned once in
 * `url`; the old link stops working at once. 409 for an event type that is not secret.
 */
export async function regeneratePrivateLink(em: EntityManager, ownerId: string, id: string, now: Date, siteUrl: string): Promise<EventType> {
  return em.transactional(async (tx) => {
    const current = await lockEventType(tx, ownerId, id);
    if (!current.secret) {
      throw new DomainError('conflict', 'Only a secret event type has a private link: PATCH it with `secret: true` first.');
    }
    const privateLink = newPrivateLinkKey();
    await tx.execute('update event_type set private_link_key_hash = ?, updated_at = ? where id = ?', [privateLink.hash, now, id], 'run');
    return readEventType(tx, ownerId, id, siteUrl, privateLink.key);
  });
}
