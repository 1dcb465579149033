/**
 * The invitee's self-service through the private manage link /book/manage/<token>: read, cancel, reschedule,
 * download the .ics. The token is a bearer secret (256 random bits, `bkm_` prefix) handed out once, in the
 * public booking's creation response; only its SHA-256 is stored, and a booking is found by that hash (a unique
 * index lookup: no secret is compared byte by byte in application code). A malformed or unknown token is 404.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound } from '../../lib/errors.ts';
import { generateToken, hashToken, looksLikeToken } from '../../lib/secrets.ts';
import { rescheduleBooking } from '../bookings/booking-reschedule.service.ts';
import type { StaleRefresh } from '../calendars/calendar-sync.ts';
import { readBooking } from '../bookings/booking.rows.ts';
import type { Booking } from '../bookings/bookings.schemas.ts';
import { cancelBooking } from '../bookings/bookings.service.ts';
import { eventTypeUrl } from '../event-types/event-types.schemas.ts';
import { locationLine, locationSentence, meetingLink } from '../bookings/booking-location-text.ts';
import { calendarFile, googleCalendarLink, outlookCalendarLink } from './booking-calendar.ts';
import type { InviteeLinks, ManagedBooking } from './public-booking.schemas.ts';
import { formatInZone } from '../availability/wall-clock.ts';

export const MANAGE_TOKEN_PREFIX = 'bkm_';

/** A new manage link secret and the hash to store with the booking. */
export function newManageToken(): { token: string; hash: string } {
  const token = generateToken(MANAGE_TOKEN_PREFIX);
  return { token, hash: hashToken(token) };
}

interface ManagedRow {
  id: string;
  owner_id: string;
  sequence: number;
  event_type_active: boolean;
  event_type_secret: boolean;
  event_type_color: string;
  durations_min: number[];
  owner_name: string | null;
  owner_slug: string;
  owner_timezone: string;
  host_name: string | null;
  host_email: string;
  cancel_notice_min: number;
  reschedule_notice_min: number;
}

/** The booking a manage token opens, or 404. */
async function findManaged(em: EntityManager, token: string): Promise<{ row: ManagedRow; booking: Booking }> {
  if (!looksLikeToken(MANAGE_TOKEN_PREFIX, token)) throw notFound('Booking');
  const [row] = await em.execute<ManagedRow[]>(
    `select b.id, b.owner_id, b.sequence, et.active as event_type_active, et.secret as event_type_secret,
            et.color as event_type_color, et.durations_min,
            o.name as owner_name, o.slug as owner_slug, o.timezone as owner_timezone, h.name as host_name, h.email as host_email,
            et.cancel_notice_min, et.reschedule_notice_min
       from booking b
       join event_type et on et.id = b.event_type_id
       join app_user o on o.id = b.owner_id
       join app_user h on h.id = b.host_id
      where b.manage_token_hash = ?`,
    [hashToken(token)],
  );
  if (!row) throw notFound('Booking');
  return { row, booking: await readBooking(em, row.owner_id, row.id) };
}

/**
 * Whether `token` opens an active or pending booking of event type `eventTypeId`: its invitee may then see that
 * event type's slots (to reschedule), even a secret one whose private link they do not hold.
 */
export async function managesBookingOf(em: EntityManager, token: string, eventTypeId: string): Promise<boolean> {
  if (!looksLikeToken(MANAGE_TOKEN_PREFIX, token)) return false;
  const rows = await em.execute(
    `select 1 from booking where manage_token_hash = ? and event_type_id = ? and status in ('active', 'pending')`,
    [hashToken(token), eventTypeId],
  );
  return rows.length > 0;
}

/** Where the meeting happens, said to the invitee (who calls whom). */
function whereLine(booking: Booking, hostName: string): string[] {
  if (!booking.location) return [];
  return [`Where: ${locationSentence(booking.location, { audience: 'invitee', hostName, inviteeName: booking.invitee?.name ?? '' })}`];
}

/** The links of a booking whose manage token is `token`. */
function inviteeLinks(siteUrl: string, token: string, booking: Booking, row: ManagedRow): InviteeLinks {
  const manage = `${siteUrl}/book/manage/${token}`;
  const facts = calendarFacts(siteUrl, booking, row, '');
  // The third-party links never carry the manage secret; only the invitee's own .ics file does.
  const description = [...whereLine(booking, facts.organizer.name), `${booking.eventType.name} with ${facts.organizer.name}`].join('\n\n');
  return {
    manage,
    ics: `${manage}/event.ics`,
    google: googleCalendarLink({ ...facts, description }),
    outlook: outlookCalendarLink({ ...facts, description }),
  };
}

function calendarFacts(siteUrl: string, booking: Booking, row: ManagedRow, description: string) {
  const hostName = row.host_name ?? row.host_email;
  return {
    bookingId: booking.id,
    siteUrl,
    title: `${booking.eventType.name} with ${hostName}`,
    start: new Date(booking.startAt),
    end: new Date(booking.endAt),
    timezone: booking.invitee?.timezone ?? row.owner_timezone,
    organizer: { name: hostName, email: row.host_email },
    attendee: { name: booking.invitee?.name ?? '', email: booking.invitee?.email ?? '' },
    location: booking.location ? locationLine(booking.location) : null,
    url: meetingLink(booking.location),
    description: [...whereLine(booking, hostName), ...(description ? [description] : [])].join('\n\n'),
    canceled: booking.status === 'canceled' || booking.status === 'declined',
    sequence: row.sequence,
  };
}

/** The links for the response that created the booking (the only response that reveals the token). */
export async function linksForNewBooking(em: EntityManager, siteUrl: string, token: string): Promise<InviteeLinks> {
  const { row, booking } = await findManaged(em, token);
  return inviteeLinks(siteUrl, token, booking, row);
}

export async function getManagedBooking(em: EntityManager, token: string, siteUrl: string): Promise<ManagedBooking> {
  const { row, booking } = await findManaged(em, token);
  return {
    booking: inviteeView(booking),
    eventType: {
      id: booking.eventType.id,
      name: booking.eventType.name,
      durationsMin: row.durations_min,
      color: row.event_type_color,
      active: row.event_type_active,
      url: row.event_type_secret ? null : eventTypeUrl(siteUrl, row.owner_slug, booking.eventType.slug),
      owner: { name: row.owner_name, slug: row.owner_slug, timezone: row.owner_timezone },
    },
    host: { name: row.host_name },
    links: inviteeLinks(siteUrl, token, booking, row),
    changesUntil: {
      cancel: noticeEdge(booking, row.cancel_notice_min)?.toISOString() ?? null,
      reschedule: noticeEdge(booking, row.reschedule_notice_min)?.toISOString() ?? null,
    },
  };
}

const MINUTE = 60_000;

/** The last instant the invitee may change the booking themselves: the event type's notice before its start. */
function noticeEdge(booking: Booking, noticeMin: number): Date | undefined {
  return noticeMin > 0 ? new Date(Date.parse(booking.startAt) - noticeMin * MINUTE) : undefined;
}

/**
 * The invitee's own cancel or reschedule, refused (409) once the event type's notice before the start has begun;
 * the message says until when it was possible, in the invitee's zone. A booking already canceled or declined
 * is left to the action's own answer (a repeated cancel is answered as before).
 */
function assertBeforeNotice(action: 'cancel' | 'reschedule', booking: Booking, noticeMin: number, now: Date): void {
  const edge = noticeEdge(booking, noticeMin);
  if (!edge || now <= edge || (booking.status !== 'active' && booking.status !== 'pending')) return;
  const zone = booking.invitee?.timezone ?? 'UTC';
  const local = formatInZone(edge.getTime(), zone);
  const when = `${local.slice(0, 10)} ${local.slice(11, 16)}`;
  const verb = action === 'cancel' ? 'canceled' : 'rescheduled';
  throw new DomainError(
    'conflict',
    `This booking can no longer be ${verb} here: that was possible until ${when} (${zone}), ${noticeMin} minutes before its start. Please contact the host.`,
  );
}

/**
 * What the invitee may see of their booking: the host's notes, the other guests, the answers and the event type's
 * private fields stay out (responses are not re-parsed in production, see src/api/output-checks.ts).
 */
function inviteeView(booking: Booking): ManagedBooking['booking'] {
  const { id, startAt, endAt, durationMin, status, location, invitee, canceledAt, canceledBy } = booking;
  return { id, startAt, endAt, durationMin, status, location, invitee, canceledAt, canceledBy };
}

/** The invitee cancels: as the host's cancellation (idempotent, frees the time), recorded as `canceledBy: invitee`. */
export async function cancelManagedBooking(
  em: EntityManager,
  input: { token: string; reason?: string | undefined },
  now: Date,
  siteUrl: string,
): Promise<ManagedBooking> {
  const { row, booking } = await findManaged(em, input.token);
  assertBeforeNotice('cancel', booking, row.cancel_notice_min, now);
  await cancelBooking(em, row.owner_id, { id: row.id, reason: input.reason }, now, 'invitee');
  return getManagedBooking(em, input.token, siteUrl);
}

/** The invitee moves the booking to another slot the engine offers: POST /bookings/{id}/reschedule's rules. */
export async function rescheduleManagedBooking(
  em: EntityManager,
  input: { token: string; start: string },
  options: { now: Date; deadline?: AbortSignal | undefined; siteUrl: string; calendarRefresh?: StaleRefresh },
): Promise<ManagedBooking> {
  const { row, booking } = await findManaged(em, input.token);
  assertBeforeNotice('reschedule', booking, row.reschedule_notice_min, options.now);
  const { now, deadline, calendarRefresh } = options;
  await rescheduleBooking(em, row.owner_id, { id: row.id, start: input.start }, { now, deadline, calendarRefresh });
  return getManagedBooking(em, input.token, options.siteUrl);
}

/** The booking as an .ics file (its description carries the manage link: the file is the invitee's own). */
export async function managedBookingCalendar(em: EntityManager, token: string, siteUrl: string): Promise<string> {
  const { row, booking } = await findManaged(em, token);
  const manage = `${siteUrl}/book/manage/${token}`;
  return calendarFile(calendarFacts(siteUrl, booking, row, `To cancel or reschedule: ${manage}`));
}
