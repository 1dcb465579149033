/**
 * Booking creation, the one path of POST /bookings and the public booking page, in one `bookingTransaction`. It
 * re-runs the slot engine for exactly this slot under the hosts' calendar turns, so a slot is bookable if and only
 * if /availability offers it; an overlap that still slips past in a race hits the exclusion constraint, a 23P01,
 * hence a 409, never a 500. Group, round-robin and collective rules: docs/decisions.md, "Schedules and availability".
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { insertInto } from '../../lib/table-columns.ts';
import { type EventTypeForSlot, readEventTypeForSlot } from '../availability/slot-decision.ts';
import { refreshStaleCalendars, type StaleRefresh } from '../calendars/calendar-sync.ts';
import { contactLockKey } from '../contacts/contacts.projection.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { runAfterBooking } from './after-booking.ts';
import { BOOKING_RETURNING, type BookingColumn, type BookingOwnRow, toBooking } from './booking.rows.ts';
import type { Booking, CreateBookingInput } from './bookings.schemas.ts';
import { bookingTransaction, lockHostCalendars } from './booking-transaction.ts';
import { type BookingLocation, resolveBookingLocation } from './booking-location.ts';
import { type ReservedSlot, reserveSlot } from './slot-reservation.ts';
import { loadHosts } from '../availability/availability.service.ts';
import { claimHold, endHold } from '../slot-holds/held-slot.ts';
import type { IdempotencyScope } from '../../lib/idempotency-key.ts';
import { claimIdempotencyKey, requestHash, storeIdempotentResponse } from './idempotency.ts';

/** Who is booking: the owner through the API (their own event types only) or an invitee on the public page. */
export type BookingCaller = { kind: 'owner'; userId: string } | { kind: 'public' };

export interface CreateBookingOptions {
  caller: BookingCaller;
  now: Date;
  idempotency?: IdempotencyScope;
  /** The request's deadline: once it has passed, the transaction rolls back instead of committing. */
  deadline?: AbortSignal;
  /** The SHA-256 of the invitee's manage link secret (public bookings only; the secret itself is stored only sealed, for their e-mails). */
  manageTokenHash?: string;
  /** That secret, for the invitee's confirmation e-mail. */
  manageToken?: string;
  /** Refreshes the hosts' connected calendars synced too long ago, with a bounded wait, before the slot is decided. */
  calendarRefresh?: StaleRefresh;
  /** Whose slot holds this caller may book with `holdId` (slot-holds/hold-rules.ts); none: every holdId is 404. */
  holder?: string;
}

export interface CreateBookingResult {
  status: number;
  booking: Booking;
  /** True when this is the stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

const MINUTE = 60_000;

export async function createBooking(
  em: EntityManager,
  input: CreateBookingInput,
  options: CreateBookingOptions,
): Promise<CreateBookingResult> {
  await refreshBeforeDeciding(em, input.eventTypeId, options.calendarRefresh);
  const hash = options.idempotency ? requestHash(input) : '';
  // Without an Idempotency-Key there is no stored response to replay first, so step 2's read (and its 404) comes
  // before the booking queues for its hosts' turn and opens its transaction: bookings of one host take turns for
  // their writes only. A read outside the transaction sees what one inside would (READ COMMITTED, nothing locked);
  // the check under the hosts' locks has the last word on the slot.
  const early = options.idempotency ? undefined : await readEventType(em, input, options.caller, options.now);
  return bookingTransaction(em, async (tx) => {
    if (options.idempotency) {
      const stored = await claimIdempotencyKey(tx, options.idempotency, hash);
      if (stored) return { status: stored.status, booking: stored.body as Booking, replayed: true };
    }
    const booking = await bookSlot(tx, input, options, early ?? (await readEventType(tx, input, options.caller, options.now)));
    if (options.idempotency) await storeIdempotentResponse(tx, options.idempotency, { status: 201, body: booking });
    return { status: 201, booking, replayed: false };
  }, options.deadline, hostsHintKey(input.eventTypeId, options.caller));
}

/**
 * Before a booking or a reschedule decides: the event type's hosts' calendars synced too long ago are refreshed,
 * with a bounded wait. Outside the transaction and before the hosts' turn: it may wait on a calendar server.
 */
export async function refreshBeforeDeciding(em: EntityManager, eventTypeId: string, refresh: StaleRefresh | undefined): Promise<void> {
  if (refresh) await refreshStaleCalendars(em, eventTypeId, refresh);
}

/**
 * Whose earlier bookings tell where this one will queue: the caller's own, so that requests naming someone
 * else's event type (a 404 for an owner) never queue behind, or ahead of, its host's bookings.
 */
export function hostsHintKey(eventTypeId: string, caller: BookingCaller): string {
  return caller.kind === 'owner' ? `owner:${caller.userId}:${eventTypeId}` : `public:${eventTypeId}`;
}

/** What a new booking writes, column by column: `?` is a parameter, in `bookingInsertParams`' order. */
export const BOOKING_INSERT_VALUES = {
  id: '?',
  owner_id: '?',
  host_id: '?',
  event_type_id: '?',
  start_at: '?',
  end_at: '?',
  duration_min: '?',
  status: '?',
  invitee_name: '?',
  invitee_email: '?',
  invitee_timezone: '?',
  invitee_phone: '?',
  invitee_sms_opt_in: '?',
  guests: 'array(select jsonb_array_elements_text(?::jsonb))',
  answers: '?::jsonb',
  notes: '?',
  location_kind: '?',
  location_value: '?',
  manage_token_hash: '?',
  series_id: '?',
  created_at: '?',
  updated_at: '?',
} satisfies Partial<Record<BookingColumn, string>>;

/**
 * The statement that writes a booking's own rows in one round trip: the booking, its links to its busy blocks and
 * the conversion of the invitee's open leads on this event type; foreign keys are checked at its end. It also
 * takes the invitee's contact lock, after the hosts' as every booking write does, so the contact refresh needs no
 * statement of its own. The bench's baseline runs exactly this statement.
 */
export const BOOKING_STATEMENTS = {
  create: `with inserted as (
       ${insertInto('booking', BOOKING_INSERT_VALUES)}
       returning ${BOOKING_RETURNING}
     ), linked as (
       insert into booking_busy_block (booking_id, busy_block_id)
       select inserted.id, block_id from inserted cross join unnest(?::text[]) as block_id
     ), converted as (
       update lead set booking_id = inserted.id, completed_at = inserted.created_at, updated_at = inserted.created_at
         from inserted
        where lead.event_type_id = inserted.event_type_id and lower(lead.email) = lower(inserted.invitee_email)
          and lead.booking_id is null
       returning lead.id
     )
     select inserted.*, array(select id from converted) as converted_lead_ids
       from inserted cross join (select pg_advisory_xact_lock(hashtextextended(?, 0))) as contact_lock`,
};

/** What `BOOKING_STATEMENTS.create` returns: the new row as readBooking reads it, less the event type's columns. */
export type CreatedBookingRow = BookingOwnRow & { converted_lead_ids: string[] };

/** What a new booking writes, by column (BOOKING_INSERT_VALUES' keys). */
export type BookingValues = Record<keyof typeof BOOKING_INSERT_VALUES, unknown>;

/** The row a booking to create is written from. */
export interface NewBookingRow {
  id: string;
  eventType: EventTypeRecord;
  hostId: string;
  start: Date;
  end: Date;
  blockIds: readonly string[];
  /** Where it happens, resolved from the request (`resolveBookingLocation`). */
  location: BookingLocation | null;
  seriesId?: string;
}

/** What a booking's values take from its request (a series' too). */
type BookingRequest = Pick<CreateBookingInput, 'durationMin' | 'invitee' | 'guests' | 'answers' | 'notes'>;

export function bookingValues(row: NewBookingRow, input: BookingRequest, manageTokenHash: string | null, now: Date): BookingValues {
  return {
    id: row.id,
    owner_id: row.eventType.ownerId,
    host_id: row.hostId,
    event_type_id: row.eventType.id,
    start_at: row.start,
    end_at: row.end,
    duration_min: input.durationMin,
    status: row.eventType.requiresConfirmation ? 'pending' : 'active',
    invitee_name: input.invitee.name,
    invitee_email: input.invitee.email,
    invitee_timezone: input.invitee.timezone,
    invitee_phone: input.invitee.textReminderNumber ?? null,
    invitee_sms_opt_in: input.invitee.smsOptIn ?? false,
    guests: JSON.stringify(input.guests ?? []),
    answers: JSON.stringify(input.answers ?? []),
    notes: input.notes ?? null,
    location_kind: row.location?.kind ?? null,
    location_value: row.location?.value ?? null,
    manage_token_hash: manageTokenHash,
    series_id: row.seriesId ?? null,
    created_at: now,
    updated_at: now,
  };
}

/** The columns of BOOKING_INSERT_VALUES, in its order (each written from one parameter). */
export const BOOKING_INSERT_COLUMNS = Object.keys(BOOKING_INSERT_VALUES) as (keyof typeof BOOKING_INSERT_VALUES)[];

/** The parameters of `BOOKING_STATEMENTS.create`, in its order. */
export function bookingInsertParams(row: NewBookingRow, input: CreateBookingInput, manageTokenHash: string | null, now: Date): unknown[] {
  const values = bookingValues(row, input, manageTokenHash, now);
  return [...BOOKING_INSERT_COLUMNS.map((column) => values[column]), row.blockIds, contactLockKey(row.eventType.ownerId, input.invitee.email)];
}

async function bookSlot(
  tx: EntityManager,
  input: CreateBookingInput,
  options: CreateBookingOptions,
  { eventType, calendars }: EventTypeForSlot,
): Promise<Booking> {
  assertBookable(eventType, input.durationMin);
  const location = resolveBookingLocation(eventType.locations, input);
  const slot =
    input.holdId === undefined
      ? await reserveSlot(tx, eventType, Date.parse(input.start), input.durationMin, options.now, { calendars })
      : await bookHeldSlot(tx, eventType, input, input.holdId, options);
  const { hostId, blockIds } = slot;

  const now = options.now;
  // The new row as readBooking would read it back (one round trip fewer): its own columns, the event type's
  // name and slug from step 2's read.
  const [created] = await executePrepared<CreatedBookingRow>(
    tx,
    'booking.create',
    BOOKING_STATEMENTS.create,
    bookingInsertParams({ id: newId(), eventType, hostId, start: slot.start, end: slot.end, blockIds, location }, input, options.manageTokenHash ?? null, now),
  );
  const { converted_lead_ids: convertedLeadIds, ...inserted } = created!;
  const booking = toBooking({ ...inserted, event_type_name: eventType.name, event_type_slug: eventType.slug });
  await runAfterBooking(tx, {
    booking,
    ownerId: eventType.ownerId,
    inviteeEmail: input.invitee.email,
    convertedLeadIds,
    notifications: eventType.notifications,
    reminders: eventType.reminders,
    manageToken: options.manageToken,
    writesBack: slot.writesBack,
    now,
  });
  return booking;
}

/**
 * The slot of the caller's hold: the hold ends under the locks of its hosts and the event type's, and the slot is
 * decided again without it (the host's calendar may have changed meanwhile), its round-robin host first.
 */
async function bookHeldSlot(
  tx: EntityManager,
  eventType: EventTypeRecord,
  input: CreateBookingInput,
  holdId: string,
  options: CreateBookingOptions,
): Promise<ReservedSlot> {
  const start = Date.parse(input.start);
  const hold = await claimHold(tx, holdId, options.holder, { eventTypeId: input.eventTypeId, start, durationMin: input.durationMin }, options.now);
  const hosts = await loadHosts(tx, eventType);
  await lockHostCalendars(tx, [...hold.hostIds, ...hosts.map((host) => host.id)], options.now);
  await endHold(tx, hold.id);
  return reserveSlot(tx, eventType, start, input.durationMin, options.now, { calendarsLocked: true, preferredHostId: hold.hostId });
}

/** Step 2's read: the event type (404 when unknown or not the owner's) and, for an owner, its hosts' calendars. */
async function readEventType(em: EntityManager, input: CreateBookingInput, caller: BookingCaller, now: Date): Promise<EventTypeForSlot> {
  const start = Date.parse(input.start);
  const ownerId = caller.kind === 'owner' ? caller.userId : undefined;
  const read = await readEventTypeForSlot(em, input.eventTypeId, ownerId, start, start + input.durationMin * MINUTE, now);
  if (!read) throw notFound('Event type');
  return read;
}

/** The event type's refusals: an inactive event type, or a duration it does not offer (409). */
export function assertBookable(eventType: EventTypeRecord, durationMin: number): void {
  if (!eventType.active) {
    throw new DomainError('conflict', 'This event type is inactive and does not accept bookings.');
  }
  if (!eventType.durationsMin.includes(durationMin)) {
    throw new DomainError(
      'conflict',
      `This event type does not offer ${durationMin}-minute bookings; its durations are ${eventType.durationsMin.join(', ')} minutes.`,
    );
  }
}
