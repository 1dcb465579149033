import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField, notFound } from '../../lib/errors.ts';
import {
  EVENT_TYPE_COLUMNS,
  type EventTypeKind,
  type EventTypeRecord,
  type EventTypeRow,
  toEventType,
} from '../event-types/event-type.rows.ts';
import type { AvailabilityInput, AvailabilityOutput, Slot } from './availability.schemas.ts';
import type { DateOverride, WeeklyHours } from './schedule.ts';
import { computeHostSlots, type HostAvailability, type HostSlot, type SlotRules, type TimeRange } from './slots.ts';
import { formatInZone } from './wall-clock.ts';

const DAY = 86_400_000;

/** An event type by id; with `ownerId`, only if that user owns it (another user's is as missing as an unknown one). */
export async function findEventType(
  em: EntityManager,
  id: string,
  ownerId?: string,
): Promise<EventTypeRecord | undefined> {
  const [row] = await em.execute<EventTypeRow[]>(
    `select ${EVENT_TYPE_COLUMNS} from event_type et where et.id = ?${ownerId === undefined ? '' : ' and et.owner_id = ?'}`,
    ownerId === undefined ? [id] : [id, ownerId],
  );
  return row ? toEventType(row) : undefined;
}

export interface Host {
  id: string;
  timeZone: string;
  weekly: WeeklyHours;
  overrides: DateOverride[];
}

/**
 * Who hosts an event type. one_on_one and group: the owner. round_robin and collective: the users listed
 * in event_type_host, or the owner alone when none are listed. A host without a schedule row has no hours.
 * Ordered by id (the lock order when blocks of several hosts are inserted together).
 */
export async function loadHosts(em: EntityManager, eventType: EventTypeRecord): Promise<Host[]> {
  const multi = eventType.kind === 'round_robin' || eventType.kind === 'collective';
  const rows = await em.execute<
    { id: string; timezone: string; weekly: WeeklyHours | null; overrides: DateOverride[] | null }[]
  >(
    `with listed as (
       select user_id from event_type_host where ? and event_type_id = ?
     ), hosts as (
       select user_id from listed
       union all
       select ?::text where not exists (select 1 from listed)
     )
     select u.id, u.timezone, s.weekly, s.overrides
       from hosts h join app_user u on u.id = h.user_id
       left join availability_schedule s on s.user_id = u.id
      order by u.id`,
    [multi, eventType.id, eventType.ownerId],
  );
  return rows.map((row) => ({
    id: row.id,
    timeZone: row.timezone,
    weekly: row.weekly ?? { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
    overrides: row.overrides ?? [],
  }));
}

interface BusyRow {
  host_id: string;
  event_type_id: string;
  busy_start: number;
  busy_end: number;
  slot_start: number;
  slot_end: number;
  seats_taken: number;
}

/**
 * The hosts' active busy blocks that can matter for slots in [from, to], in ONE query over the exclusion
 * constraint's GiST index (host_id, busy): buffers are at most a day, so a day of margin on each side.
 * A group block of this event type with seats left is also an open seat.
 */
export async function loadHostAvailability(
  em: EntityManager,
  eventType: EventTypeRecord,
  hosts: readonly Host[],
  from: number,
  to: number,
): Promise<HostAvailability[]> {
  if (hosts.length === 0) return [];
  const rows = await em.execute<BusyRow[]>(
    `select host_id, event_type_id, seats_taken,
            (extract(epoch from lower(busy)) * 1000)::float8 as busy_start,
            (extract(epoch from upper(busy)) * 1000)::float8 as busy_end,
            (extract(epoch from start_at) * 1000)::float8 as slot_start,
            (extract(epoch from end_at) * 1000)::float8 as slot_end
       from busy_block
      where active and host_id in (?) and busy && tstzrange(?, ?)`,
    [hosts.map((host) => host.id), new Date(from - DAY), new Date(to + DAY)],
  );
  const busy = new Map<string, TimeRange[]>(hosts.map((host) => [host.id, []]));
  const openSeats = new Map<string, TimeRange[]>(hosts.map((host) => [host.id, []]));
  for (const row of rows) {
    busy.get(row.host_id)?.push({ start: row.busy_start, end: row.busy_end });
    if (eventType.kind === 'group' && row.event_type_id === eventType.id && row.seats_taken < eventType.seatsPerSlot) {
      openSeats.get(row.host_id)?.push({ start: row.slot_start, end: row.slot_end });
    }
  }
  return hosts.map((host) => ({
    hostId: host.id,
    schedule: { weekly: host.weekly, overrides: host.overrides, timeZone: host.timeZone },
    busy: busy.get(host.id) ?? [],
    openSeats: openSeats.get(host.id) ?? [],
  }));
}

/** Round robin: a slot when any host is free; collective: only when all are; single-host kinds: the owner. */
export function hostMode(kind: EventTypeKind): 'any' | 'all' {
  return kind === 'collective' ? 'all' : 'any';
}

export function slotRules(eventType: EventTypeRecord, durationMin: number, now: Date, from: number, to: number): SlotRules {
  return {
    durationMin,
    stepMin: eventType.slotIntervalMin ?? durationMin,
    bufferBeforeMin: eventType.bufferBeforeMin,
    bufferAfterMin: eventType.bufferAfterMin,
    minNoticeMin: eventType.minNoticeMin,
    now: now.getTime(),
    from,
    to,
  };
}

/** Slots of an event type in [from, to] for a chosen duration, with the hosts free for each. */
export async function computeEventTypeSlots(
  em: EntityManager,
  eventType: EventTypeRecord,
  durationMin: number,
  now: Date,
  from: number,
  to: number,
): Promise<HostSlot[]> {
  const hosts = await loadHosts(em, eventType);
  const availability = await loadHostAvailability(em, eventType, hosts, from, to);
  return computeHostSlots(slotRules(eventType, durationMin, now, from, to), availability, hostMode(eventType.kind));
}

/** The instant written in `tz`'s offset, or as UTC (`…Z`, like every other date-time of the API) without one. */
export function writeInstant(epochMs: number, tz: string | undefined): string {
  return tz ? formatInZone(epochMs, tz) : new Date(epochMs).toISOString();
}

/**
 * Bookable slots of an event type (input already validated: window, zone). `duration` must be one of the
 * event type's durations (400 otherwise); an inactive event type offers nothing.
 */
export async function getAvailabilityFor(
  em: EntityManager,
  eventType: EventTypeRecord,
  input: AvailabilityInput,
  now: Date,
): Promise<AvailabilityOutput> {
  const durationMin = input.duration ?? eventType.durationsMin[0]!;
  if (!eventType.durationsMin.includes(durationMin)) {
    throw invalidField(['duration'], `must be one of this event type's durations: ${eventType.durationsMin.join(', ')}`);
  }
  if (!eventType.active) return { data: [] };
  const slots = await computeEventTypeSlots(em, eventType, durationMin, now, Date.parse(input.from), Date.parse(input.to));
  return {
    data: slots.map(
      (slot): Slot => ({ start: writeInstant(slot.start, input.tz), end: writeInstant(slot.end, input.tz) }),
    ),
  };
}

/** GET /availability: slots of one of the caller's own event types. */
export async function getAvailability(
  em: EntityManager,
  ownerId: string,
  input: AvailabilityInput,
  now: Date,
): Promise<AvailabilityOutput> {
  const eventType = await findEventType(em, input.eventTypeId, ownerId);
  if (!eventType) throw notFound('Event type');
  return getAvailabilityFor(em, eventType, input, now);
}
