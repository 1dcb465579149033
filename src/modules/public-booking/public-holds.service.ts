/**
 * The booking page's slot holds: the page holds the time the invitee picked while they fill in the form, books it
 * with the hold, and lets it go when they go back. Nobody is signed in there, so the hold belongs to a secret the
 * page alone is given (`hld_` + 256 bits, stored only as its SHA-256): another browser cannot book with the hold,
 * see it or let it go. Holds per client address are capped (slot-holds.service.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { generateToken, hashToken } from '../../lib/secrets.ts';
import { findEventType } from '../availability/availability.service.ts';
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import { pageHolder } from '../slot-holds/hold-rules.ts';
import { createSlotHold, releaseSlotHold } from '../slot-holds/slot-holds.service.ts';
import type { PublicHoldInput, PublicSlotHold, ReleasePublicHoldInput } from './public-booking.schemas.ts';
import { mayOpen } from './public-booking.service.ts';

export const HOLD_TOKEN_PREFIX = 'hld_';

export async function holdPublicly(
  em: EntityManager,
  { key, ...input }: PublicHoldInput,
  options: { now: Date; ttlMs: number; clientAddress: string; deadline?: AbortSignal; calendarRefresh?: StaleRefresh },
): Promise<PublicSlotHold> {
  // As for booking: a secret event type without its key is missing; the hold's own rules answer the rest.
  const eventType = await findEventType(em, input.eventTypeId);
  if (eventType && !(await mayOpen(em, eventType, { key }))) throw notFound('Event type');
  const holdToken = generateToken(HOLD_TOKEN_PREFIX);
  const { hostIds: _hostIds, ...hold } = await createSlotHold(em, input, {
    caller: { kind: 'public' },
    holder: pageHolder(hashToken(holdToken)),
    clientKey: hashToken(`client:${options.clientAddress}`),
    now: options.now,
    ttlMs: options.ttlMs,
    deadline: options.deadline,
    calendarRefresh: options.calendarRefresh,
  });
  return { ...hold, holdToken };
}

export async function releasePublicHold(em: EntityManager, input: ReleasePublicHoldInput, now: Date): Promise<{ released: true }> {
  await releaseSlotHold(em, pageHolder(hashToken(input.holdToken)), input.holdId, now);
  return { released: true };
}
