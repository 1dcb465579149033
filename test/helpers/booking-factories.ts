import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../src/lib/ids.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import { refreshContacts } from '../../src/modules/contacts/contacts.projection.ts';
import type { BookingLimits, BookingWindow, EventTypeKind, EventTypeRecord } from '../../src/modules/event-types/event-type.rows.ts';
import type { LeadStatus } from '../../src/modules/leads/leads.schemas.ts';

/**
 * Test data written with SQL, the way the service's own writers leave it: a booking with its busy block
 * (the range includes the event type's buffers) and the link between them, leads, and the contacts
 * projection refreshed in the same transaction.
 */

/** What tests need of an event type they created: the service's own record, in part. */
export type TestEventType = Pick<
  EventTypeRecord,
  'id' | 'ownerId' | 'name' | 'slug' | 'kind' | 'durationsMin' | 'bufferBeforeMin' | 'bufferAfterMin'
>;

export interface EventTypeOptions {
  name?: string;
  slug?: string;
  kind?: EventTypeKind;
  durationsMin?: number[];
  bufferBeforeMin?: number;
  bufferAfterMin?: number;
  minNoticeMin?: number;
  slotIntervalMin?: number | null;
  /** Default: 10 for a group event type (the API's default), else 1. */
  seatsPerSlot?: number;
  color?: string;
  active?: boolean;
  secret?: boolean;
  /** The private link's key in clear; only its hash is stored, as the service does. */
  privateLinkKey?: string | null;
  organizationId?: string | null;
  /** Round-robin and collective hosts (event_type_host rows); without them the owner hosts alone. */
  hosts?: string[];
  bookingWindow?: BookingWindow | null;
  limits?: BookingLimits | null;
  cancelNoticeMin?: number;
  rescheduleNoticeMin?: number;
  requiresConfirmation?: boolean;
  /** Whether invitees may book a series, and of at most how many occurrences. */
  recurrence?: { maxCount: number } | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** The one test factory of event types: an event type owned by `ownerId`, written with SQL as the service leaves it. */
export async function createEventType(
  em: EntityManager,
  ownerId: string,
  options: EventTypeOptions = {},
): Promise<TestEventType> {
  const id = newId();
  const name = options.name ?? 'Intro call';
  const slug = options.slug ?? `intro-${randomBytes(3).toString('hex')}`;
  const kind = options.kind ?? 'one_on_one';
  const durationsMin = options.durationsMin ?? [30];
  const createdAt = options.createdAt ?? new Date();
  await em.execute(
    `insert into event_type (id, owner_id, name, slug, kind, durations_min, buffer_before_min, buffer_after_min,
                             min_notice_min, slot_interval_min, seats_per_slot, color, active, secret,
                             private_link_key_hash, organization_id, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?::integer[], ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      ownerId,
      name,
      slug,
      kind,
      `{${durationsMin.join(',')}}`,
      options.bufferBeforeMin ?? 0,
      options.bufferAfterMin ?? 0,
      options.minNoticeMin ?? 0,
      options.slotIntervalMin ?? null,
      options.seatsPerSlot ?? (kind === 'group' ? 10 : 1),
      options.color ?? '#2563eb',
      options.active ?? true,
      options.secret ?? false,
      options.privateLinkKey ? hashToken(options.privateLinkKey) : null,
      options.organizationId ?? null,
      createdAt,
      options.updatedAt ?? createdAt,
    ],
    'run',
  );
  for (const host of options.hosts ?? []) {
    await em.execute('insert into event_type_host (event_type_id, user_id) values (?, ?)', [id, host], 'run');
  }
  await setBookingRules(em, id, options);
  return {
    id,
    ownerId,
    name,
    slug,
    kind,
    durationsMin,
    bufferBeforeMin: options.bufferBeforeMin ?? 0,
    bufferAfterMin: options.bufferAfterMin ?? 0,
  };
}

/** The booking rules among the options, written as the service stores them. */
async function setBookingRules(em: EntityManager, id: string, options: EventTypeOptions): Promise<void> {
  const window = options.bookingWindow ?? null;
  await em.execute(
    `update event_type
        set booking_window_days = ?, booking_window_start = ?::date, booking_window_end = ?::date,
            limit_per_day = ?, limit_per_week = ?, limit_per_month = ?,
            cancel_notice_min = ?, reschedule_notice_min = ?, requires_confirmation = ?, recurrence_max_count = ?
      where id = ?`,
    [
      window?.type === 'rolling' ? window.days : null,
      window?.type === 'range' ? window.start : null,
      window?.type === 'range' ? window.end : null,
      options.limits?.perDay ?? null,
      options.limits?.perWeek ?? null,
      options.limits?.perMonth ?? null,
      options.cancelNoticeMin ?? 0,
      options.rescheduleNoticeMin ?? 0,
      options.requiresConfirmation ?? false,
      options.recurrence?.maxCount ?? null,
      id,
    ],
    'run',
  );
}

export interface BookingOptions {
  eventType: TestEventType;
  startAt: Date | string;
  durationMin?: number;
  hostId?: string;
  /** A pending booking holds its time as an active one does; a declined one leaves an inactive block. */
  status?: 'active' | 'canceled' | 'pending' | 'declined';
  invitee?: { name?: string; email?: string; timezone?: string };
  location?: { kind: string; value: string | null } | null;
  noShow?: boolean;
  createdAt?: Date;
  canceledAt?: Date;
  cancelReason?: string | null;
  id?: string;
}

export interface TestBooking {
  id: string;
  ownerId: string;
  startAt: Date;
  endAt: Date;
  inviteeEmail: string;
  busyBlockId: string;
}

/**
 * A booking on the event type's owner. An active one takes a seat in its busy block: a group event type's
 * bookings of the same slot share one block, every other booking gets its own. A canceled one keeps an
 * inactive block, as a cancellation leaves it.
 */
export async function createBooking(em: EntityManager, options: BookingOptions): Promise<TestBooking> {
  const { eventType } = options;
  const id = options.id ?? newId();
  const startAt = new Date(options.startAt);
  const durationMin = options.durationMin ?? eventType.durationsMin[0] ?? 30;
  const endAt = new Date(startAt.getTime() + durationMin * 60_000);
  const hostId = options.hostId ?? eventType.ownerId;
  const status = options.status ?? 'active';
  const inviteeEmail = options.invitee?.email ?? `invitee.${randomBytes(4).toString('hex')}@example.test`;
  const createdAt = options.createdAt ?? new Date();
  const busyFrom = new Date(startAt.getTime() - eventType.bufferBeforeMin * 60_000);
  const busyTo = new Date(endAt.getTime() + eventType.bufferAfterMin * 60_000);

  return em.transactional(async (tx) => {
    await tx.execute(
      `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                            invitee_name, invitee_email, invitee_timezone, location_kind, location_value, no_show,
                            canceled_at, cancel_reason, canceled_by, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        eventType.ownerId,
        hostId,
        eventType.id,
        startAt,
        endAt,
        durationMin,
        status,
        options.invitee?.name ?? 'Ina Invitee',
        inviteeEmail,
        options.invitee?.timezone ?? 'Europe/Berlin',
        options.location === undefined ? 'video' : (options.location?.kind ?? null),
        options.location === undefined ? 'https://meet.example.test/abc' : (options.location?.value ?? null),
        options.noShow ?? false,
        status === 'canceled' ? (options.canceledAt ?? createdAt) : null,
        status === 'canceled' ? (options.cancelReason ?? null) : null,
        status === 'canceled' ? 'invitee' : null,
        createdAt,
        createdAt,
      ],
      'run',
    );

    const holds = status === 'active' || status === 'pending';
    let busyBlockId: string | undefined;
    if (holds && eventType.kind === 'group') {
      const [shared] = await tx.execute<{ id: string }[]>(
        `select id from busy_block
          where host_id = ? and event_type_id = ? and start_at = ? and end_at = ? and active
          for update`,
        [hostId, eventType.id, startAt, endAt],
      );
      if (shared) {
        busyBlockId = shared.id;
        await tx.execute('update busy_block set seats_taken = seats_taken + 1 where id = ?', [shared.id], 'run');
      }
    }
    if (!busyBlockId) {
      busyBlockId = newId();
      await tx.execute(
        `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
         values (?, ?, ?, ?, ?, tstzrange(?, ?, '[)'), ?, ?, ?)`,
        [
          busyBlockId,
          hostId,
          eventType.id,
          startAt,
          endAt,
          busyFrom,
          busyTo,
          holds ? 1 : 0,
          holds,
          createdAt,
        ],
        'run',
      );
    }
    await tx.execute('insert into booking_busy_block (booking_id, busy_block_id) values (?, ?)', [id, busyBlockId], 'run');
    await refreshContacts(tx, eventType.ownerId, [inviteeEmail]);
    return { id, ownerId: eventType.ownerId, startAt, endAt, inviteeEmail, busyBlockId };
  });
}

export interface LeadOptions {
  eventType: TestEventType;
  email?: string;
  name?: string | null;
  timezone?: string;
  status?: LeadStatus;
  bookingId?: string | null;
  createdAt?: Date;
  completedAt?: Date | null;
}

export interface TestLead {
  id: string;
  email: string;
  createdAt: Date;
}

export async function createLead(em: EntityManager, options: LeadOptions): Promise<TestLead> {
  const id = newId();
  const email = options.email ?? `lead.${randomBytes(4).toString('hex')}@example.test`;
  const createdAt = options.createdAt ?? new Date();
  await em.transactional(async (tx) => {
    await tx.execute(
      `insert into lead (id, owner_id, event_type_id, name, email, timezone, status, booking_id,
                         created_at, updated_at, completed_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        options.eventType.ownerId,
        options.eventType.id,
        options.name === undefined ? 'Lee Lead' : options.name,
        email,
        options.timezone ?? 'America/Chicago',
        options.status ?? 'new',
        options.bookingId ?? null,
        createdAt,
        createdAt,
        options.completedAt ?? null,
      ],
      'run',
    );
    await refreshContacts(tx, options.eventType.ownerId, [email]);
  });
  return { id, email, createdAt };
}
