/**
 * Every occurrence of a series reserved inside the booking transaction, under the hosts' calendar locks taken once
 * for all of them. The hosts' busy time, their limits' counts and whether their calendars receive bookings are read
 * ONCE under those locks for the whole series, and each occurrence is decided on that time by the slot engine
 * exactly as a single booking is (decideOnAvailability), in order, each granted occurrence adding its time, so the
 * occurrences already reserved count in the later ones' limits and busy time. The blocks are then written in one
 * statement, the exclusion constraint keeping the last word. All or nothing: a plan with a failing occurrence
 * keeps nothing, and its failures are explained. Round robin keeps one host for the whole series: the first host,
 * fairest first, free for every occurrence (docs/decisions.md). A series booked with the hold of its first
 * occurrence ends the hold under those locks, as a single booking does, and tries the held host first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { explainSlotOf } from '../availability/availability-explain.service.ts';
import { type Host, loadHostAvailability, loadHosts } from '../availability/availability.service.ts';
import { countingRange } from '../availability/booking-rules.ts';
import { decideOnAvailability, slotTaken } from '../availability/slot-decision.ts';
import type { HostAvailability, TimeRange } from '../availability/slots.ts';
import { isExclusionViolation, lockHostCalendars } from '../bookings/booking-transaction.ts';
import { insertBlocks, leastRecentlyBookedFirst, type OccurrenceBlock, type ReservedSlot } from '../bookings/slot-reservation.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { type ClaimedHold, endHold } from '../slot-holds/held-slot.ts';
import { type Recurrence, seriesStarts } from './occurrences.ts';
import { type FailedOccurrence, type OccurrenceReason, seriesRefused } from './series-refusals.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface SeriesQuestion {
  eventType: EventTypeRecord;
  /** The first occurrence's start, epoch milliseconds. */
  startAt: number;
  durationMin: number;
  recurrence: Recurrence;
  now: Date;
  /** Whose bookings and calendars the explanations may name (the owner; invitees see sentences only). */
  viewerId: string;
  /** The caller's hold of the first occurrence, claimed (locked) in this transaction. */
  hold?: ClaimedHold;
}

export interface ReservedSeries {
  /** The series' host: every occurrence's booking host. */
  hostId: string;
  /** The zone whose wall-clock time the occurrences keep. */
  timeZone: string;
  slots: ReservedSlot[];
}

/** One way to book the series: in a host's zone (its occurrences' starts), and for round robin with that host alone. */
interface Plan {
  host: Host;
  onlyHostId?: string;
  starts: number[];
}

/** A host's time as a plan sees it: what was read under the locks, plus the plan's occurrences granted so far. */
type PlanCalendar = Omit<HostAvailability, 'busy' | 'counted'> & { busy: TimeRange[]; counted?: number[] };

/** An occurrence the plan's decisions granted, by index; its block ids come when its blocks are written. */
type Granted = Map<number, ReservedSlot>;

type Attempt = { reserved: ReservedSeries } | { failures: FailedOccurrence[] };

/** Reserves the whole series, or throws the 409 naming each failing occurrence of the plan that came closest. */
export async function reserveSeries(tx: EntityManager, question: SeriesQuestion): Promise<ReservedSeries> {
  const { eventType, hold, now } = question;
  const hosts = await loadHosts(tx, eventType);
  if (hosts.length === 0) throw new DomainError('conflict', 'This event type has no host to book.');
  // With `now`, the hosts' ended holds are taken out first, as for every writer of busy time.
  await lockHostCalendars(tx, [...(hold?.hostIds ?? []), ...hosts.map((host) => host.id)], now);
  if (hold) await endHold(tx, hold.id);
  const plans = await plansOf(tx, question, hosts);
  // Every plan's occurrences in one read (round robin's hosts may keep different zones, so different instants).
  const from = Math.min(...plans.map((plan) => plan.starts[0]!));
  const to = Math.max(...plans.map((plan) => plan.starts.at(-1)!)) + question.durationMin * MINUTE;
  const availability = await loadHostAvailability(tx, eventType, hosts, from, to, now);
  let closest: FailedOccurrence[] | undefined;
  for (const plan of plans) {
    const attempt = await attemptPlan(tx, question, plan, availability, closest?.length);
    if ('reserved' in attempt) return attempt.reserved;
    if (closest === undefined || attempt.failures.length < closest.length) closest = attempt.failures;
  }
  throw seriesRefused(closest!, question.recurrence.count);
}

/**
 * Round robin: each host alone, fairest first (the held host, if still a host, before them); collective: the owner
 * (or the first host) as the booking's host.
 */
async function plansOf(tx: EntityManager, question: SeriesQuestion, hosts: Host[]): Promise<Plan[]> {
  const { eventType, hold } = question;
  const plan = (host: Host, onlyHostId?: string): Plan => ({
    host,
    ...(onlyHostId === undefined ? {} : { onlyHostId }),
    starts: seriesStarts(question.startAt, host.timeZone, question.recurrence),
  });
  if (eventType.kind === 'round_robin') {
    const byId = new Map(hosts.map((host) => [host.id, host]));
    const fairest = await leastRecentlyBookedFirst(
      tx,
      eventType.id,
      hosts.map((host) => host.id),
    );
    const heldHostId = hold?.hostId;
    if (heldHostId !== undefined && fairest.includes(heldHostId)) fairest.unshift(...fairest.splice(fairest.indexOf(heldHostId), 1));
    return fairest.map((id) => plan(byId.get(id)!, id));
  }
  return [plan(hosts.find((host) => host.id === eventType.ownerId) ?? hosts[0]!)];
}

async function attemptPlan(
  tx: EntityManager,
  question: SeriesQuestion,
  plan: Plan,
  availability: readonly HostAvailability[],
  bestFailures: number | undefined,
): Promise<Attempt> {
  const { granted, failures, refusals } = decidePlan(question, plan, availability);
  // A plan that fails more occurrences than an earlier one is not shown, so it is not explained.
  if (bestFailures !== undefined && failures.length + refusals.size >= bestFailures) {
    for (const [index, message] of refusals) failures.push({ index, start: plan.starts[index]!, reasons: [{ kind: 'taken', message }] });
    return { failures };
  }
  await tx.execute('savepoint series_plan', [], 'run');
  await writeBlocks(tx, question, granted, refusals);
  if (failures.length === 0 && refusals.size === 0) {
    await tx.execute('release savepoint series_plan', [], 'run');
    const slots = [...granted.values()];
    return { reserved: { hostId: plan.onlyHostId ?? slots[0]!.hostId, timeZone: plan.host.timeZone, slots } };
  }
  // Explained while this plan's granted occurrences hold their time (they count in limits and overlaps).
  for (const [index, message] of refusals) {
    const start = plan.starts[index]!;
    failures.push({ index, start, reasons: await reasonsOf(tx, question, plan, start, message) });
  }
  await tx.execute('rollback to savepoint series_plan', [], 'run');
  await tx.execute('release savepoint series_plan', [], 'run');
  return { failures };
}

/**
 * Each occurrence decided in order on the time read under the locks, in memory: granted ones take their time
 * (busy with buffers, and a booking in the limits' counts) before the next is decided. Refusals by index.
 */
function decidePlan(question: SeriesQuestion, plan: Plan, availability: readonly HostAvailability[]) {
  const { eventType, durationMin, now } = question;
  const maxCount = eventType.recurrenceMaxCount ?? 1;
  const calendars: PlanCalendar[] = availability.map(({ counted, ...host }) => ({
    ...host,
    busy: [...host.busy],
    ...(counted === undefined ? {} : { counted: Array.from(counted) }),
  }));
  const granted: Granted = new Map();
  const failures: FailedOccurrence[] = [];
  const refusals = new Map<number, string>();
  for (const [index, start] of plan.starts.entries()) {
    if (index >= maxCount) {
      failures.push({ index, start, reasons: [{ kind: 'recurrence_max_count', maxCount }] });
      continue;
    }
    const end = start + durationMin * MINUTE;
    const decision = decideOnAvailability(eventType, start, durationMin, now, calendars.map((host) => near(host, eventType, start, end)));
    const taken = decision.granted ? hostsTaking(eventType, decision.hostIds, plan) : undefined;
    if (!taken) {
      refusals.set(index, decision.granted ? slotTaken().message : decision.refusal.message);
      continue;
    }
    const writeBack = decision.granted ? decision.writeBackHostIds : undefined;
    const writesBack = writeBack && taken.hostIds.some((id) => writeBack.includes(id));
    granted.set(index, { start: new Date(start), end: new Date(end), ...taken, blockIds: [], ...(writesBack === undefined ? {} : { writesBack }) });
    const busy = { start: start - eventType.bufferBeforeMin * MINUTE, end: end + eventType.bufferAfterMin * MINUTE };
    for (const host of calendars) {
      if (!taken.hostIds.includes(host.hostId)) continue;
      host.busy.push(busy);
      host.counted?.push(start / MINUTE, 1);
    }
  }
  return { granted, failures, refusals };
}

/**
 * A host's time as the read for this one slot returns it (loadHostAvailability's window: a day either side, the
 * limits' periods around it): all that bears on the slot, so a long series is not decided on a year of time each.
 */
function near(host: PlanCalendar, eventType: EventTypeRecord, start: number, end: number): HostAvailability {
  const overlaps = (range: TimeRange) => range.end > start - DAY && range.start < end + DAY;
  const counting = countingRange(eventType.limits, start, end);
  let counted: number[] | undefined;
  if (host.counted) {
    counted = [];
    for (let i = 0; i + 1 < host.counted.length; i += 2) {
      const at = host.counted[i]! * MINUTE;
      if (at >= counting.from && at < counting.to) counted.push(host.counted[i]!, host.counted[i + 1]!);
    }
  }
  return {
    ...host,
    busy: host.busy.filter(overlaps),
    openSeats: host.openSeats?.filter(overlaps),
    ...(counted === undefined ? {} : { counted }),
  };
}

/** The booking's host and every host whose time an occurrence takes, as reserveSlot assigns them; undefined: none. */
function hostsTaking(eventType: EventTypeRecord, free: string[], plan: Plan): Pick<ReservedSlot, 'hostId' | 'hostIds'> | undefined {
  switch (eventType.kind) {
    case 'round_robin': {
      const only = plan.onlyHostId!;
      return free.includes(only) ? { hostId: only, hostIds: [only] } : undefined;
    }
    case 'collective': {
      const hostIds = [...free].sort();
      return { hostId: hostIds.includes(eventType.ownerId) ? eventType.ownerId : hostIds[0]!, hostIds };
    }
    default:
      return { hostId: free[0]!, hostIds: [free[0]!] };
  }
}

/**
 * The granted occurrences' busy blocks in one statement, their ids set on each slot. Should the exclusion
 * constraint refuse (the last word), each occurrence is written alone to name the ones it refuses (`refusals`).
 * Under the locks it refuses only a block the read left out: a hold written while this waited for the locks that
 * has ended by `now` (the lock statement's purge did not see it yet; test/booking-series/series-fallback.test.ts).
 */
async function writeBlocks(tx: EntityManager, question: SeriesQuestion, granted: Granted, refusals: Map<number, string>): Promise<void> {
  const { eventType, now } = question;
  const blocksOf = (slot: ReservedSlot): OccurrenceBlock[] =>
    slot.hostIds.map((hostId) => ({
      hostId,
      start: slot.start,
      end: slot.end,
      busyStart: new Date(slot.start.getTime() - eventType.bufferBeforeMin * MINUTE),
      busyEnd: new Date(slot.end.getTime() + eventType.bufferAfterMin * MINUTE),
    }));
  const slots = [...granted.values()];
  if (slots.length === 0) return;
  try {
    const ids = await insertBlocks(tx, eventType, slots.flatMap(blocksOf), now);
    for (const slot of slots) slot.blockIds = ids.splice(0, slot.hostIds.length);
    return;
  } catch (error) {
    if (!isExclusionViolation(error)) throw error;
    await tx.execute('rollback to savepoint series_plan', [], 'run');
  }
  for (const [index, slot] of granted) {
    try {
      slot.blockIds = await withSavepoint(tx, () => insertBlocks(tx, eventType, blocksOf(slot), now));
    } catch (error) {
      if (!isExclusionViolation(error)) throw error;
      refusals.set(index, slotTaken().message);
    }
  }
}

/** The explanation's reasons for a failing occurrence (round robin: the plan's host's and the team's only). */
async function reasonsOf(tx: EntityManager, question: SeriesQuestion, plan: Plan, start: number, refusal: string): Promise<OccurrenceReason[]> {
  const explanation = await explainSlotOf(tx, question.eventType, question.viewerId, start, question.durationMin, question.now);
  const reasons = explanation.reasons.filter((reason) => plan.onlyHostId === undefined || !('hostId' in reason) || reason.hostId === plan.onlyHostId);
  return reasons.length > 0 ? reasons : [{ kind: 'taken', message: refusal }];
}

/** Runs `work` under a savepoint of its own; a failure rolls back to it and leaves the transaction usable. */
async function withSavepoint<T>(tx: EntityManager, work: () => Promise<T>): Promise<T> {
  await tx.execute('savepoint series_occurrence', [], 'run');
  try {
    const result = await work();
    await tx.execute('release savepoint series_occurrence', [], 'run');
    return result;
  } catch (error) {
    await tx.execute('rollback to savepoint series_occurrence', [], 'run');
    throw error;
  }
}
