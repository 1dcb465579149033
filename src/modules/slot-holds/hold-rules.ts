/**
 * The rules of slot holds that need no database: whose a hold is, when it ends, which event types and slots take
 * one, and whether a booking names the slot its hold keeps. The rules: docs/decisions.md, "Slot holds".
 */
import { DomainError, invalidField } from '../../lib/errors.ts';
import type { Principal } from '../../identity/principal.ts';
import type { EventTypeRecord } from '../event-types/event-type.rows.ts';

/**
 * Who a hold belongs to, as stored: the user for their own tokens and dashboard session, an OAuth grant for an
 * app acting for them (another app, or the user's own tokens, cannot use or see that app's holds).
 */
export function holderOf(principal: Pick<Principal, 'userId' | 'credential'>): string {
  return principal.credential.kind === 'oauth' ? `oauth:${principal.credential.id}` : `user:${principal.userId}`;
}

/** The holder of a booking page's hold: the SHA-256 of the hold token only that page was given. */
export function pageHolder(holdTokenHash: string): string {
  return `page:${holdTokenHash}`;
}

/** When a hold made at `now` ends: from that instant on (`expires_at > now` is live), its slot is like any other. */
export function holdExpiry(now: Date, ttlMs: number): Date {
  return new Date(now.getTime() + ttlMs);
}

/**
 * Why this event type takes no hold of this length, as POST /bookings would refuse it: a group event type's
 * seats are not held (400 on eventTypeId), a duration it does not offer is bad input (400 on durationMin), an
 * inactive one takes nothing (409, as bookings).
 */
export function holdRefusal(eventType: Pick<EventTypeRecord, 'kind' | 'active' | 'durationsMin'>, durationMin: number): DomainError | undefined {
  if (eventType.kind === 'group') {
    return invalidField(['eventTypeId'], 'group event types take no slot holds: book a seat directly');
  }
  if (!eventType.active) return new DomainError('conflict', 'This event type is inactive and does not accept bookings.');
  if (!eventType.durationsMin.includes(durationMin)) {
    return invalidField(['durationMin'], `must be one of this event type's durations: ${eventType.durationsMin.join(', ')}`);
  }
  return undefined;
}

export interface HeldSlot {
  eventTypeId: string;
  /** Epoch milliseconds. */
  start: number;
  durationMin: number;
}

/** The first field of a booking that names another slot than its hold keeps (a 400 on that field), if any. */
export function holdMismatch(held: HeldSlot, booking: HeldSlot): 'eventTypeId' | 'start' | 'durationMin' | undefined {
  if (held.eventTypeId !== booking.eventTypeId) return 'eventTypeId';
  if (held.start !== booking.start) return 'start';
  if (held.durationMin !== booking.durationMin) return 'durationMin';
  return undefined;
}
