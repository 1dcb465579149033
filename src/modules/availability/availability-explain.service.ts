import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField, notFound } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { type EventTypeRecord, hasLimits } from '../event-types/event-type.rows.ts';
import { countingRange } from './booking-rules.ts';
import type { ExplainInput, ExplainOutput } from './availability-explain.schemas.ts';
import { findEventType, type Host, hostMode, loadHosts, parseMinutes, slotRules } from './availability.service.ts';
import { MINUTE_MS } from './intervals.ts';
import { type BusyEntry, type CalendarBusyEntry, type ExplainHost, explainSlot } from './slot-reasons.ts';

/** The first instant an RFC 3339 date-time cannot write (four-digit years). */
const YEAR_10000 = Date.UTC(10000, 0, 1);

interface BusyRow {
  host_id: string;
  event_type_id: string;
  busy_from: number;
  busy_to: number;
  meeting_from: number;
  meeting_to: number;
  seats_taken: number;
  booking_ids: string[];
  pending: boolean;
  held: boolean;
}

/**
 * The hosts' busy blocks that are busy now and can touch the slot with its buffers, in minutes (busy time rounded
 * outward as the slot engine's own query does), each with the ids of its active and pending bookings that the
 * caller owns (a shared host's bookings of another user's event types are never named), whether all of them are
 * the caller's and pending, and whether it is a live slot hold's (whose, is never said).
 */
const BUSY_SQL = `select bb.host_id, bb.event_type_id, bb.seats_taken,
       floor(date_part('epoch', lower(bb.busy)) / 60)::int as busy_from,
       ceil(date_part('epoch', upper(bb.busy)) / 60)::int as busy_to,
       date_part('epoch', bb.start_at) / 60 as meeting_from,
       date_part('epoch', bb.end_at) / 60 as meeting_to,
       array(select b.id from booking_busy_block bbb join booking b on b.id = bbb.booking_id
              where bbb.busy_block_id = bb.id and b.owner_id = ? and b.status in ('active', 'pending') order by b.id) as booking_ids,
       coalesce((select bool_and(b.status = 'pending' and b.owner_id = ?) from booking_busy_block bbb join booking b on b.id = bbb.booking_id
                  where bbb.busy_block_id = bb.id and b.status in ('active', 'pending')), false) as pending,
       bb.hold_id is not null as held
  from busy_block bb
 where bb.host_id = any(?::text[]) and bb.active and bb.busy && tstzrange(?, ?)
   and (bb.hold_expires_at is null or bb.hold_expires_at > ?)
 order by bb.host_id, bb.start_at, bb.id`;

interface CalendarBusyRow {
  host_id: string;
  busy_from: number;
  busy_to: number;
  connection_id: string;
  connection_name: string;
  owner_id: string;
}

/** The hosts' connected-calendar busy times around the slot, rounded outward as the engine reads them. */
const CALENDAR_BUSY_SQL = `select cb.host_id, c.id as connection_id, c.name as connection_name, c.owner_id,
       floor(date_part('epoch', lower(cb.busy)) / 60)::int as busy_from,
       ceil(date_part('epoch', upper(cb.busy)) / 60)::int as busy_to
  from calendar_busy cb join calendar_connection c on c.id = cb.connection_id
 where cb.host_id = any(?::text[]) and cb.counts and cb.busy && tstzrange(?, ?)
 order by cb.host_id, lower(cb.busy)`;

/** GET /availability/explain: the engine's verdict on one slot of the caller's event type, and every reason. */
export async function explainAvailability(em: EntityManager, ownerId: string, input: ExplainInput, now: Date): Promise<ExplainOutput> {
  const eventType = await findEventType(em, input.eventTypeId, ownerId);
  if (!eventType) throw notFound('Event type');
  const durationMin = input.durationMin ?? eventType.durationsMin[0]!;
  if (!eventType.durationsMin.includes(durationMin)) {
    throw invalidField(['durationMin'], `must be one of this event type's durations: ${eventType.durationsMin.join(', ')}`);
  }
  const start = Date.parse(input.start);
  if (start + durationMin * MINUTE_MS >= YEAR_10000) throw invalidField(['start'], 'must leave the slot ending before the year 10000');
  return explainSlotOf(em, eventType, ownerId, start, durationMin, now);
}

/**
 * The engine's verdict on one slot of an event type (duration already checked) and every reason, naming only
 * `ownerId`'s own bookings and calendars; also inside a transaction, whose own writes it then sees.
 */
export async function explainSlotOf(
  em: EntityManager,
  eventType: EventTypeRecord,
  ownerId: string,
  start: number,
  durationMin: number,
  now: Date,
): Promise<ExplainOutput> {
  const end = start + durationMin * MINUTE_MS;
  const hosts = await loadHosts(em, eventType);
  const from = start - eventType.bufferBeforeMin * MINUTE_MS;
  const to = end + eventType.bufferAfterMin * MINUTE_MS;
  const busy = await loadBusy(em, eventType, ownerId, hosts, from, to, now);
  const calendarBusy = await loadCalendarBusy(em, ownerId, hosts, from, to);
  const counted = hasLimits(eventType) ? await loadCounted(em, eventType, hosts, start, now) : undefined;
  const explanation = explainSlot({
    rules: slotRules(eventType, durationMin, now, start, end),
    mode: hostMode(eventType.kind),
    active: eventType.active,
    hosts: hosts.map((host): ExplainHost => ({
      hostId: host.id,
      schedule: { weekly: host.weekly, overrides: host.overrides, timeZone: host.timeZone },
      busy: busy.get(host.id) ?? [],
      calendarBusy: calendarBusy.get(host.id) ?? [],
      ...(counted ? { counted: counted.get(host.id) ?? [] } : {}),
    })),
  });
  return { ...explanation, start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

async function loadBusy(
  em: EntityManager,
  eventType: EventTypeRecord,
  ownerId: string,
  hosts: readonly Host[],
  from: number,
  to: number,
  now: Date,
): Promise<Map<string, BusyEntry[]>> {
  // A minute of margin: the engine compares busy time rounded outward to minutes.
  const rows = await executePrepared<BusyRow>(em, 'availability.explain-busy', BUSY_SQL, [
    ownerId,
    ownerId,
    hosts.map((host) => host.id),
    new Date(from - MINUTE_MS),
    new Date(to + MINUTE_MS),
    now,
  ]);
  const byHost = new Map<string, BusyEntry[]>();
  for (const row of rows) {
    const entries = byHost.get(row.host_id) ?? [];
    entries.push(toBusyEntry(eventType, row));
    byHost.set(row.host_id, entries);
  }
  return byHost;
}

function toBusyEntry(eventType: EventTypeRecord, row: BusyRow): BusyEntry {
  const groupSlot = eventType.kind === 'group' && row.event_type_id === eventType.id;
  return {
    busy: [Number(row.busy_from), Number(row.busy_to)],
    meeting: [Number(row.meeting_from), Number(row.meeting_to)],
    bookingIds: row.booking_ids,
    ...(row.pending ? { pending: true } : {}),
    ...(row.held ? { held: true } : {}),
    ...(groupSlot ? { seats: row.seats_taken < eventType.seatsPerSlot ? ('open' as const) : ('full' as const) } : {}),
  };
}

async function loadCalendarBusy(
  em: EntityManager,
  ownerId: string,
  hosts: readonly Host[],
  from: number,
  to: number,
): Promise<Map<string, CalendarBusyEntry[]>> {
  const rows = await executePrepared<CalendarBusyRow>(em, 'availability.explain-calendar-busy', CALENDAR_BUSY_SQL, [
    hosts.map((host) => host.id),
    new Date(from - MINUTE_MS),
    new Date(to + MINUTE_MS),
  ]);
  const byHost = new Map<string, CalendarBusyEntry[]>();
  for (const row of rows) {
    const entries = byHost.get(row.host_id) ?? [];
    const connection = row.owner_id === ownerId ? { connection: { id: row.connection_id, name: row.connection_name } } : {};
    entries.push({ busy: [Number(row.busy_from), Number(row.busy_to)], ...connection });
    byHost.set(row.host_id, entries);
  }
  return byHost;
}

/** What the limits count for each host around the slot: pairs (start minute, seats), as the engine's query reads them. */
async function loadCounted(
  em: EntityManager,
  eventType: EventTypeRecord,
  hosts: readonly Host[],
  start: number,
  now: Date,
): Promise<Map<string, number[]>> {
  const range = countingRange(eventType.limits, start, start);
  const rows = await executePrepared<{ host_id: string; counted: string }>(
    em,
    'availability.explain-counted',
    `select bb.host_id, string_agg(bb.start_seats, ',') as counted
       from busy_block bb
      where bb.host_id = any(?::text[]) and bb.event_type_id = ? and bb.active and bb.start_at >= ? and bb.start_at < ?
        and (bb.hold_expires_at is null or bb.hold_expires_at > ?)
      group by bb.host_id`,
    [hosts.map((host) => host.id), eventType.id, new Date(range.from), new Date(range.to), now],
  );
  const byHost = new Map<string, number[]>();
  for (const row of rows) byHost.set(row.host_id, Array.from(parseMinutes(row.counted)));
  return byHost;
}
