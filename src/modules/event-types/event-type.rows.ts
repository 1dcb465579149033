/**
 * The `event_type` table as the service reads it. The table itself is described by its migrations alone (no
 * ORM entity): every query of it is SQL, and this is its one row type, select list and mapper.
 */
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';

/** Who a reminder goes to: the invitee (and each guest), the host, or both. */
export const REMINDER_AUDIENCES = ['invitee', 'host', 'both'] as const;

/** One e-mail reminder of an event type: `offsetMin` minutes before each booking's start. */
export interface Reminder {
  offsetMin: number;
  to: (typeof REMINDER_AUDIENCES)[number];
}

export const EVENT_TYPE_KINDS = ['one_on_one', 'group', 'round_robin', 'collective'] as const;
export type EventTypeKind = (typeof EVENT_TYPE_KINDS)[number];

/** A row of `event_type` (every column), as PostgreSQL returns it. */
export interface EventTypeRow {
  id: string;
  owner_id: string;
  name: string;
  slug: string;
  kind: EventTypeKind;
  durations_min: number[];
  buffer_before_min: number;
  buffer_after_min: number;
  min_notice_min: number;
  slot_interval_min: number | null;
  seats_per_slot: number;
  color: string;
  active: boolean;
  secret: boolean;
  private_link_key_hash: string | null;
  organization_id: string | null;
  reminders: Reminder[];
  created_at: SqlTimestamp;
  updated_at: SqlTimestamp;
}

/** The select list that produces an EventTypeRow from `event_type et`. */
export const EVENT_TYPE_COLUMNS = `et.id, et.owner_id, et.name, et.slug, et.kind, et.durations_min, et.buffer_before_min,
  et.buffer_after_min, et.min_notice_min, et.slot_interval_min, et.seats_per_slot, et.color, et.active, et.secret,
  et.private_link_key_hash, et.organization_id, et.reminders, et.created_at, et.updated_at`;

/** An event type inside the service: what the slot engine, booking and the API representation are built from. */
export interface EventTypeRecord {
  id: string;
  ownerId: string;
  name: string;
  slug: string;
  kind: EventTypeKind;
  durationsMin: number[];
  bufferBeforeMin: number;
  bufferAfterMin: number;
  minNoticeMin: number;
  slotIntervalMin: number | null;
  seatsPerSlot: number;
  color: string;
  active: boolean;
  secret: boolean;
  /** SHA-256 of the private link's key (a bearer secret, never stored in clear). */
  privateLinkKeyHash: string | null;
  organizationId: string | null;
  reminders: Reminder[];
  createdAt: Date;
  updatedAt: Date;
}

export function toEventType(row: EventTypeRow): EventTypeRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    slug: row.slug,
    kind: row.kind,
    durationsMin: row.durations_min,
    bufferBeforeMin: row.buffer_before_min,
    bufferAfterMin: row.buffer_after_min,
    minNoticeMin: row.min_notice_min,
    slotIntervalMin: row.slot_interval_min,
    seatsPerSlot: row.seats_per_slot,
    color: row.color,
    active: row.active,
    secret: row.secret,
    privateLinkKeyHash: row.private_link_key_hash,
    organizationId: row.organization_id,
    reminders: row.reminders,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}
