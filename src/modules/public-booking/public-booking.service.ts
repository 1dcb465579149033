/**
 * The public, unauthenticated booking flow behind the booking page (/book/:user/:eventType). Only active event
 * types are public. A secret one opens only with its current private link key, in every read and write (404 like
 * a missing one otherwise: ids are not secrets); an invitee's manage token also opens its availability, to
 * reschedule their own booking.
 */
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import { timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../lib/errors.ts';
import { hashToken } from '../../lib/secrets.ts';
import { findEventType, getAvailabilityFor } from '../availability/availability.service.ts';
import { createBooking, type CreateBookingResult } from '../bookings/booking-creation.service.ts';
import { createBookingSeries } from '../booking-series/booking-series-creation.service.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';
import type { IdempotencyScope } from '../../lib/idempotency-key.ts';
import { EVENT_TYPE_COLUMNS, type EventTypeRecord, type EventTypeRow, toEventType } from '../event-types/event-type.rows.ts';
import { eventTypeUrl } from '../event-types/event-types.schemas.ts';
import { captureLead } from '../leads/lead-capture.service.ts';
import { pageHolder } from '../slot-holds/hold-rules.ts';
import { linksForNewBooking, managesBookingOf, newManageToken } from './managed-booking.service.ts';
import type {
  CaptureLeadInput,
  EventTypeAccess,
  InviteeLinks,
  PublicAvailabilityInput,
  PublicAvailabilityOutput,
  PublicBookingInput,
  PublicBookingSeriesInput,
  PublicBookingSeriesResult,
  PublicEventType,
  PublicEventTypeInput,
} from './public-booking.schemas.ts';

/** Whether `key` is the private link key whose SHA-256 is stored, compared in constant time. */
function isPrivateLinkKey(key: string, storedHash: string): boolean {
  const given = Buffer.from(hashToken(key));
  const expected = Buffer.from(storedHash);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function getPublicEventType(
  em: EntityManager,
  input: PublicEventTypeInput,
  siteUrl: string,
): Promise<PublicEventType> {
  const [row] = await em.execute<
    (EventTypeRow & { owner_name: string | null; owner_slug: string; owner_timezone: string })[]
  >(
    `select ${EVENT_TYPE_COLUMNS}, u.name as owner_name, u.slug as owner_slug, u.timezone as owner_timezone
       from event_type et join app_user u on u.id = et.owner_id
      where u.slug = ? and et.slug = ? and et.active`,
    [input.userSlug, input.eventTypeSlug],
  );
  if (!row) throw notFound('Event type');
  const eventType = toEventType(row);
  const key = eventType.secret ? input.key : undefined;
  if (eventType.secret && !(key && eventType.privateLinkKeyHash && isPrivateLinkKey(key, eventType.privateLinkKeyHash))) {
    throw notFound('Event type');
  }
  return {
    id: eventType.id,
    name: eventType.name,
    slug: eventType.slug,
    url: eventTypeUrl(siteUrl, row.owner_slug, eventType.slug, key ?? undefined),
    kind: eventType.kind,
    durationsMin: eventType.durationsMin,
    color: eventType.color,
    minNoticeMin: eventType.minNoticeMin,
    seatsPerSlot: eventType.seatsPerSlot,
    requiresConfirmation: eventType.requiresConfirmation,
    recurrence: eventType.recurrenceMaxCount === null ? null : { maxCount: eventType.recurrenceMaxCount },
    owner: { name: row.owner_name, slug: row.owner_slug, timezone: row.owner_timezone },
    description: eventType.description,
    // Strangers see which kinds of place there are and the addresses to choose among; the host's number and
    // meeting link reach only people who booked (the booking, its e-mails and the manage page carry them).
    locations: eventType.locations.map((location) => ({ kind: location.kind, address: location.kind === 'in_person' ? location.address : null })),
  };
}

/** Whether the caller may see `eventType`: any public one; a secret one with its current key or a manage token of its. */
export async function mayOpen(em: EntityManager, eventType: EventTypeRecord, access: EventTypeAccess): Promise<boolean> {
  if (!eventType.secret) return true;
  if (access.key && eventType.privateLinkKeyHash && isPrivateLinkKey(access.key, eventType.privateLinkKeyHash)) return true;
  return access.manageToken !== undefined && (await managesBookingOf(em, access.manageToken, eventType.id));
}

/** An active event type by id that the caller may see, else 404. */
async function findPublicEventType(em: EntityManager, id: string, access: EventTypeAccess): Promise<EventTypeRecord> {
  const eventType = await findEventType(em, id);
  if (!eventType?.active || !(await mayOpen(em, eventType, access))) throw notFound('Event type');
  return eventType;
}

export async function getPublicAvailability(
  em: EntityManager,
  { key, manageToken, ...input }: PublicAvailabilityInput,
  now: Date,
): Promise<PublicAvailabilityOutput> {
  const { data } = await getAvailabilityFor(em, await findPublicEventType(em, input.eventTypeId, { key, manageToken }), input, now);
  return { data };
}

/**
 * The invitee books: exactly POST /bookings's rules (same body, same engine, same transaction), except
 * that any event type may be booked, not only the caller's (an Idempotency-Key is scoped to the client address).
 * The booking gets a private manage link, whose secret only this response shows: an idempotent replay answers
 * the booking without its links, since the secret is not stored.
 */
export async function bookPublicly(
  em: EntityManager,
  { key, holdToken, ...input }: PublicBookingInput,
  options: { now: Date; idempotency: IdempotencyScope | undefined; deadline?: AbortSignal; siteUrl: string; calendarRefresh?: StaleRefresh },
): Promise<CreateBookingResult & { links?: InviteeLinks }> {
  // Only a secret event type is refused here; booking's own rules answer for a missing or inactive one.
  const eventType = await findEventType(em, input.eventTypeId);
  if (eventType && !(await mayOpen(em, eventType, { key }))) throw notFound('Event type');
  const manageToken = newManageToken();
  const result = await createBooking(em, input, {
    caller: { kind: 'public' },
    now: options.now,
    deadline: options.deadline,
    idempotency: options.idempotency,
    manageTokenHash: manageToken.hash,
    manageToken: manageToken.token,
    calendarRefresh: options.calendarRefresh,
    holder: holdToken === undefined ? undefined : pageHolder(hashToken(holdToken)),
  });
  const answer = { ...result, booking: forInvitee(result.booking) };
  if (result.replayed) return answer;
  return { ...answer, links: await linksForNewBooking(em, options.siteUrl, manageToken.token) };
}

/**
 * The invitee books a series: exactly POST /booking-series's rules, on any event type like bookPublicly, with the
 * page's hold of the first occurrence when it has one. Every occurrence gets its own private manage link (each is
 * moved or canceled alone), shown only in this response.
 */
export async function bookSeriesPublicly(
  em: EntityManager,
  { key, holdToken, ...input }: PublicBookingSeriesInput,
  options: { now: Date; idempotency: IdempotencyScope | undefined; deadline?: AbortSignal; siteUrl: string; calendarRefresh?: StaleRefresh },
): Promise<{ status: number; series: PublicBookingSeriesResult }> {
  const eventType = await findEventType(em, input.eventTypeId);
  if (eventType && !(await mayOpen(em, eventType, { key }))) throw notFound('Event type');
  const result = await createBookingSeries(em, input, {
    caller: { kind: 'public' },
    now: options.now,
    deadline: options.deadline,
    idempotency: options.idempotency,
    calendarRefresh: options.calendarRefresh,
    newManageToken,
    holder: holdToken === undefined ? undefined : pageHolder(hashToken(holdToken)),
  });
  const { hostId: _host, ...series } = result.series;
  const bookings = [];
  for (const [index, booking] of series.bookings.entries()) {
    const token = result.manageTokens?.[index];
    bookings.push(token ? { ...forInvitee(booking), links: await linksForNewBooking(em, options.siteUrl, token) } : forInvitee(booking));
  }
  return { status: result.status, series: { ...series, bookings } };
}

/** The host's own state of the booking (its calendar write-back) is not the invitee's to see. */
function forInvitee(booking: Booking): Booking {
  const shown = { ...booking };
  delete shown.calendarEvents;
  return shown;
}

export async function capturePublicLead(em: EntityManager, input: CaptureLeadInput, now: Date): Promise<{ captured: true }> {
  const eventType = await findPublicEventType(em, input.eventTypeId, { key: input.key });
  await captureLead(em, eventType, { name: input.name, email: input.email, timezone: input.timezone }, now);
  return { captured: true };
}
