/**
 * Every occurrence of a series reserved inside the booking transaction, under the hosts' calendar locks taken once
 * for all of them: each occurrence is decided by the slot engine exactly as a single booking is (reserveSlot), in
 * order, so the occurrences already reserved count in the later ones' limits and busy time. All or nothing: a plan
 * with a failing occurrence is rolled back to its savepoint and its failures are explained. Round robin keeps one
 * host for the whole series: the first host, fairest first, free for every occurrence (docs/decisions.md). A series
 * booked with the hold of its first occurrence ends the hold under those locks, as a single booking does, and
 * tries the held host first.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../../lib/errors.ts';
import { explainSlotOf } from '../availability/availability-explain.service.ts';
import { type Host, loadHosts } from '../availability/availability.service.ts';
import { isExclusionViolation, lockHostCalendars } from '../bookings/booking-transaction.ts';
import { leastRecentlyBookedFirst, type ReservedSlot, reserveSlot } from '../bookings/slot-reservation.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';
import { type ClaimedHold, endHold } from '../slot-holds/held-slot.ts';
import { type Recurrence, seriesStarts } from './occurrences.ts';
import { type FailedOccurrence, type OccurrenceReason, seriesRefused } from './series-refusals.ts';

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

/** One way to book the series: in a host's zone, and for round robin with that host alone. */
interface Plan {
  host: Host;
  onlyHostId?: string;
}

type Attempt = { reserved: ReservedSeries } | { failures: FailedOccurrence[] };

/** Reserves the whole series, or throws the 409 naming each failing occurrence of the plan that came closest. */
export async function reserveSeries(tx: EntityManager, question: SeriesQuestion): Promise<ReservedSeries> {
  const hosts = await loadHosts(tx, question.eventType);
  if (hosts.length === 0) throw new DomainError('conflict', 'This event type has no host to book.');
  const { hold } = question;
  // With `now`, the hosts' ended holds are taken out first, as for every writer of busy time.
  await lockHostCalendars(tx, [...(hold?.hostIds ?? []), ...hosts.map((host) => host.id)], question.now);
  if (hold) await endHold(tx, hold.id);
  let closest: FailedOccurrence[] | undefined;
  for (const plan of await plansOf(tx, question.eventType, hosts, hold?.hostId)) {
    const attempt = await attemptPlan(tx, question, plan, closest?.length);
    if ('reserved' in attempt) return attempt.reserved;
    if (closest === undefined || attempt.failures.length < closest.length) closest = attempt.failures;
  }
  throw seriesRefused(closest!, question.recurrence.count);
}

/**
 * Round robin: each host alone, fairest first (the held host, if still a host, before them); collective: the owner
 * (or the first host) as the booking's host.
 */
async function plansOf(tx: EntityManager, eventType: EventTypeRecord, hosts: Host[], heldHostId: string | undefined): Promise<Plan[]> {
  if (eventType.kind === 'round_robin') {
    const byId = new Map(hosts.map((host) => [host.id, host]));
    const fairest = await leastRecentlyBookedFirst(
      tx,
      eventType.id,
      hosts.map((host) => host.id),
    );
    if (heldHostId !== undefined && fairest.includes(heldHostId)) fairest.unshift(...fairest.splice(fairest.indexOf(heldHostId), 1));
    return fairest.map((id) => ({ host: byId.get(id)!, onlyHostId: id }));
  }
  return [{ host: hosts.find((host) => host.id === eventType.ownerId) ?? hosts[0]! }];
}

async function attemptPlan(tx: EntityManager, question: SeriesQuestion, plan: Plan, bestFailures: number | undefined): Promise<Attempt> {
  const { eventType, durationMin, recurrence, now } = question;
  const maxCount = eventType.recurrenceMaxCount ?? 1;
  const starts = seriesStarts(question.startAt, plan.host.timeZone, recurrence);
  await tx.execute('savepoint series_plan', [], 'run');
  const slots: ReservedSlot[] = [];
  const failures: FailedOccurrence[] = [];
  const refusals = new Map<number, string>();
  for (const [index, start] of starts.entries()) {
    // A plan that can no longer come closer than an earlier one is not asked about its remaining occurrences.
    if (bestFailures !== undefined && failures.length + refusals.size >= bestFailures) break;
    if (index >= maxCount) {
      failures.push({ index, start, reasons: [{ kind: 'recurrence_max_count', maxCount }] });
      continue;
    }
    try {
      const options = { calendarsLocked: true, ...(plan.onlyHostId === undefined ? {} : { onlyHostId: plan.onlyHostId }) };
      slots.push(await withSavepoint(tx, () => reserveSlot(tx, eventType, start, durationMin, now, options)));
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'conflict') && !isExclusionViolation(error)) throw error;
      refusals.set(index, error instanceof DomainError ? error.message : 'That slot was just taken.');
    }
  }
  if (failures.length === 0 && refusals.size === 0) {
    await tx.execute('release savepoint series_plan', [], 'run');
    return { reserved: { hostId: hostOfSeries(eventType, plan, slots), timeZone: plan.host.timeZone, slots } };
  }
  // Explained while this plan's reserved occurrences still hold their time (they count in limits and overlaps);
  // a plan that fails more occurrences than an earlier one is not shown, so it is not explained.
  const explain = bestFailures === undefined || failures.length + refusals.size < bestFailures;
  for (const [index, message] of refusals) {
    const start = starts[index]!;
    failures.push({ index, start, reasons: explain ? await reasonsOf(tx, question, plan, start, message) : [{ kind: 'taken', message }] });
  }
  await tx.execute('rollback to savepoint series_plan', [], 'run');
  await tx.execute('release savepoint series_plan', [], 'run');
  return { failures };
}

/** The booking host every occurrence records: round robin's one host; otherwise as a single booking's. */
function hostOfSeries(eventType: EventTypeRecord, plan: Plan, slots: ReservedSlot[]): string {
  return plan.onlyHostId ?? slots[0]?.hostId ?? eventType.ownerId;
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
