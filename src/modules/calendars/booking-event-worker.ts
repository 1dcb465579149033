/**
 * Writes bookings to their hosts' CalDAV calendars from the outbox (booking-events.ts). Every instance polls and
 * claims due rows with `for update skip locked` while leasing them, in one statement, as the webhook delivery
 * worker does; the request runs outside any transaction. The outcome is recorded only under this claim's lease,
 * and marks the row done only when no change came meanwhile (`revision`): a change made during the request
 * leaves it due, so the next poll writes the booking as it now is. Failures are retried with growing waits.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CALENDAR_FETCH, CALENDAR_WRITE } from '../../config/timeouts.ts';
import type { Clock } from '../../lib/clock.ts';
import { startPollingWorker } from '../../lib/polling-worker.ts';
import { openSecret } from '../../lib/sealed-secrets.ts';
import { type SqlTimestamp, toDate } from '../../lib/sql-values.ts';
import { bookingEventIcs, bookingUidSuffix, eventUid, hostBookingLink, withHostEdits } from './booking-event-ics.ts';
import { CaldavClient, type CaldavCredentials, CaldavError, type PutCondition } from './caldav-client.ts';

export interface BookingEventSettings {
  allowPrivateNetworks: boolean;
  clock: Clock;
  /** SITE_URL: the UIDs' domain and the host's link to each booking. */
  siteUrl: string;
  /** The longest one request may take (CALENDAR_FETCH.requestMs unless a test shortens it). */
  requestTimeoutMs?: number;
}

interface ClaimedEvent {
  id: string;
  booking_id: string;
  uid: string;
  sequence: number;
  wanted: boolean;
  revision: number;
  attempts: number;
  etag: string | null;
  object_name: string | null;
  host_edits: boolean;
  remote_url: string;
  secret: string;
  start_at: SqlTimestamp;
  end_at: SqlTimestamp;
  invitee_name: string;
  invitee_email: string;
  location_kind: string | null;
  location_value: string | null;
  notes: string | null;
  event_type_name: string;
  host_name: string | null;
  host_email: string;
  /** Whose claim this is: the lease's end as this claim set it. */
  lease: Date;
}

/** Claims up to a batch of due writes, with what each needs: the calendar, the sealed credentials, the booking. */
async function claim(em: EntityManager, settings: BookingEventSettings): Promise<ClaimedEvent[]> {
  const now = settings.clock.now();
  const lease = new Date(now.getTime() + CALENDAR_WRITE.leaseMs);
  const rows = await em.execute<Omit<ClaimedEvent, 'lease'>[]>(
    `with due as (
       select id from booking_calendar_event
        where next_attempt_at <= ? and (lease_until is null or lease_until <= ?)
        order by next_attempt_at limit ? for update skip locked
     ), claimed as (
       update booking_calendar_event e set lease_until = ?, uid = coalesce(e.uid, e.booking_id || ?)
         from due where e.id = due.id
       returning e.id, e.booking_id, e.host_id, e.calendar_id, e.uid, e.sequence, e.wanted, e.revision, e.attempts, e.etag, e.object_name, e.host_edits
     )
     select claimed.id, claimed.booking_id, claimed.uid, claimed.sequence, claimed.wanted, claimed.revision, claimed.attempts,
            claimed.etag, claimed.object_name, claimed.host_edits,
            cal.remote_url, c.secret, b.start_at, b.end_at, b.invitee_name, b.invitee_email, b.location_kind, b.location_value, b.notes,
            et.name as event_type_name, h.name as host_name, h.email as host_email
       from claimed
       join connected_calendar cal on cal.id = claimed.calendar_id
       join calendar_connection c on c.id = cal.connection_id
       join booking b on b.id = claimed.booking_id
       join event_type et on et.id = b.event_type_id
       join app_user h on h.id = claimed.host_id`,
    [now, now, CALENDAR_WRITE.batch, lease, bookingUidSuffix(settings.siteUrl)],
  );
  return rows.map((row) => ({ ...row, lease }));
}

/** Where the event stands in its calendar, as far as the worker knows: recorded with every attempt. */
interface Placement {
  /** The calendar object's name; null for the default, `<booking id>.ics`. */
  objectName: string | null;
  /** The ETag of the copy the service last wrote; null when none is known. */
  etag: string | null;
  /** That copy carries additions of the host's: the next write reads it first, as the ETag cannot keep them. */
  hostEdits: boolean;
}

/** The event's address in its calendar: one object per booking, named by its id unless that name was taken. */
function eventUrl(event: ClaimedEvent, objectName: string | null): string {
  const collection = event.remote_url.endsWith('/') ? event.remote_url : `${event.remote_url}/`;
  return new URL(encodeURIComponent(objectName ?? `${event.booking_id}.ics`), collection).href;
}

/** Each round answers one change found in the calendar; a calendar that changes under every round gets a retry. */
const ROUNDS = 4;
const CREATE: PutCondition = { ifNoneMatch: '*' };

/**
 * Writes the booking's event without overwriting anything it did not write (RFC 4791, RFC 7232). With no known
 * ETag it only creates (`If-None-Match: *`); a name already taken holds the booking's own event if its UID is the
 * booking's (written before ETags were kept, or the server gave none), else a foreign resource, which is left
 * alone while the event takes a fresh name. With an ETag it replaces only that copy (`If-Match`); if the host
 * changed it meanwhile (412) it is read again and written over that version with the host's additions kept
 * (withHostEdits); if it is gone it is created again. A copy already carrying such additions is read first.
 */
async function put(client: CaldavClient, event: ClaimedEvent, ics: string, placement: Placement): Promise<void> {
  let condition: PutCondition = placement.etag === null ? CREATE : { ifMatch: placement.etag };
  let body = ics;
  let readFirst = placement.etag !== null && placement.hostEdits;
  for (let round = 0; round < ROUNDS; round++) {
    const url = eventUrl(event, placement.objectName);
    if (!readFirst) {
      const outcome = await client.putEvent(url, body, condition);
      if (typeof outcome === 'object') {
        placement.etag = outcome.etag;
        placement.hostEdits = body !== ics;
        return;
      }
      // A creation answered 404 has no calendar to go into.
      if (outcome === 'not-found' && condition === CREATE) throw new CaldavError('the event could not be written (the server answered 404)');
    }
    readFirst = false;
    const current = await client.getEvent(url);
    if (current !== undefined && eventUid(current.ics) === event.uid) {
      placement.etag = current.etag;
      condition = current.etag === null ? null : { ifMatch: current.etag };
      body = withHostEdits(ics, current.ics);
      continue;
    }
    if (current !== undefined) placement.objectName = `${event.booking_id}-${randomUUID().slice(0, 8)}.ics`;
    placement.etag = null;
    condition = CREATE;
    body = ics;
  }
  throw new CaldavError('the event kept changing in the calendar while it was written');
}

/**
 * Deletes the booking's event: the copy it knows (`If-Match`), or on 412 the host's newer version (the booking
 * is canceled, so the event goes whatever the host changed). With no known ETag it reads the object first and
 * deletes it only if it is the booking's, so a foreign resource of the same name stays.
 */
async function remove(client: CaldavClient, event: ClaimedEvent, placement: Placement): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const url = eventUrl(event, placement.objectName);
    if (placement.etag === null) {
      const current = await client.getEvent(url);
      if (current === undefined || eventUid(current.ics) !== event.uid) return;
      placement.etag = current.etag;
    }
    const outcome = await client.deleteEvent(url, placement.etag);
    placement.etag = null;
    placement.hostEdits = false;
    if (outcome === 'deleted') return;
  }
  throw new CaldavError('the event kept changing in the calendar while it was deleted');
}

async function write(
  em: EntityManager,
  event: ClaimedEvent,
  placement: Placement,
  settings: BookingEventSettings,
  signal: AbortSignal,
): Promise<string | undefined> {
  const credentials = JSON.parse(await openSecret(em, 'calendar-credentials', event.secret)) as CaldavCredentials;
  const client = new CaldavClient(credentials, {
    allowPrivateNetworks: settings.allowPrivateNetworks,
    timeoutMs: settings.requestTimeoutMs ?? CALENDAR_FETCH.requestMs,
    signal,
  });
  try {
    if (!event.wanted) {
      await remove(client, event, placement);
      return undefined;
    }
    const ics = bookingEventIcs({
      uid: event.uid,
      sequence: event.sequence,
      start: toDate(event.start_at),
      end: toDate(event.end_at),
      stamp: settings.clock.now(),
      eventTypeName: event.event_type_name,
      invitee: { name: event.invitee_name, email: event.invitee_email },
      host: { name: event.host_name ?? event.host_email, email: event.host_email },
      location: event.location_kind ? { kind: event.location_kind, value: event.location_value } : null,
      notes: event.notes,
      link: hostBookingLink(settings.siteUrl, event.booking_id),
    });
    await put(client, event, ics, placement);
    return undefined;
  } catch (error) {
    if (error instanceof CaldavError) return error.message;
    throw error;
  }
}

/**
 * Records an attempt under this claim's lease; the row is done, or given up, only if no change came meanwhile.
 * Where the event now stands is recorded either way: it is what the calendar holds, whichever change comes next.
 */
async function record(em: EntityManager, event: ClaimedEvent, placement: Placement, error: string | undefined, now: Date): Promise<void> {
  const delay = error === undefined ? undefined : CALENDAR_WRITE.retryDelaysMs[event.attempts];
  const next = delay === undefined ? null : new Date(now.getTime() + delay);
  const status = error === undefined ? (event.wanted ? 'written' : 'deleted') : next === null ? 'failed' : 'pending';
  await em.execute(
    `update booking_calendar_event
        set lease_until = null, updated_at = ?, etag = ?, object_name = ?, host_edits = ?,
            status = case when revision = ? then ? else status end,
            last_error = case when revision = ? then ? else last_error end,
            attempts = case when revision = ? then ? else attempts end,
            next_attempt_at = case when revision = ? then ?::timestamptz else next_attempt_at end
      where id = ? and lease_until = ?`,
    [now, placement.etag, placement.objectName, placement.hostEdits, event.revision, status, event.revision, error ?? null, event.revision, error === undefined ? 0 : event.attempts + 1, event.revision, next, event.id, event.lease],
    'run',
  );
}

/** Works one poll's due writes; returns how many it claimed. */
export async function writeDueBookingEvents(em: EntityManager, settings: BookingEventSettings, signal: AbortSignal): Promise<number> {
  const claimed = await claim(em, settings);
  await Promise.all(
    claimed.map(async (event) => {
      const placement: Placement = { objectName: event.object_name, etag: event.etag, hostEdits: event.host_edits };
      const error = await write(em, event, placement, settings, signal);
      // Cut short by shutdown: the lease runs out and another instance (or this one, restarted) writes it.
      if (signal.aborted) return;
      await record(em, event, placement, error, settings.clock.now());
    }),
  );
  return claimed.length;
}

/** Starts the polling loop of one instance; `emOf` hands out a fresh EntityManager per poll. */
export function startBookingEventWorker(options: {
  emOf: () => EntityManager;
  settings: BookingEventSettings;
  onError: (error: unknown) => void;
}): { stop(): Promise<void> } {
  return startPollingWorker({
    runBatch: (signal) => writeDueBookingEvents(options.emOf(), options.settings, signal),
    batch: CALENDAR_WRITE.batch,
    pollMs: CALENDAR_WRITE.pollMs,
    onError: options.onError,
  });
}
