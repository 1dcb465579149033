/**
 * What a booking made with `holdId` does with the hold, inside the booking's transaction: finds the caller's live
 * hold and locks its row (so a release or a second booking with it waits, then finds it gone), and ends it once
 * the hosts' locks are held, so its time passes to the booking with nobody able to take it in between.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField, notFound } from '../../lib/errors.ts';
import { toDate, toIsoString } from '../../lib/sql-values.ts';
import { type HeldSlot, holdMismatch } from './hold-rules.ts';
import { SLOT_HOLD_COLUMNS, type SlotHoldRow } from './slot-hold.rows.ts';

export interface ClaimedHold {
  id: string;
  /** The host the booking would have got when the hold was made (round robin keeps them when still free). */
  hostId: string;
  /** Every host whose time the hold keeps, in id order. */
  hostIds: string[];
}

/**
 * The caller's live hold `holdId`, locked until the transaction ends: 404 when it is unknown, someone else's or
 * has ended; 400 on the booking's field that names another slot than the hold keeps (the start is `startField`:
 * a series names its first occurrence's `startAt`).
 */
export async function claimHold(
  tx: EntityManager,
  holdId: string,
  holder: string | undefined,
  booking: HeldSlot,
  now: Date,
  startField: 'start' | 'startAt' = 'start',
): Promise<ClaimedHold> {
  const [row] =
    holder === undefined
      ? []
      : await tx.execute<SlotHoldRow[]>(
          `select ${SLOT_HOLD_COLUMNS} from slot_hold h where h.id = ? and h.holder = ? and h.expires_at > ? for update of h`,
          [holdId, holder, now],
        );
  if (!row) throw notFound('Slot hold');
  const held = { eventTypeId: row.event_type_id, start: toDate(row.start_at).getTime(), durationMin: row.duration_min };
  const field = holdMismatch(held, booking);
  if (field) throw invalidField([field === 'start' ? startField : field], mismatchMessage(field, row));
  return { id: row.id, hostId: row.host_id, hostIds: row.host_ids };
}

function mismatchMessage(field: 'eventTypeId' | 'start' | 'durationMin', row: SlotHoldRow): string {
  if (field === 'eventTypeId') return `the hold is on another event type (${row.event_type_id})`;
  if (field === 'start') return `the hold keeps the slot starting at ${toIsoString(row.start_at)}`;
  return `the hold keeps a ${row.duration_min}-minute slot`;
}

/** Ends a hold: its row, and with it (the foreign key cascades) its busy blocks. */
export async function endHold(tx: EntityManager, holdId: string): Promise<void> {
  await tx.execute('delete from slot_hold where id = ?', [holdId], 'run');
}
