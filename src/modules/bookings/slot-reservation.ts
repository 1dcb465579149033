/**
 * Steps 3 and 4 of booking creation, shared with rescheduling: availability's decision on exactly the requested
 * slot under the hosts' calendar locks, and the busy blocks written (or joined, for group seats) per kind. The
 * exclusion constraint stays the last word; a lost race surfaces as 23P01 and becomes a 409 upstream.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { executePrepared } from '../../lib/prepared-sql.ts';
import { newId } from '../../lib/ids.ts';
import { decideSlot, slotTaken } from '../availability/slot-decision.ts';
import type { CalendarHost } from '../availability/slots.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { isExclusionViolation, lockHostCalendars } from './booking-transaction.ts';

const MINUTE = 60_000;

export interface ReservedSlot {
  start: Date;
  end: Date;
  /** The booking's host: the owner, the assigned round-robin host, or the owner among collective hosts. */
  hostId: string;
  /** The busy blocks the booking takes a seat in (one per host). */
  blockIds: string[];
  /** Every host whose time it takes (several for a collective event type), in id order. */
  hostIds: string[];
  /** Whether one of those hosts has a calendar that receives bookings; undefined when the decision did not read it. */
  writesBack?: boolean;
}

export interface ReserveOptions {
  /** The host a rescheduled round-robin booking already has: it goes first when it is free. */
  preferredHostId?: string;
  /** The caller already holds the hosts' calendar locks (rescheduling takes them before releasing its old time). */
  calendarsLocked?: boolean;
  /** The hosts' calendars for this slot, when the caller read them with the event type (not under the locks). */
  calendars?: CalendarHost[];
  /** The blocks are a slot hold's (its row is written next, in the same transaction), ending at `expiresAt`. */
  hold?: { id: string; expiresAt: Date };
  /** Round robin: only this host may take the slot (a booking series keeps one host for every occurrence). */
  onlyHostId?: string;
}

/**
 * Steps 3 and 4, shared with rescheduling: asks availability whether the hosts may take this slot (its refusal
 * is the 409) and writes or joins the host's busy block(s).
 */
export async function reserveSlot(
  tx: EntityManager,
  eventType: EventTypeRecord,
  start: number,
  durationMin: number,
  now: Date,
  options: ReserveOptions = {},
): Promise<ReservedSlot> {
  const decision = await decideSlot(
    tx,
    { eventType, start, durationMin, now, calendars: options.calendars },
    options.calendarsLocked ? undefined : (hostIds) => lockHostCalendars(tx, hostIds, now),
  );
  if (!decision.granted) throw decision.refusal;
  if (options.onlyHostId !== undefined && eventType.kind === 'round_robin') {
    if (!decision.hostIds.includes(options.onlyHostId)) throw slotTaken();
    decision.hostIds = [options.onlyHostId];
  }
  const end = start + durationMin * MINUTE;

  const busyStart = new Date(start - eventType.bufferBeforeMin * MINUTE);
  const busyEnd = new Date(end + eventType.bufferAfterMin * MINUTE);
  const slot: BlockSlot = { eventTypeId: eventType.id, start: new Date(start), end: new Date(end), busyStart, busyEnd, createdAt: now, hold: options.hold };

  let hostId: string;
  let blockIds: string[];
  let hostIds: string[] | undefined;
  switch (eventType.kind) {
    case 'one_on_one': {
      hostId = decision.hostIds[0]!;
      blockIds = [await insertBlock(tx, hostId, slot)];
      break;
    }
    case 'group': {
      hostId = decision.hostIds[0]!;
      blockIds = [await joinOrInsertGroupBlock(tx, hostId, slot, eventType.seatsPerSlot)];
      break;
    }
    case 'round_robin': {
      const ordered = await leastRecentlyBookedFirst(tx, eventType.id, decision.hostIds);
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
      hostIds = [...decision.hostIds].sort();
      for (const id of hostIds) blockIds.push(await insertBlock(tx, id, slot));
      hostId = decision.hostIds.includes(eventType.ownerId) ? eventType.ownerId : [...decision.hostIds].sort()[0]!;
      break;
    }
  }
  const taken = hostIds ?? [hostId];
  const writeBack = decision.writeBackHostIds;
  const writesBack = writeBack && taken.some((id) => writeBack.includes(id));
  return { start: slot.start, end: slot.end, hostId, blockIds, hostIds: taken, ...(writesBack === undefined ? {} : { writesBack }) };
}

interface BlockSlot {
  eventTypeId: string;
  start: Date;
  end: Date;
  busyStart: Date;
  busyEnd: Date;
  createdAt: Date;
  hold?: { id: string; expiresAt: Date };
}

async function insertBlock(tx: EntityManager, hostId: string, slot: BlockSlot): Promise<string> {
  const id = newId();
  await executePrepared(
    tx,
    'booking.busy-block',
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at, hold_id, hold_expires_at)
     values (?, ?, ?, ?, ?, tstzrange(?, ?, '[)'), 1, true, ?, ?, ?)`,
    [id, hostId, slot.eventTypeId, slot.start, slot.end, slot.busyStart, slot.busyEnd, slot.createdAt, slot.hold?.id ?? null, slot.hold?.expiresAt ?? null],
  );
  return id;
}

/** A busy block a series occurrence takes (series-reservation.ts): its host, its slot, and its time with buffers. */
export interface OccurrenceBlock {
  hostId: string;
  start: Date;
  end: Date;
  busyStart: Date;
  busyEnd: Date;
}

/**
 * Many busy blocks of one event type in ONE statement (parameters: see insertBlocks): each new, or for a group a
 * seat in the block already at exactly its slot with seats left, as joinOrInsertGroupBlock takes one. The
 * exclusion constraint checks every new block; its 23P01 does not say which one.
 */
const INSERT_BLOCKS_SQL = `with wanted as (
       select * from unnest(?::text[], ?::text[], ?::timestamptz[], ?::timestamptz[], ?::timestamptz[], ?::timestamptz[])
           as w(id, host_id, start_at, end_at, busy_start, busy_end)
     ), joined as (
       update busy_block bb set seats_taken = bb.seats_taken + 1
         from wanted w
        where ? and bb.host_id = w.host_id and bb.event_type_id = ? and bb.start_at = w.start_at and bb.end_at = w.end_at
          and bb.active and bb.seats_taken < ?
       returning w.id as wanted_id, bb.id
     ), inserted as (
       insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
       select w.id, w.host_id, ?, w.start_at, w.end_at, tstzrange(w.busy_start, w.busy_end, '[)'), 1, true, ?
         from wanted w
        where w.id not in (select wanted_id from joined)
     )
     select wanted_id, id from joined`;

/** Writes (or, for a group, joins) these blocks in one round trip; the block ids, in the same order. */
export async function insertBlocks(tx: EntityManager, eventType: EventTypeRecord, blocks: readonly OccurrenceBlock[], now: Date): Promise<string[]> {
  const ids = blocks.map(() => newId());
  const joined = await executePrepared<{ wanted_id: string; id: string }>(tx, 'booking.busy-blocks', INSERT_BLOCKS_SQL, [
    ids,
    blocks.map((block) => block.hostId),
    blocks.map((block) => block.start),
    blocks.map((block) => block.end),
    blocks.map((block) => block.busyStart),
    blocks.map((block) => block.busyEnd),
    eventType.kind === 'group',
    eventType.id,
    eventType.seatsPerSlot,
    eventType.id,
    now,
  ]);
  const seatOf = new Map(joined.map((row) => [row.wanted_id, row.id]));
  return ids.map((id) => seatOf.get(id) ?? id);
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

/** Free hosts ordered for fairness: never booked first, then by their latest active or pending booking of this event type. */
export async function leastRecentlyBookedFirst(tx: EntityManager, eventTypeId: string, hostIds: readonly string[]): Promise<string[]> {
  const rows = await tx.execute<{ host_id: string; last_booked: number }[]>(
    `select host_id, (extract(epoch from max(created_at)) * 1000)::float8 as last_booked
       from booking
      where event_type_id = ? and status in ('active', 'pending') and host_id in (?)
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
