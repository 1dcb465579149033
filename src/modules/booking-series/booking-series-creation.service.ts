/**
 * Booking a series: every occurrence an ordinary booking, all written in ONE booking transaction or none. The
 * occurrences are reserved under the hosts' calendar locks (series-reservation.ts), then the series row with every
 * booking (one statement), every booking's after-booking effects (webhooks, reminders, calendar write-back; their
 * writes that need no answer a few statements together), then the series' one confirmation per recipient (not one per
 * occurrence, each occurrence's manage link in the invitee's); any refusal rolls everything back, so a losing
 * series leaves nothing behind (and the hold of its first occurrence, if any, kept).
 */
import { resolveBookingLocation } from '../bookings/booking-location.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import type { IdempotencyScope } from '../../lib/idempotency-key.ts';
import { newId } from '../../lib/ids.ts';
import { WriteBatch } from '../../lib/sql-writes.ts';
import { findEventType } from '../availability/availability.service.ts';
import { runAfterBooking } from '../bookings/after-booking.ts';
import { assertBookable, type BookingCaller, bookingValues, hostsHintKey, refreshBeforeDeciding } from '../bookings/booking-creation.service.ts';
import { toBooking } from '../bookings/booking.rows.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';
import { queueNewSeriesMessages } from '../booking-messages/message-outbox.ts';
import { bookingTransaction } from '../bookings/booking-transaction.ts';
import { claimIdempotencyKey, requestHash, storeIdempotentResponse } from '../bookings/idempotency.ts';
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { claimHold } from '../slot-holds/held-slot.ts';
import { insertSeries, readSeries } from './booking-series.rows.ts';
import type { BookingSeries, CreateBookingSeriesInput } from './booking-series.schemas.ts';
import { reserveSeries } from './series-reservation.ts';

export interface CreateSeriesOptions {
  caller: BookingCaller;
  now: Date;
  idempotency?: IdempotencyScope;
  /** The request's deadline: once it has passed, the transaction rolls back instead of committing. */
  deadline?: AbortSignal;
  calendarRefresh?: StaleRefresh;
  /** Public series: a manage link secret (and its hash to store) for each occurrence. */
  newManageToken?: () => { token: string; hash: string };
  /** Whose slot holds this caller may book the first occurrence with (`holdId`); none: every holdId is 404. */
  holder?: string;
}

export interface CreateSeriesResult {
  status: number;
  series: BookingSeries;
  replayed: boolean;
  /** The manage link secret of each occurrence, in the series' order (public series only, not on a replay). */
  manageTokens?: string[];
}

const DAY = 86_400_000;
/** The first instant an RFC 3339 date-time cannot write (four-digit years). */
const YEAR_10000 = Date.UTC(10000, 0, 1);

export async function createBookingSeries(
  em: EntityManager,
  input: CreateBookingSeriesInput,
  options: CreateSeriesOptions,
): Promise<CreateSeriesResult> {
  const { frequency, interval, count } = input.recurrence;
  // The last occurrence at most 31 days a month (or 7 a week) on: a series must end before the year 10000.
  const span = count * interval * (frequency === 'daily' ? 1 : frequency === 'weekly' ? 7 : 31) * DAY;
  if (Date.parse(input.startAt) + span + DAY >= YEAR_10000) throw invalidField(['startAt'], 'must leave the whole series before the year 10000');
  await refreshBeforeDeciding(em, input.eventTypeId, options.calendarRefresh);
  const hash = options.idempotency ? requestHash(input) : '';
  return bookingTransaction(
    em,
    async (tx) => {
      if (options.idempotency) {
        const stored = await claimIdempotencyKey(tx, options.idempotency, hash);
        if (stored) return { status: stored.status, series: stored.body as BookingSeries, replayed: true };
      }
      const result = await bookSeries(tx, input, options, await readEventType(tx, input.eventTypeId, options.caller));
      if (options.idempotency) await storeIdempotentResponse(tx, options.idempotency, { status: 201, body: result.series });
      return { status: 201, ...result, replayed: false };
    },
    options.deadline,
    hostsHintKey(input.eventTypeId, options.caller),
  );
}

async function readEventType(tx: EntityManager, eventTypeId: string, caller: BookingCaller): Promise<EventTypeRecord> {
  const eventType = await findEventType(tx, eventTypeId, caller.kind === 'owner' ? caller.userId : undefined);
  if (!eventType) throw notFound('Event type');
  return eventType;
}

/** The event type's refusal of any series: it does not take them (its `recurrence` is null). */
function assertSeriesAllowed(eventType: EventTypeRecord): void {
  if (eventType.recurrenceMaxCount !== null) return;
  const message = 'This event type does not take booking series: book its occurrences one at a time.';
  throw new DomainError('conflict', message, [{ code: 'recurrence_not_allowed', path: ['recurrence'], message }]);
}

async function bookSeries(
  tx: EntityManager,
  input: CreateBookingSeriesInput,
  options: CreateSeriesOptions,
  eventType: EventTypeRecord,
): Promise<{ series: BookingSeries; manageTokens?: string[] }> {
  assertBookable(eventType, input.durationMin);
  assertSeriesAllowed(eventType);
  const now = options.now;
  const ownerId = eventType.ownerId;
  const startAt = Date.parse(input.startAt);
  const hold =
    input.holdId === undefined
      ? undefined
      : await claimHold(tx, input.holdId, options.holder, { eventTypeId: input.eventTypeId, start: startAt, durationMin: input.durationMin }, now, 'startAt');
  const reserved = await reserveSeries(tx, {
    eventType,
    startAt,
    durationMin: input.durationMin,
    recurrence: input.recurrence,
    now,
    viewerId: options.caller.kind === 'owner' ? options.caller.userId : ownerId,
    hold,
  });
  const seriesId = newId();
  const location = resolveBookingLocation(eventType.locations, input);
  const manages = reserved.slots.map(() => options.newManageToken?.());
  const created = await insertSeries(
    tx,
    {
      id: seriesId,
      owner_id: ownerId,
      event_type_id: eventType.id,
      host_id: reserved.hostId,
      frequency: input.recurrence.frequency,
      repeat_interval: input.recurrence.interval,
      occurrence_count: input.recurrence.count,
      time_zone: reserved.timeZone,
      first_start_at: reserved.slots[0]!.start,
      created_at: now,
    },
    reserved.slots.map((slot, index) => ({
      values: bookingValues({ id: newId(), eventType, hostId: slot.hostId, start: slot.start, end: slot.end, blockIds: slot.blockIds, location, seriesId }, input, manages[index]?.hash ?? null, now),
      blockIds: slot.blockIds,
    })),
  );
  const tokensByBooking: Record<string, string> = {};
  const occurrences: Booking[] = [];
  // Every occurrence's writes that need no answer go together (a statement per 24; their text varies with the
  // occurrences): the hosts' locks are held meanwhile.
  const batch = new WriteBatch({ prepare: false });
  for (const [index, { converted_lead_ids: convertedLeadIds, ...inserted }] of created.entries()) {
    const booking = toBooking({ ...inserted, event_type_name: eventType.name, event_type_slug: eventType.slug });
    const manageToken = manages[index]?.token;
    await runAfterBooking(
      tx,
      {
        booking,
        ownerId,
        inviteeEmail: input.invitee.email,
        convertedLeadIds,
        reminders: eventType.reminders,
        notifications: eventType.notifications,
        manageToken,
        inSeries: true,
        writesBack: reserved.slots[index]!.writesBack,
        now,
      },
      batch,
    );
    occurrences.push(booking);
    if (manageToken) tokensByBooking[booking.id] = manageToken;
  }
  await batch.flush(tx);
  if (eventType.notifications) {
    const { frequency, interval } = input.recurrence;
    await queueNewSeriesMessages(tx, occurrences, { id: seriesId, frequency, interval }, tokensByBooking, now);
  }
  const series = await readSeries(tx, ownerId, seriesId);
  return options.newManageToken ? { series, manageTokens: manages.map((manage) => manage!.token) } : { series };
}
