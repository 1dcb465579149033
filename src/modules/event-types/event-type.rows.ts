/**
 * The `event_type` table as the service reads it. The table itself is described by its migrations alone (no
 * ORM entity): every query of it is SQL, and this is its one row type, select list and mapper.
 */
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import type { EventTypeLocation } from './event-type-locations.schemas.ts';

/** Who a reminder goes to: the invitee (and each guest), the host, or both. */
export const REMINDER_AUDIENCES = ['invitee', 'host', 'both'] as const;

/** One e-mail reminder of an event type: `offsetMin` minutes before each booking's start. */
export interface Reminder {
  offsetMin: number;
  to: (typeof REMINDER_AUDIENCES)[number];
}

export const EVENT_TYPE_KINDS = ['one_on_one', 'group', 'round_robin', 'collective'] as const;
export type EventTypeKind = (typeof EVENT_TYPE_KINDS)[number];

/** Which dates may be booked, in each host's zone: the next `days` days from today, or a fixed range (inclusive). */
export type BookingWindow = { type: 'rolling'; days: number } | { type: 'range'; start: string; end: string };

/** At most this many bookings of the event type per host per local day, week (from Monday) and month. */
export interface BookingLimits {
  perDay?: number;
  perWeek?: number;
  perMonth?: number;
}

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
  notifications: boolean;
  created_at: SqlTimestamp;
  updated_at: SqlTimestamp;
  booking_window_days: number | null;
  /** YYYY-MM-DD (selected as text, so no driver turns the date into a local Date). */
  booking_window_start: string | null;
  booking_window_end: string | null;
  limit_per_day: number | null;
  limit_per_week: number | null;
  limit_per_month: number | null;
  cancel_notice_min: number;
  reschedule_notice_min: number;
  requires_confirmation: boolean;
  recurrence_max_count: number | null;
  description: string | null;
  locations: EventTypeLocation[];
}

/** The select list that produces an EventTypeRow from `event_type et`. */
export const EVENT_TYPE_COLUMNS = `et.id, et.owner_id, et.name, et.slug, et.kind, et.durations_min, et.buffer_before_min,
  et.buffer_after_min, et.min_notice_min, et.slot_interval_min, et.seats_per_slot, et.color, et.active, et.secret,
  et.private_link_key_hash, et.organization_id, et.reminders, et.notifications, et.created_at, et.updated_at, et.booking_window_days,
  et.booking_window_start::text as booking_window_start, et.booking_window_end::text as booking_window_end, et.limit_per_day, et.limit_per_week, et.limit_per_month,
  et.cancel_notice_min, et.reschedule_notice_min, et.requires_confirmation, et.recurrence_max_count, et.description,
  et.locations`;

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
  /** Whether its bookings send e-mail at all: off, nothing is queued for them. */
  notifications: boolean;
  createdAt: Date;
  updatedAt: Date;
  bookingWindow: BookingWindow | null;
  /** Null when no limit is set. */
  limits: BookingLimits | null;
  /** The invitee's own cancellations stop this many minutes before the start (the host's never do). */
  cancelNoticeMin: number;
  /** The invitee's own reschedules stop this many minutes before the start. */
  rescheduleNoticeMin: number;
  /** New bookings start `pending` until the host confirms them. */
  requiresConfirmation: boolean;
  /** Null: invitees book one occurrence at a time; else the most occurrences a series may have. */
  recurrenceMaxCount: number | null;
  /** Plain text for the booking page; null when none. */
  description: string | null;
  /** Where meetings happen; the invitee chooses when there are several. */
  locations: EventTypeLocation[];
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
    notifications: row.notifications,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    bookingWindow: bookingWindowOf(row),
    limits: limitsOf(row),
    cancelNoticeMin: row.cancel_notice_min,
    rescheduleNoticeMin: row.reschedule_notice_min,
    requiresConfirmation: row.requires_confirmation,
    recurrenceMaxCount: row.recurrence_max_count,
    description: row.description,
    locations: row.locations,
  };
}

function bookingWindowOf(row: EventTypeRow): BookingWindow | null {
  if (row.booking_window_days !== null) return { type: 'rolling', days: row.booking_window_days };
  if (row.booking_window_start !== null && row.booking_window_end !== null) {
    return { type: 'range', start: row.booking_window_start, end: row.booking_window_end };
  }
  return null;
}

function limitsOf(row: EventTypeRow): BookingLimits | null {
  if (row.limit_per_day === null && row.limit_per_week === null && row.limit_per_month === null) return null;
  return {
    ...(row.limit_per_day === null ? {} : { perDay: row.limit_per_day }),
    ...(row.limit_per_week === null ? {} : { perWeek: row.limit_per_week }),
    ...(row.limit_per_month === null ? {} : { perMonth: row.limit_per_month }),
  };
}

/** Whether bookings of this event type are counted against limits (the slot engine then reads the counts). */
export function hasLimits(eventType: Pick<EventTypeRecord, 'limits'>): boolean {
  return eventType.limits !== null;
}
