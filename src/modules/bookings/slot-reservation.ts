/**
 * Steps 3 and 4 of booking creation, shared with rescheduling: the slot engine re-run for exactly the requested
 * slot under the hosts' calendar locks, and the busy blocks written (or joined, for group seats) per kind. The
 * exclusion constraint stays the last word; a lost race surfaces as 23P01 and becomes a 409 upstream.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { newId } from '../../lib/ids.ts';
import {
  type CalendarRow,
  calendarsParams,
  calendarsSql,
  type Host,
  hostMode,
  loadHostAvailability,
  slotRules,
  toCalendarHosts,
  toHostAvailability,
} from '../availability/availability.service.ts';
import { type CalendarHost, computeHostSlots, type HostAvailability, type HostSlot } from '../availability/slots.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { isExclusionViolation, lockHostCalendars, slotTaken } from './booking-transaction.ts';

const MINUTE = 60_000;

export interface ReservedSlot {
  start: Date;
  end: Date;
  /** The booking's host: the owner, the assigned round-robin host, or the owner among collective hosts. */
  hostId: string;
  /** The busy blocks the booking takes a seat in (one per host). */
  blockIds: string[];
}

export interface ReserveOptions {
  /** The host a rescheduled round-robin booking already has: it goes first when it is free. */
  preferredHostId?: string;
  /** The caller already holds the hosts' calendar locks (rescheduling takes them before releasing its old time). */
  calendarsLocked?: boolean;
  /** The hosts' calendars for this slot, when the caller read them with the event type (not under the locks). */
  calendars?: CalendarHost[];
}

/**
 * Steps 3 and 4, shared with rescheduling: re-runs the slot engine for exactly this slot (409 when it would
 * not be offered) and writes or joins the host's busy block(s).
 */
export async function reserveSlot(
  tx: EntityManager,
  eventType: EventTypeRecord,
  start: number,
  durationMin: number,
  now: Date,
  options: ReserveOptions = {},
): Promise<ReservedSlot> {
  const end = start + durationMin * MINUTE;
  const rules = slotRules(eventType, durationMin, now, start, end);
  const offeredSlot = (availability: readonly HostAvailability[]) => {
    const offered = computeHostSlots(rules, availability, hostMode(eventType.kind)).find(
      (slot) => slot.start === start && slot.end === end,
    );
    if (!offered) throw explainUnavailable(eventType, availability, rules, start);
    return offered;
  };
  // The hosts and their busy time in one statement (the one /availability reads), unless the caller has them.
  const calendars =
    options.calendars ??
    toCalendarHosts(await executePrepared<CalendarRow>(tx, 'booking.calendars', calendarsSql(eventType), calendarsParams(eventType, start, end)));
  let offered: HostSlot;
  if (options.calendarsLocked) {
    offered = offeredSlot(calendars.map(toHostAvailability));
  } else {
    // A slot already gone is a 409 at once, without queueing for the calendars: most of a burst's losers.
    offeredSlot(calendars.map(toHostAvailability));
    const hosts: Host[] = calendars.map(({ hostId, schedule }) => ({
      id: hostId,
      timeZone: schedule.timeZone,
      weekly: schedule.weekly,
      overrides: [...schedule.overrides],
    }));
    await lockHostCalendars(tx, hosts.map((host) => host.id));
    // Under the locks, the busy time of the hosts just locked: what the check sees cannot change until this
    // transaction ends.
    offered = offeredSlot(await loadHostAvailability(tx, eventType, hosts, start, end));
  }

  const busyStart = new Date(start - eventType.bufferBeforeMin * MINUTE);
  const busyEnd = new Date(end + eventType.bufferAfterMin * MINUTE);
  const slot: BlockSlot = { eventTypeId: eventType.id, start: new Date(start), end: new Date(end), busyStart, busyEnd, createdAt: now };

  let hostId: string;
  let blockIds: string[];
  switch (eventType.kind) {
    case 'one_on_one': {
      hostId = offered.hostIds[0]!;
      blockIds = [await insertBlock(tx, hostId, slot)];
      break;
    }
    case 'group': {
      hostId = offered.hostIds[0]!;
      blockIds = [await joinOrInsertGroupBlock(tx, hostId, slot, eventType.seatsPerSlot)];
      break;
    }
    case 'round_robin': {
      const ordered = await leastRecentlyBookedFirst(tx, eventType.id, offered.hostIds);
      const preferred = options.preferredHostId;
      if (preferred !== undefined && ordered.includes(preferred)) {
        ordered.splice(ordered.indexOf(preferred), 1);
        ordered.unshift(preferred);
      }
      const assigned = await insertBlockForFirstFreeHost(tx, ordered, slot);
      if (!assigned) throw slotTaken();
      hostId = assigned.hostId;
      blockIds = [assigned.blockId];
      break;
    }
    case 'collective': {
      // Every host or none: a conflict on any block aborts the transaction (23P01 -> 409).
      blockIds = [];
      for (const id of [...offered.hostIds].sort()) blockIds.push(await insertBlock(tx, id, slot));
      hostId = offered.hostIds.includes(eventType.ownerId) ? eventType.ownerId : [...offered.hostIds].sort()[0]!;
      break;
    }
  }
  return { start: slot.start, end: slot.end, hostId, blockIds };
}

interface BlockSlot {
  eventTypeId: string;
  start: Date;
  end: Date;
  busyStart: Date;
  busyEnd: Date;
  createdAt: Date;
}

async function insertBlock(tx: EntityManager, hostId: string, slot: BlockSlot): Promise<string> {
  const id = newId();
  await executePrepared(
    tx,
    'booking.busy-block',
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
     values (?, ?, ?, ?, ?, tstzrange(?, ?, '[)'), 1, true, ?)`,
    [id, hostId, slot.eventTypeId, slot.start, slot.end, slot.busyStart, slot.busyEnd, slot.createdAt],
  );
  return id;
}

/** Runs `work` under a savepoint; a failure rolls back to it and leaves the transaction usable. */
async function withSavepoint<T>(tx: EntityManager, work: () => Promise<T>): Promise<T> {
  await tx.execute('savepoint booking_attempt', [], 'run');
  try {
    const result = await work();
    await tx.execute('release savepoint booking_attempt', [], 'run');
    return result;
  } catch (error) {
    await tx.execute('rollback to savepoint booking_attempt', [], 'run');
    throw error;
  }
}

async function joinOrInsertGroupBlock(tx: EntityManager, hostId: string, slot: BlockSlot, seatsPerSlot: number): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const [block] = await tx.execute<{ id: string; seats_taken: number }[]>(
      `select id, seats_taken from busy_block
        where host_id = ? and event_type_id = ? and start_at = ? and end_at = ? and active
        for update`,
      [hostId, slot.eventTypeId, slot.start, slot.end],
    );
    if (block) {
      if (block.seats_taken >= seatsPerSlot) throw new DomainError('conflict', 'That slot is full: every seat is taken.');
      await tx.execute('update busy_block set seats_taken = seats_taken + 1 where id = ?', [block.id], 'run');
      return block.id;
    }
    try {
      return await withSavepoint(tx, () => insertBlock(tx, hostId, slot));
    } catch (error) {
      // Another first booking of this slot committed meanwhile: read again and join its block.
      if (!isExclusionViolation(error)) throw error;
    }
  }
  throw slotTaken();
}

/** Free hosts ordered for fairness: never booked first, then by their latest active booking of this event type. */
async function leastRecentlyBookedFirst(tx: EntityManager, eventTypeId: string, hostIds: readonly string[]): Promise<string[]> {
  const rows = await tx.execute<{ host_id: string; last_booked: number }[]>(
    `select host_id, (extract(epoch from max(created_at)) * 1000)::float8 as last_booked
       from booking
      where event_type_id = ? and status = 'active' and host_id in (?)
      group by host_id`,
    [eventTypeId, [...hostIds]],
  );
  const last = new Map(rows.map((row) => [row.host_id, row.last_booked]));
  return [...hostIds].sort((a, b) => (last.get(a) ?? -Infinity) - (last.get(b) ?? -Infinity) || (a < b ? -1 : a > b ? 1 : 0));
}

async function insertBlockForFirstFreeHost(
  tx: EntityManager,
  hostIds: readonly string[],
  slot: BlockSlot,
): Promise<{ hostId: string; blockId: string } | undefined> {
  for (const hostId of hostIds) {
    try {
      return { hostId, blockId: await withSavepoint(tx, () => insertBlock(tx, hostId, slot)) };
    } catch (error) {
      if (!isExclusionViolation(error)) throw error;
    }
  }
  return undefined;
}

/** The invitee's unbooked leads on this event type (e-mail compared case-insensitively) become booked. */
/** Why the engine would not offer this slot, in the caller's terms (all 409). */
function explainUnavailable(
  eventType: EventTypeRecord,
  availability: readonly HostAvailability[],
  rules: ReturnType<typeof slotRules>,
  start: number,
): DomainError {
  if (start < rules.now + rules.minNoticeMin * MINUTE) {
    return new DomainError(
      'conflict',
      eventType.minNoticeMin > 0
        ? `That time is in the past or less than ${eventType.minNoticeMin} minutes from now (the event type's minimum notice).`
        : 'That time is in the past.',
    );
  }
  const unbooked = availability.map((host) => ({ ...host, busy: [], openSeats: [] }));
  const onGrid = computeHostSlots(rules, unbooked, hostMode(eventType.kind)).some((slot) => slot.start === start);
  if (!onGrid) {
    return new DomainError(
      'conflict',
      `That time is not a start time this event type offers: outside the available hours or off its ${rules.stepMin}-minute grid. Pick a slot from /availability.`,
    );
  }
  return eventType.kind === 'group'
    ? new DomainError('conflict', 'That slot is full or overlaps another booking. Pick another slot from /availability.')
    : slotTaken();
}
