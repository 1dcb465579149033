/**
 * The `slot_hold` table as the service reads it (SQL only, no entity). A hold's time lives in its busy blocks
 * (`busy_block.hold_id`), under the exclusion constraint bookings use; this row says whose it is and for what.
 */
import { type SqlTimestamp, toIsoString } from '../../lib/sql-values.ts';
import { column, type RowOf, selectList } from '../../lib/table-columns.ts';
import type { SlotHold } from './slot-holds.schemas.ts';

export const SLOT_HOLD_ROW_COLUMNS = {
  id: column<string>(),
  event_type_id: column<string>(),
  host_id: column<string>(),
  start_at: column<SqlTimestamp>(),
  end_at: column<SqlTimestamp>(),
  duration_min: column<number>(),
  expires_at: column<SqlTimestamp>(),
  /** Every host whose time the hold keeps, in id order (the lock order). */
  host_ids: column<string[]>('array(select bb.host_id from busy_block bb where bb.hold_id = h.id order by bb.host_id)'),
};

/** Written, never read back: whose hold it is, and for holds of the booking page, the client's hashed address. */
export const SLOT_HOLD_WRITE_ONLY_COLUMNS = {
  holder: column<string>(),
  client_key: column<string | null>(),
  created_at: column<SqlTimestamp>(),
};

export type SlotHoldRow = RowOf<typeof SLOT_HOLD_ROW_COLUMNS>;

/** The select list that produces a SlotHoldRow from `slot_hold h`. */
export const SLOT_HOLD_COLUMNS = selectList('h', SLOT_HOLD_ROW_COLUMNS);

export function toSlotHold(row: SlotHoldRow): SlotHold {
  return {
    id: row.id,
    eventTypeId: row.event_type_id,
    startAt: toIsoString(row.start_at),
    endAt: toIsoString(row.end_at),
    durationMin: row.duration_min,
    hostIds: row.host_ids,
    expiresAt: toIsoString(row.expires_at),
  };
}
