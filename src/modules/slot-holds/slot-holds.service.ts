/**
 * Slot holds: a slot kept for the caller who held it until it is booked with `holdId`, let go, or its time is up.
 * A hold is decided and written exactly as a booking (the same engine under the same host locks, busy blocks
 * under the same exclusion constraint), so two holds, or a hold and a booking, racing for one slot end in one
 * 201 and one 409. The rules: docs/decisions.md, "Slot holds".
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, invalidField, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { findEventType } from '../availability/availability.service.ts';
import { SlotNotOffered } from '../availability/slot-decision.ts';
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import { type BookingCaller, refreshBeforeDeciding } from '../bookings/booking-creation.service.ts';
import { bookingTransaction } from '../bookings/booking-transaction.ts';
import { reserveSlot } from '../bookings/slot-reservation.ts';
import { holdExpiry, holdRefusal } from './hold-rules.ts';
import { SLOT_HOLD_COLUMNS, type SlotHoldRow, toSlotHold } from './slot-hold.rows.ts';
import type { CreateSlotHoldInput, SlotHold } from './slot-holds.schemas.ts';

/** Live holds one client address may have from the booking page at once: a visitor holds one slot at a time. */
export const PAGE_HOLDS_PER_CLIENT = 10;
/** Ended holds are deleted this long after their end, a few at a time by each new hold. */
const PRUNE_AFTER_MS = 3_600_000;
const PRUNE_BATCH = 50;

export interface CreateHoldOptions {
  /** The owner through the API (their own event types only), or the booking page (access already checked). */
  caller: BookingCaller;
  /** Whose hold it is (hold-rules.ts). */
  holder: string;
  /** The booking page's client, hashed: its live holds are capped (PAGE_HOLDS_PER_CLIENT). */
  clientKey?: string;
  now: Date;
  ttlMs: number;
  deadline?: AbortSignal;
  calendarRefresh?: StaleRefresh;
}

export async function createSlotHold(em: EntityManager, input: CreateSlotHoldInput, options: CreateHoldOptions): Promise<SlotHold> {
  const { now } = options;
  await refreshBeforeDeciding(em, input.eventTypeId, options.calendarRefresh);
  const eventType = await findEventType(em, input.eventTypeId, options.caller.kind === 'owner' ? options.caller.userId : undefined);
  if (!eventType) throw notFound('Event type');
  const refusal = holdRefusal(eventType, input.durationMin);
  if (refusal) throw refusal;
  if (options.clientKey !== undefined) await assertClientMayHold(em, options.clientKey, now);

  const id = newId();
  const expiresAt = holdExpiry(now, options.ttlMs);
  const hintKey = options.caller.kind === 'owner' ? `owner:${options.caller.userId}:${eventType.id}` : `public:${eventType.id}`;
  return bookingTransaction(
    em,
    async (tx) => {
      const slot = await reserveSlot(tx, eventType, Date.parse(input.startAt), input.durationMin, now, { hold: { id, expiresAt } }).catch(
        (error: unknown) => {
          throw error instanceof SlotNotOffered ? invalidField(['startAt'], error.message) : error;
        },
      );
      // The blocks' foreign key to this row is checked at commit.
      await tx.execute(
        `insert into slot_hold (id, event_type_id, host_id, holder, client_key, start_at, end_at, duration_min, expires_at, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, eventType.id, slot.hostId, options.holder, options.clientKey ?? null, slot.start, slot.end, input.durationMin, expiresAt, now],
        'run',
      );
      await pruneEndedHolds(tx, now);
      return {
        id,
        eventTypeId: eventType.id,
        startAt: slot.start.toISOString(),
        endAt: slot.end.toISOString(),
        durationMin: input.durationMin,
        hostIds: slot.hostIds,
        expiresAt: expiresAt.toISOString(),
      };
    },
    options.deadline,
    hintKey,
  );
}

/** The caller's live hold; one that ended, or someone else's, is 404. */
export async function getSlotHold(em: EntityManager, holder: string, id: string, now: Date): Promise<SlotHold> {
  const [row] = await em.execute<SlotHoldRow[]>(
    `select ${SLOT_HOLD_COLUMNS} from slot_hold h where h.id = ? and h.holder = ? and h.expires_at > ?`,
    [id, holder, now],
  );
  if (!row) throw notFound('Slot hold');
  return toSlotHold(row);
}

/**
 * Lets the caller's live hold go: its time is free at once. No host lock is needed to free time; a booking with
 * this hold that is under way holds the row, so this waits for it and then finds the hold gone (404).
 */
export async function releaseSlotHold(em: EntityManager, holder: string, id: string, now: Date): Promise<void> {
  const deleted = await em.execute<{ id: string }[]>('delete from slot_hold where id = ? and holder = ? and expires_at > ? returning id', [
    id,
    holder,
    now,
  ]);
  if (deleted.length === 0) throw notFound('Slot hold');
}

async function assertClientMayHold(em: EntityManager, clientKey: string, now: Date): Promise<void> {
  const [row] = await em.execute<{ live: number }[]>(
    'select count(*)::int as live from slot_hold where client_key = ? and expires_at > ?',
    [clientKey, now],
  );
  if ((row?.live ?? 0) >= PAGE_HOLDS_PER_CLIENT) {
    throw new DomainError('rate_limited', `At most ${PAGE_HOLDS_PER_CLIENT} times can be held from one address at once; book or let one go first.`);
  }
}

/** Deletes a few holds that ended long ago, with their blocks: they keep nothing, so no host lock is needed. */
async function pruneEndedHolds(tx: EntityManager, now: Date): Promise<void> {
  await tx.execute(
    `delete from slot_hold where id in (select id from slot_hold where expires_at <= ? order by expires_at limit ${PRUNE_BATCH})`,
    [new Date(now.getTime() - PRUNE_AFTER_MS)],
    'run',
  );
}
