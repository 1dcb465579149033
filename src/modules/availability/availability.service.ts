import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField, notFound } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import {
  type BookingLimits,
  EVENT_TYPE_COLUMNS,
  type EventTypeKind,
  type EventTypeRecord,
  type EventTypeRow,
  hasLimits,
  toEventType,
} from '../event-types/event-type.rows.ts';
import { countingRange, RuleBooks } from './booking-rules.ts';
import { receivesBookingsSql } from '../calendars/booking-events.ts';
import type { HostCalendars } from '../calendars/calendars.schemas.ts';
import type { AvailabilityInput, AvailabilityOutput, Slot } from './availability.schemas.ts';
import type { DateOverride, WeeklyHours } from './schedule.ts';
import { type Intervals, MINUTE_MS, normalizeIntervals } from './intervals.ts';
import { type CalendarHost, computeSlotStarts, type HostAvailability, type SlotRules, type TimeRange } from './slots.ts';
import { formatMinute } from './wall-clock.ts';

const DAY = 86_400_000;

/** An event type by id; with `ownerId`, only if that user owns it (another user's is as missing as an unknown one). */
export async function findEventType(
  em: EntityManager,
  id: string,
  ownerId?: string,
): Promise<EventTypeRecord | undefined> {
  const [row] = await executePrepared<EventTypeRow>(
    em,
    'event-type',
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

interface HostRow {
  id: string;
  timezone: string;
  weekly: WeeklyHours | null;
  overrides: DateOverride[] | null;
}

/**
 * Who hosts an event type (parameters: whether the kind lists hosts, the event type, its owner). one_on_one and
 * group: the owner. round_robin and collective: the users listed in event_type_host, or the owner alone when none
 * are listed. A host without a schedule row has no hours. Ordered by id (the lock order when blocks of several
 * hosts are inserted together). `= any(array(…))` keeps app_user to primary-key look-ups: with a join, the planner
 * estimated a hash join over the whole table cheaper for 50 hosts of 10,000 users (a sequential scan).
 */
const hostsSql = (busyColumns = '', busyJoin = '') => `with listed as (
       select user_id from event_type_host where ? and event_type_id = ?
     ), hosts as (
       select user_id from listed
       union all
       select ?::text where not exists (select 1 from listed)
     )
     select u.id, u.timezone, s.weekly, s.overrides${busyColumns}
       from app_user u
       left join availability_schedule s on s.user_id = u.id
       ${busyJoin}
      where u.id = any(array(select user_id from hosts))
      order by u.id`;

const hostsParams = (eventType: EventTypeRecord) => [
  eventType.kind === 'round_robin' || eventType.kind === 'collective',
  eventType.id,
  eventType.ownerId,
];

function toHost(row: HostRow): Host {
  return {
    id: row.id,
    timeZone: row.timezone,
    weekly: row.weekly ?? { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
    overrides: row.overrides ?? [],
  };
}

export async function loadHosts(em: EntityManager, eventType: EventTypeRecord): Promise<Host[]> {
  const rows = await em.execute<HostRow[]>(hostsSql(), hostsParams(eventType));
  return rows.map(toHost);
}

/**
 * A host's active busy blocks that can matter for slots in [from, to] (a day of margin for buffers), aggregated
 * into text so there is no row per block: `busy` = "start,end,…" in epoch minutes, rounded outward, unsorted (the
 * engine sorts, cheaper than a sort per host in PostgreSQL). Each block's "start,end" is stored with it
 * (`busy_block.busy_minutes`, generated) and carried in the exclusion constraint's GiST index, so the read is an
 * index-only scan that only concatenates. Only group event types read `seats`, from the table, written per read
 * (`date_part` is a float, cheaper than `extract`'s numeric).
 */
const minuteSql = (instant: string, round: 'floor' | 'ceil') => `${round}(date_part('epoch', ${instant}) / 60)::int`;
const BUSY_COLUMN = `string_agg(bb.minutes, ',') as busy`;
/** Blocks with seats left (`open`: of this event type, with fewer seats taken than it has) as "start,end,…". */
const seatsAggregate = (open: string) => `string_agg(${minuteSql('bb.start_at', 'floor')} || ',' || ${minuteSql('bb.end_at', 'ceil')}, ',')
         filter (where ${open}
                   -- a seat matches a slot only exactly, and slots lie on whole minutes
                   and bb.start_at = date_trunc('minute', bb.start_at) and bb.end_at = date_trunc('minute', bb.end_at))`;
/**
 * A block that is busy now (parameters: the window, now): active, and not a slot hold that has ended. An ended
 * hold's block stays until a writer deletes it, so every reader leaves it out; `hold_expires_at` is carried in
 * the exclusion constraint's index (and the limits' one), so the scans stay index-only.
 */
const LIVE = '(bb.hold_expires_at is null or bb.hold_expires_at > ?)';
const BUSY_WHERE = `bb.active and bb.busy && tstzrange(?, ?) and ${LIVE}`;
/**
 * A host's busy time from both sources, as `bb.minutes` ("start,end"…): bookings' and live holds' blocks, and the
 * days of its connected calendars marked busy (`counts`), already written that way (calendar_busy_day: a row per
 * calendar and day, not per event). Parameters: the window and now (liveParams), then its first and last day
 * (dayParams).
 */
const busyOf = (host: string) => `(select bb.busy_minutes as minutes from busy_block bb where bb.host_id = ${host} and ${BUSY_WHERE}
         union all
         select d.minutes from calendar_busy_day d where d.host_id = ${host} and d.counts and d.day >= ? and d.day <= ?) bb`;
const seatsOf = (host: string, open: string) =>
  `(select ${seatsAggregate(open)} from busy_block bb where bb.host_id = ${host} and ${BUSY_WHERE})`;
const OPEN_SEATS = 'bb.event_type_id = ? and bb.seats_taken < ?';

/**
 * What the limits count for a host (parameters: the event type, the counting range, now): its busy blocks of the
 * event type that are busy now, which active and pending bookings and live holds keep, as "start minute,seats,…"
 * (`busy_block.start_seats`, generated, carried in busy_block_limit_idx: an index-only scan).
 */
const countedOf = (host: string, eventType: string) => `(select string_agg(bb.start_seats, ',')
         from busy_block bb
        where bb.host_id = ${host} and bb.event_type_id = ${eventType} and bb.active and bb.start_at >= ? and bb.start_at < ? and ${LIVE})`;
const countWindowParams = (limits: BookingLimits | null | undefined, from: number, to: number, now: Date) => {
  const range = countingRange(limits, from, to);
  return [new Date(range.from), new Date(range.to), now];
};
const countParams = (eventType: EventTypeRecord, from: number, to: number, now: Date) =>
  hasLimits(eventType) ? [eventType.id, ...countWindowParams(eventType.limits, from, to, now)] : [];

const withSeats = (eventType: EventTypeRecord) => eventType.kind === 'group';
const seatParams = (eventType: EventTypeRecord) => (withSeats(eventType) ? [eventType.id, eventType.seatsPerSlot] : []);
const windowParams = (from: number, to: number) => [new Date(from - DAY), new Date(to + DAY)];
/** BUSY_WHERE's parameters. */
const liveParams = (from: number, to: number, now: Date) => [...windowParams(from, to), now];
/** The UTC days (epoch day numbers) of windowParams' range, for calendar_busy_day. */
const dayParams = (from: number, to: number) => [Math.floor((from - DAY) / DAY), Math.floor((to + DAY) / DAY)];
export interface BusyText {
  busy: string | null;
  seats: string | null;
  /** Only when the event type has limits: see countedOf. */
  counted?: string | null;
}

export type CalendarRow = HostRow & BusyText;

/**
 * "start,end,start,end…" (int4 values, as the SQL writes them) to numbers, read into an array sized up front:
 * `split(',').map(Number)` made a string per number and grew its array step by step, thousands of numbers per
 * host, the largest part of a call's garbage after the written slots. Epoch minutes have 8 digits (from 1989 to
 * 2160), so a number of 8 digits is read at once, after one check that none of its characters is ',' or '-';
 * any other digit by digit (2,000 calendar intervals: 42 µs against 105 digit by digit after counting the commas).
 */
export function parseMinutes(text: string | null): Int32Array {
  if (!text) return EMPTY;
  const length = text.length;
  // Room for numbers of 8 digits and their commas; shorter ones (seats) grow it.
  let minutes = new Int32Array(Math.ceil((length + 1) / 9) + 8);
  let n = 0;
  let i = 0;
  while (i < length) {
    if (n === minutes.length) {
      const grown = new Int32Array(2 * n);
      grown.set(minutes);
      minutes = grown;
    }
    if (i + 8 <= length && (i + 8 === length || text.charCodeAt(i + 8) === COMMA)) {
      const c0 = text.charCodeAt(i);
      const c1 = text.charCodeAt(i + 1);
      const c2 = text.charCodeAt(i + 2);
      const c3 = text.charCodeAt(i + 3);
      const c4 = text.charCodeAt(i + 4);
      const c5 = text.charCodeAt(i + 5);
      const c6 = text.charCodeAt(i + 6);
      const c7 = text.charCodeAt(i + 7);
      // Digits (48–57) have the bit 16, ',' (44) and '-' (45) not.
      if ((c0 & c1 & c2 & c3 & c4 & c5 & c6 & c7 & 16) !== 0) {
        minutes[n++] = c0 * 1e7 + c1 * 1e6 + c2 * 1e5 + c3 * 1e4 + c4 * 1e3 + c5 * 100 + c6 * 10 + c7 - ZERO * 11_111_111;
        i += 9;
        continue;
      }
    }
    let value = 0;
    let negative = false;
    for (; i < length; i++) {
      const code = text.charCodeAt(i);
      if (code === COMMA) break;
      if (code === MINUS) negative = true;
      else value = value * 10 + (code - ZERO);
    }
    minutes[n++] = negative ? -value : value;
    i++;
  }
  return minutes.subarray(0, n);
}

const EMPTY = new Int32Array(0);
const COMMA = 44;
const MINUS = 45;
const ZERO = 48;

function toCalendarHost(host: Host, row: BusyText | undefined): CalendarHost {
  const seats = parseMinutes(row?.seats ?? null);
  const openSeats = new Map<number, number>();
  for (let i = 0; i < seats.length; i += 2) openSeats.set(seats[i]!, seats[i + 1]!);
  return {
    hostId: host.id,
    schedule: { weekly: host.weekly, overrides: host.overrides, timeZone: host.timeZone },
    busy: normalizeIntervals(parseMinutes(row?.busy ?? null)),
    openSeats,
    ...(row?.counted === undefined ? {} : { counted: parseMinutes(row.counted) }),
  };
}

/**
 * The hosts of an event type with their schedules and their busy time for a window, in ONE statement (one
 * index scan of busy_block per host). Exported with its parameters for the bench's hand-written baseline.
 */
const calendarsStatement = (seats: boolean, limits: boolean) =>
  hostsSql(
    `, b.busy, ${seats ? seatsOf('u.id', OPEN_SEATS) : 'null::text'} as seats${limits ? `, ${countedOf('u.id', '?')} as counted` : ''}`,
    `left join lateral (select ${BUSY_COLUMN} from ${busyOf('u.id')}) b on true`,
  );
/** By [seats][limits]: only group event types read seats, only limited ones their counts. */
const CALENDARS_SQL = [
  [calendarsStatement(false, false), calendarsStatement(false, true)],
  [calendarsStatement(true, false), calendarsStatement(true, true)],
] as const;

/**
 * Whether a read carries the limits' counts. A booking's first look, before the hosts' locks, goes without: the
 * decision that counts is the one under the locks, which reads them again.
 */
export type Counting = 'counts' | 'no-counts';

export function calendarsSql(eventType: EventTypeRecord, counting: Counting = 'counts'): string {
  return CALENDARS_SQL[withSeats(eventType) ? 1 : 0][hasLimits(eventType) && counting === 'counts' ? 1 : 0];
}

export function calendarsParams(eventType: EventTypeRecord, from: number, to: number, now: Date, counting: Counting = 'counts'): unknown[] {
  const seatsWindow = withSeats(eventType) ? liveParams(from, to, now) : [];
  return [
    ...hostsParams(eventType),
    ...seatParams(eventType),
    ...seatsWindow,
    ...(counting === 'counts' ? countParams(eventType, from, to, now) : []),
    ...liveParams(from, to, now),
    ...dayParams(from, to),
  ];
}

export function toCalendarHosts(rows: readonly CalendarRow[]): CalendarHost[] {
  return rows.map((row) => toCalendarHost(toHost(row), row));
}

export async function loadCalendars(em: EntityManager, eventType: EventTypeRecord, from: number, to: number, now: Date): Promise<CalendarHost[]> {
  return toCalendarHosts(await executePrepared<CalendarRow>(em, 'calendars', calendarsSql(eventType), calendarsParams(eventType, from, to, now)));
}

/**
 * GET /availability in ONE statement (parameters: availabilityParams): the caller's event type
 * as the first row (host columns null), then, when it is active, one row per host with schedule and busy time,
 * as calendarsSql reads them (its hosts, its index-only busy scan; the seats aggregate, which needs the heap,
 * only for group event types). It saves the round trip of reading the event type first. The event type's
 * columns come once, not on every host row (pg would parse its dates and arrays again per host).
 */
const EVENT_TYPE_NULLS = EVENT_TYPE_COLUMNS.split(',')
  .map(() => 'null')
  .join(', ');
const availabilityStatement = (counting: Counting) => `with et as (
       select ${EVENT_TYPE_COLUMNS} from event_type et where et.id = ? and et.owner_id = ?
     ), listed as (
       select h.user_id from event_type_host h join et on h.event_type_id = et.id where et.kind in ('round_robin', 'collective')
     ), hosts as (
       select user_id from listed
       union all
       select owner_id from et where not exists (select 1 from listed)
     )
     select et.*, null::text as host_id, null::text as timezone, null::jsonb as weekly, null::jsonb as overrides,
            null::text as busy, null::text as seats, null::json as connections, null::text as counted
       from et
     union all
     select ${EVENT_TYPE_NULLS}, u.id, u.timezone, s.weekly, s.overrides, b.busy,
            case when et.kind = 'group' then ${seatsOf('u.id', 'bb.event_type_id = et.id and bb.seats_taken < et.seats_per_slot')} end,
            (select json_agg(json_build_object('id', c.id, 'status', c.status, 'lastSyncedAt', c.last_synced_at) order by c.created_at, c.id)
               from calendar_connection c where c.owner_id = u.id) as connections,
            ${
              counting === 'counts'
                ? `case when coalesce(et.limit_per_day, et.limit_per_week, et.limit_per_month) is not null
                 then coalesce(${countedOf('u.id', 'et.id')}, '') end`
                : 'null::text'
            }
       from et
       join app_user u on u.id = any(array(select user_id from hosts))
       left join availability_schedule s on s.user_id = u.id
       left join lateral (select ${BUSY_COLUMN} from ${busyOf('u.id')}) b on true
      where et.active
      order by host_id nulls first`;
export const availabilitySql = availabilityStatement('counts');
/** A booking's first look (see Counting). */
export const bookingLookSql = availabilityStatement('no-counts');

interface ConnectionJson {
  id: string;
  status: HostCalendars['connections'][number]['status'];
  lastSyncedAt: string | null;
}

export type AvailabilityRow = EventTypeRow &
  BusyText & {
    host_id: string | null;
    timezone: string | null;
    weekly: WeeklyHours | null;
    overrides: DateOverride[] | null;
    connections: ConnectionJson[] | null;
    counted: string | null;
  };

export function availabilityParams(eventTypeId: string, ownerId: string, from: number, to: number, now: Date, counting: Counting = 'counts'): unknown[] {
  const counts = counting === 'counts' ? countWindowParams(undefined, from, to, now) : [];
  return [eventTypeId, ownerId, ...liveParams(from, to, now), ...counts, ...liveParams(from, to, now), ...dayParams(from, to)];
}

/** The event type and its calendars from availabilitySql's rows; undefined when the caller has no such event type. */
export function readAvailabilityRows(
  rows: readonly AvailabilityRow[],
): { eventType: EventTypeRecord; hosts: CalendarHost[]; connections: HostCalendars[] } | undefined {
  if (!rows[0]) return undefined;
  const hosts = new Array<CalendarHost>(rows.length - 1);
  const connections = new Array<HostCalendars>(rows.length - 1);
  for (let i = 1; i < rows.length; i++) {
    const row = rows[i]!;
    const host = toHost({ id: row.host_id!, timezone: row.timezone!, weekly: row.weekly, overrides: row.overrides });
    // `counted` is null for an event type without limits: then the engine reads no counts at all.
    hosts[i - 1] = toCalendarHost(host, { busy: row.busy, seats: row.seats, ...(row.counted === null ? {} : { counted: row.counted }) });
    connections[i - 1] = {
      hostId: row.host_id!,
      connections: (row.connections ?? []).map((connection) => ({
        id: connection.id,
        status: connection.status,
        lastSyncedAt: connection.lastSyncedAt === null ? null : new Date(connection.lastSyncedAt).toISOString(),
      })),
    };
  }
  return { eventType: toEventType(rows[0]), hosts, connections };
}

/** The busy time of hosts already loaded (booking creation re-reads it under the calendar locks), in milliseconds. */
export async function loadHostAvailability(
  em: EntityManager,
  eventType: EventTypeRecord,
  hosts: readonly Host[],
  from: number,
  to: number,
  now: Date,
): Promise<HostAvailability[]> {
  if (hosts.length === 0) return [];
  // The hosts as a `values` list, one prepared statement per number of hosts: PostgreSQL estimates an array
  // parameter's `unnest` at ten rows, so the generic plan of one statement for any number always looked costlier
  // than planning each call afresh (three times the read's own cost), though the plan is the same.
  const seats = withSeats(eventType);
  const limits = hasLimits(eventType);
  const rows = await executePrepared<BusyText & { host_id: string; writes_back: boolean }>(
    em,
    seats ? 'host-busy-seats' : 'host-busy',
    `select h.host_id, (select ${BUSY_COLUMN} from ${busyOf('h.host_id')}) as busy, ${receivesBookingsSql('h.host_id')} as writes_back,
            ${seats ? seatsOf('h.host_id', OPEN_SEATS) : 'null::text'} as seats${limits ? `, ${countedOf('h.host_id', '?')} as counted` : ''}
       from (values ${hosts.map(() => '(?::text)').join(', ')}) as h(host_id)`,
    [
      ...liveParams(from, to, now),
      ...dayParams(from, to),
      ...seatParams(eventType),
      ...(seats ? liveParams(from, to, now) : []),
      ...countParams(eventType, from, to, now),
      ...hosts.map((host) => host.id),
    ],
  );
  const byHost = new Map(rows.map((row) => [row.host_id, row]));
  return hosts.map((host) => {
    const row = byHost.get(host.id);
    return { ...toHostAvailability(toCalendarHost(host, row)), writesBack: row?.writes_back ?? false };
  });
}

/** A calendar (whole minutes) as the slot engine's millisecond entry point takes it. */
export function toHostAvailability(calendar: CalendarHost): HostAvailability {
  const openSeats = [...(calendar.openSeats ?? [])].map(([start, end]) => ({ start: start * MINUTE_MS, end: end * MINUTE_MS }));
  return { hostId: calendar.hostId, schedule: calendar.schedule, busy: toRanges(calendar.busy), openSeats, counted: calendar.counted };
}

function toRanges(minutes: Intervals): TimeRange[] {
  const ranges: TimeRange[] = [];
  for (let i = 0; i < minutes.length; i += 2) ranges.push({ start: minutes[i]! * MINUTE_MS, end: minutes[i + 1]! * MINUTE_MS });
  return ranges;
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
    bookingWindow: eventType.bookingWindow,
    limits: eventType.limits,
    ...(eventType.bookingWindow || eventType.limits ? { ruleBooks: new RuleBooks() } : {}),
  };
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
  const durationMin = chosenDuration(eventType, input);
  if (!eventType.active) return { data: [] };
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  return slotsOf(eventType, durationMin, await loadCalendars(em, eventType, from, to, now), input, now);
}

/** GET /availability: slots of one of the caller's own event types, event type and calendars in one statement. */
export async function getAvailability(
  em: EntityManager,
  ownerId: string,
  input: AvailabilityInput,
  now: Date,
): Promise<AvailabilityOutput> {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  const read = readAvailabilityRows(
    await executePrepared<AvailabilityRow>(em, 'availability', availabilitySql, availabilityParams(input.eventTypeId, ownerId, from, to, now)),
  );
  if (!read) throw notFound('Event type');
  const durationMin = chosenDuration(read.eventType, input);
  if (!read.eventType.active) return { data: [], hosts: read.connections };
  return { ...slotsOf(read.eventType, durationMin, read.hosts, input, now), hosts: read.connections };
}

function chosenDuration(eventType: EventTypeRecord, input: AvailabilityInput): number {
  const durationMin = input.duration ?? eventType.durationsMin[0]!;
  if (!eventType.durationsMin.includes(durationMin)) {
    throw invalidField(['duration'], `must be one of this event type's durations: ${eventType.durationsMin.join(', ')}`);
  }
  return durationMin;
}

function slotsOf(eventType: EventTypeRecord, durationMin: number, hosts: CalendarHost[], input: AvailabilityInput, now: Date): AvailabilityOutput {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  const starts = computeSlotStarts(slotRules(eventType, durationMin, now, from, to), hosts, hostMode(eventType.kind));
  return { data: toSlots(starts, durationMin, input.tz) };
}

/**
 * Slot start minutes to the written slots. Back-to-back slots share an edge (one's end is the next one's
 * start), so that edge's string is written once and used twice. Exported for the bench's baseline.
 */
export function toSlots(starts: readonly number[], durationMin: number, tz: string | undefined): Slot[] {
  const slots = new Array<Slot>(starts.length);
  let lastEnd = Number.NaN;
  let lastEndText = '';
  for (let i = 0; i < starts.length; i++) {
    const start = starts[i]!;
    const startText = start === lastEnd ? lastEndText : formatMinute(start, tz);
    lastEnd = start + durationMin;
    lastEndText = formatMinute(lastEnd, tz);
    slots[i] = { start: startText, end: lastEndText };
  }
  return slots;
}
