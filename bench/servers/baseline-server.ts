/**
 * The yardstick (bench/README.md, "The baseline"): the plainest server doing the service's work, on Fastify and
 * the pg driver with named prepared statements, no ORM, tRPC or zod. Keep its SQL in step with the services: a
 * ratio means something only while both sides do the same work. Availability and POST /bookings reuse the
 * service's exported statements, slot engine and row mapper, so their ratios measure the stack around them.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { BOOKING_CONTENTION } from '../../src/config/timeouts.ts';
import { numberPlaceholders } from '../../src/lib/prepared-sql.ts';
import { isValidTimeZone } from '../../src/lib/time.ts';
import { sortKeySql } from '../../src/lib/keyset.ts';
import {
  type AvailabilityRow,
  availabilityParams,
  availabilitySql,
  type CalendarRow,
  calendarsParams,
  calendarsSql,
  hostMode,
  readAvailabilityRows,
  slotRules,
  toCalendarHosts,
  toSlots,
} from '../../src/modules/availability/availability.service.ts';
import { type CalendarHost, computeSlotStarts } from '../../src/modules/availability/slots.ts';
import { BOOKING_STATEMENTS, bookingInsertParams, type CreatedBookingRow } from '../../src/modules/bookings/booking-creation.service.ts';
import { resolveBookingLocation } from '../../src/modules/bookings/booking-location.ts';
import { BOOKING_COLUMNS, BOOKING_FROM, type BookingRow, toBooking } from '../../src/modules/bookings/booking.rows.ts';
import { refreshLockedContact } from '../../src/modules/contacts/contacts.projection.ts';
import {
  EVENT_TYPE_COLUMNS,
  type EventTypeRecord,
  type EventTypeRow,
  toEventType,
} from '../../src/modules/event-types/event-type.rows.ts';
import { eventTypeUrl, toEventTypeDto } from '../../src/modules/event-types/event-types.schemas.ts';
import { CONTACT_COLUMNS, type ContactRow, toContact } from '../../src/modules/contacts/contact.rows.ts';
import { LEAD_COLUMNS, LEAD_FROM, type LeadRow, readLead, toLead } from '../../src/modules/leads/lead.rows.ts';
import { emitWebhookEvent } from '../../src/modules/webhooks/outbox.ts';

const url = process.env.BENCH_DATABASE_URL;
if (!url || !process.send) throw new Error('bench/servers/baseline-server.ts is started by bench/run.ts');

// The same pool sizes as the service: the ORM's pool of 20 and the rate-limit counters' own pool of 5.
const pool = new pg.Pool({ connectionString: url, max: 20 });
// As the service's counter pool (src/app.ts): the counts commit without waiting for their WAL flush.
const counterPool = new pg.Pool({ connectionString: url, max: 5, options: '-c synchronous_commit=off' });
const RATE_LIMIT = 1_000_000_000;
const WINDOW_MS = 60_000;
const LAST_USED_PRECISION_MS = 60_000;

interface Principal {
  userId: string;
  tokenId: string;
  scopes: string[];
}

class HttpError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(status: number, title: string, message: string) {
    super(message);
    this.status = status;
    this.title = title;
  }
}

const TOKEN = /^Bearer[ ]+(pat_[a-z2-7]{52}(?:[a-z2-7]{7})?)[ ]*$/i;

async function authenticate(request: FastifyRequest, reply: FastifyReply, scope: string): Promise<Principal> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? TOKEN.exec(header) : null;
  if (!match?.[1]) throw new HttpError(401, 'Unauthorized', 'The access token is invalid, expired or revoked.');
  const hash = createHash('sha256').update(match[1]).digest('hex');
  const { rows } = await pool.query<{
    id: string;
    user_id: string;
    scopes: string[];
    expires_at: Date | null;
    revoked_at: Date | null;
    last_used_at: Date | null;
    plan: string;
  }>({
    name: 'token',
    text: `select t.id, t.user_id, t.scopes, t.expires_at, t.revoked_at, t.last_used_at, u.plan
             from personal_access_token t join app_user u on u.id = t.user_id
            where t.token_hash = $1`,
    values: [hash],
  });
  const row = rows[0];
  const now = Date.now();
  if (!row || row.revoked_at || (row.expires_at && row.expires_at.getTime() <= now) || row.plan !== 'team') {
    throw new HttpError(401, 'Unauthorized', 'The access token is invalid, expired or revoked.');
  }
  if (!row.last_used_at || now - row.last_used_at.getTime() > LAST_USED_PRECISION_MS) {
    await pool.query({
      name: 'token-used',
      text: 'update personal_access_token set last_used_at = $1 where id = $2',
      values: [new Date(now), row.id],
    });
  }
  // The counter: rate-limiter-flexible's own upsert (RateLimiterPostgres._upsert), one row per token.
  const counter = await counterPool.query<{ points: number; expire: string }>({
    name: 'rlflx-upsert',
    text: `insert into "rate_limit" values ($1, $2, $3)
             on conflict(key) do update set
               points = case when ("rate_limit".expire <= $4 or 1=0) then $2 else "rate_limit".points + ($2) end,
               expire = case when "rate_limit".expire <= $4 then $3 else "rate_limit".expire end
           returning points, expire`,
    values: [`baseline:pat:${row.id}`, 1, now + WINDOW_MS, now],
  });
  const points = counter.rows[0]!.points;
  const expire = Number(counter.rows[0]!.expire);
  reply.header('X-RateLimit-Limit', String(RATE_LIMIT));
  reply.header('X-RateLimit-Remaining', String(Math.max(0, RATE_LIMIT - points)));
  reply.header('X-RateLimit-Reset', String(Math.ceil(expire / 1000)));
  reply.header('Cache-Control', 'no-store');
  if (points > RATE_LIMIT) throw new HttpError(429, 'Too Many Requests', 'Rate limit exceeded.');
  if (!row.scopes.includes(scope)) throw new HttpError(403, 'Forbidden', `This token lacks the "${scope}" scope.`);
  return { userId: row.user_id, tokenId: row.id, scopes: row.scopes };
}

function intParam(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new HttpError(400, 'Bad Request', `${name} must be an integer from ${min} to ${max}.`);
  }
  return number;
}

// Cursors signed like the service's (HMAC-SHA256 over what the cursor is bound to), with node:crypto.
const CURSOR_KEY = randomBytes(32);

function cursorTag(userId: string, payload: string): Buffer {
  return createHmac('sha256', CURSOR_KEY).update(userId).update('\0').update(payload).digest();
}

function encodeCursor(userId: string, key: string, id: string): string {
  const payload = JSON.stringify([key, id]);
  return Buffer.concat([Buffer.from(payload), cursorTag(userId, payload)]).toString('base64url');
}

function decodeCursor(userId: string, cursor: string): [string, string] {
  const bytes = Buffer.from(cursor, 'base64url');
  const payload = bytes.subarray(0, Math.max(0, bytes.length - 32)).toString('utf8');
  const tag = bytes.subarray(bytes.length - 32);
  try {
    if (tag.length !== 32 || !timingSafeEqual(tag, cursorTag(userId, payload))) throw new Error('bad tag');
    const [key, id] = JSON.parse(payload) as [string, string];
    if (typeof key !== 'string' || typeof id !== 'string') throw new Error('bad cursor');
    return [key, id];
  } catch {
    throw new HttpError(400, 'Bad Request', 'cursor is not valid.');
  }
}

const app = Fastify({ logger: false });

app.setErrorHandler((error, _request, reply) => {
  if (error instanceof HttpError) {
    return reply
      .code(error.status)
      .send({ title: error.title, message: error.message, ...(error.status === 400 ? { details: [] } : {}) });
  }
  return reply.code(500).send({ title: 'Internal Server Error', message: 'An unexpected error occurred.' });
});

app.get('/me', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:profile');
  const { rows } = await pool.query({
    name: 'me',
    text: 'select id, email, name, slug, timezone from app_user where id = $1',
    values: [principal.userId],
  });
  const user = rows[0];
  if (!user) throw new HttpError(404, 'Not Found', 'User not found.');
  return { id: user.id, email: user.email, name: user.name, slug: user.slug, timezone: user.timezone };
});

app.get('/bookings', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:bookings');
  const query = request.query as Record<string, string | undefined>;
  const limit = intParam(query.limit, 'limit', 50, 1, 100);
  const after = query.cursor ? decodeCursor(principal.userId, query.cursor) : null;
  const select = `select ${BOOKING_COLUMNS}, ${sortKeySql('b.start_at')} as sort_key
                    from ${BOOKING_FROM}`;
  const { rows } = await pool.query<BookingRow & { sort_key: string }>(
    after
      ? {
          name: 'bookings-after',
          text: `${select} where b.owner_id = $1 and (b.start_at, b.id) < ($2::timestamptz, $3)
                  order by b.start_at desc, b.id desc limit $4`,
          values: [principal.userId, after[0], after[1], limit + 1],
        }
      : {
          name: 'bookings-first',
          text: `${select} where b.owner_id = $1 order by b.start_at desc, b.id desc limit $2`,
          values: [principal.userId, limit + 1],
        },
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(toBooking),
    nextCursor: rows.length > limit && last ? encodeCursor(principal.userId, last.sort_key, last.id) : null,
  };
});

/** The service's SITE_URL in bench/servers/app-server.ts: event type URLs are built from it. */
const SITE_URL = 'http://127.0.0.1:3000';

app.get('/event-types', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:event-types');
  const { rows } = await pool.query<EventTypeRow & { owner_slug: string }>({
    name: 'event-types',
    text: `select ${EVENT_TYPE_COLUMNS}, u.slug as owner_slug
             from event_type et join app_user u on u.id = et.owner_id
            where et.owner_id = $1
            order by et.created_at, et.id`,
    values: [principal.userId],
  });
  return rows.map((row) => toEventTypeDto(toEventType(row), eventTypeUrl(SITE_URL, row.owner_slug, row.slug)));
});

app.get('/leads', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:leads');
  const query = request.query as Record<string, string | undefined>;
  const limit = intParam(query.limit, 'limit', 50, 1, 100);
  const after = query.cursor ? decodeCursor(principal.userId, query.cursor) : null;
  const select = `select ${LEAD_COLUMNS}, ${sortKeySql('l.created_at')} as sort_key from ${LEAD_FROM}`;
  const { rows } = await pool.query<LeadRow & { sort_key: string }>(
    after
      ? {
          name: 'leads-after',
          text: `${select} where l.owner_id = $1 and (l.created_at, l.id) < ($2::timestamptz, $3)
                  order by l.created_at desc, l.id desc limit $4`,
          values: [principal.userId, after[0], after[1], limit + 1],
        }
      : {
          name: 'leads-first',
          text: `${select} where l.owner_id = $1 order by l.created_at desc, l.id desc limit $2`,
          values: [principal.userId, limit + 1],
        },
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(toLead),
    nextCursor: rows.length > limit && last ? encodeCursor(principal.userId, last.sort_key, last.id) : null,
  };
});

app.get('/contacts', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:contacts');
  const query = request.query as Record<string, string | undefined>;
  const limit = intParam(query.limit, 'limit', 50, 1, 200);
  const offset = intParam(query.offset, 'offset', 0, 0, 1_000_000_000);
  if (query.kind !== undefined && query.kind !== 'client' && query.kind !== 'lead') {
    throw new HttpError(400, 'Bad Request', 'kind must be client or lead.');
  }
  // The service's WHERE clause, built the same way; page and total in ONE statement (one snapshot).
  const conditions = ['owner_id = $1'];
  const values: unknown[] = [principal.userId];
  if (query.kind) {
    values.push(query.kind);
    conditions.push(`kind = $${values.length}`);
  }
  const q = query.q?.trim();
  if (q) {
    values.push(`%${q.replace(/[\\%_]/g, '\\$&')}%`);
    conditions.push(`search_text like lower($${values.length})`);
  }
  const where = conditions.join(' and ');
  // Unnamed statements, planned for their actual values: a generic plan cannot use the trigram index for a
  // LIKE pattern it does not know (the service gets custom plans too: MikroORM inlines the values).
  const { rows } = await pool.query<ContactRow & { total: string }>({
    text: `select ${CONTACT_COLUMNS},
                  (select count(*) from contact where ${where}) as total
             from contact where ${where}
            order by last_activity_at desc nulls last, email_key
            limit $${values.length + 1} offset $${values.length + 2}`,
    values: [...values, limit, offset],
  });
  let total = rows[0] ? Number(rows[0].total) : null;
  if (total === null) {
    const count = await pool.query<{ total: string }>({
      text: `select count(*) as total from contact where ${where}`,
      values,
    });
    total = Number(count.rows[0]!.total);
  }
  return {
    data: rows.map(toContact),
    total,
    nextOffset: offset + limit < total ? offset + limit : null,
  };
});

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const MAX_WINDOW_MS = 31 * 86_400_000;

function instantParam(value: string | undefined, name: string): number {
  const ms = value !== undefined && ISO_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new HttpError(400, 'Bad Request', `${name} must be an ISO 8601 date-time.`);
  return ms;
}

function zoneParam(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    throw new HttpError(400, 'Bad Request', 'tz must be an IANA time zone.');
  }
}

// The service's own statement (written for MikroORM's `?`) and its pure slot engine: what differs is the stack.
const availabilityStatement = numberPlaceholders(availabilitySql);

app.get('/availability', async (request, reply) => {
  const principal = await authenticate(request, reply, 'read:availability');
  const query = request.query as Record<string, string | undefined>;
  const eventTypeId = query.eventTypeId;
  if (!eventTypeId || eventTypeId.length > 64) throw new HttpError(400, 'Bad Request', 'eventTypeId is required.');
  const from = instantParam(query.from, 'from');
  const to = instantParam(query.to, 'to');
  if (to <= from || to - from > MAX_WINDOW_MS) throw new HttpError(400, 'Bad Request', 'to must be after from, at most 31 days.');
  const tz = zoneParam(query.tz);
  // The event type and its calendars in one statement, as the service reads them.
  const { rows } = await pool.query<AvailabilityRow>({
    name: 'availability',
    text: availabilityStatement,
    values: availabilityParams(eventTypeId, principal.userId, from, to, new Date()),
  });
  const read = readAvailabilityRows(rows);
  if (!read) throw new HttpError(404, 'Not Found', 'Event type not found.');
  const { eventType, hosts, connections } = read;
  const durationMin = intParam(query.duration, 'duration', eventType.durationsMin[0]!, 1, 1440);
  if (!eventType.durationsMin.includes(durationMin)) throw new HttpError(400, 'Bad Request', 'duration is not offered.');
  // What the answer knows of each host's connected calendars, as the service writes it.
  if (!eventType.active) return { data: [], hosts: connections };
  const rules = slotRules(eventType, durationMin, new Date(), from, to);
  const starts = computeSlotStarts(rules, hosts, hostMode(eventType.kind));
  return { data: toSlots(starts, durationMin, tz), hosts: connections };
});

// --- POST /bookings: one booking of a one_on_one event type, as the service books it (booking-creation.service.ts). ---

/**
 * The slice of MikroORM's EntityManager that the service's refreshContacts, emitWebhookEvent and readLead use,
 * on the transaction's plain pg client: their SQL text as the service has it (so it cannot drift), each distinct
 * text a named prepared statement. `execute` for those that call the ORM; the transaction context's connection for
 * those that go through executePrepared (src/lib/prepared-sql.ts), which names their statements itself.
 */
const sharedStatements = new Map<string, { name: string; text: string }>();
function onClient(client: pg.PoolClient): EntityManager {
  const execute = async (sql: string, params: unknown[] = []) => {
    let statement = sharedStatements.get(sql);
    if (!statement) sharedStatements.set(sql, (statement = { name: `shared-${sharedStatements.size}`, text: numberPlaceholders(sql) }));
    return (await client.query({ name: statement.name, text: statement.text, values: params })).rows;
  };
  const connection = {
    executeQuery: (query: { sql: { name: string; text: string }; parameters: unknown[] }) =>
      client.query({ name: query.sql.name, text: query.sql.text, values: query.parameters }),
  };
  const getTransactionContext = () => ({
    getExecutor: () => ({ provideConnection: <R>(consume: (c: typeof connection) => Promise<R>) => consume(connection) }),
  });
  return { execute, getTransactionContext } as unknown as EntityManager;
}

interface CreateBookingBody {
  eventTypeId: string;
  start: string;
  durationMin: number;
  invitee: { name: string; email: string; timezone: string; textReminderNumber?: string; smsOptIn?: boolean };
  answers?: { questionId: string; value: string }[];
  guests?: string[];
  notes?: string;
  locationInput?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MINUTE = 60_000;

/** The body's checks, minimal (the service's zod schema is CreateBookingInputSchema): 400 on the first problem. */
function bookingBody(raw: unknown): CreateBookingBody & { startMs: number } {
  const bad = (field: string, why: string) => new HttpError(400, 'Bad Request', `${field} ${why}.`);
  const body = raw as Partial<CreateBookingBody> | null;
  if (typeof body !== 'object' || body === null) throw bad('body', 'must be a JSON object');
  const { eventTypeId, start, durationMin, invitee } = body;
  if (typeof eventTypeId !== 'string' || eventTypeId.length < 1 || eventTypeId.length > 64) throw bad('eventTypeId', 'is required');
  const startMs = typeof start === 'string' && ISO_WITH_OFFSET.test(start) ? Date.parse(start) : Number.NaN;
  if (Number.isNaN(startMs)) throw bad('start', 'must be an ISO 8601 date-time');
  if (!Number.isInteger(durationMin) || durationMin! < 1 || durationMin! > 1440) throw bad('durationMin', 'must be an integer from 1 to 1440');
  if (typeof invitee !== 'object' || invitee === null) throw bad('invitee', 'is required');
  const name = typeof invitee.name === 'string' ? invitee.name.trim() : '';
  if (name.length < 1 || name.length > 200) throw bad('invitee.name', 'must have 1 to 200 characters');
  if (typeof invitee.email !== 'string' || invitee.email.length > 254 || !EMAIL.test(invitee.email)) throw bad('invitee.email', 'must be an e-mail address');
  if (typeof invitee.timezone !== 'string' || invitee.timezone.length > 64 || !isValidTimeZone(invitee.timezone)) {
    throw bad('invitee.timezone', 'must be an IANA time zone name');
  }
  if (invitee.textReminderNumber !== undefined && (typeof invitee.textReminderNumber !== 'string' || !E164.test(invitee.textReminderNumber))) {
    throw bad('invitee.textReminderNumber', 'must be an E.164 phone number');
  }
  if (invitee.smsOptIn !== undefined && typeof invitee.smsOptIn !== 'boolean') throw bad('invitee.smsOptIn', 'must be a boolean');
  const { answers, guests, notes, locationInput } = body;
  if (
    answers !== undefined &&
    (!Array.isArray(answers) ||
      answers.length > 50 ||
      !answers.every((a) => typeof a?.questionId === 'string' && a.questionId.length >= 1 && a.questionId.length <= 100 && typeof a.value === 'string' && a.value.length <= 5000))
  ) {
    throw bad('answers', 'must be at most 50 answers');
  }
  if (guests !== undefined && (!Array.isArray(guests) || guests.length > 10 || !guests.every((g) => typeof g === 'string' && g.length <= 254 && EMAIL.test(g)))) {
    throw bad('guests', 'must be at most 10 e-mail addresses');
  }
  if (notes !== undefined && (typeof notes !== 'string' || notes.length > 5000)) throw bad('notes', 'must be at most 5000 characters');
  if (locationInput !== undefined && (typeof locationInput !== 'string' || locationInput.length > 500)) {
    throw bad('locationInput', 'must be at most 500 characters');
  }
  return {
    eventTypeId,
    start: start!,
    startMs,
    durationMin: durationMin!,
    invitee: { ...invitee, name },
    ...(answers === undefined ? {} : { answers: answers.map((a) => ({ questionId: a.questionId, value: a.value })) }),
    ...(guests === undefined ? {} : { guests }),
    ...(notes === undefined ? {} : { notes }),
    ...(locationInput === undefined ? {} : { locationInput }),
  };
}

const conflict = (message: string) => new HttpError(409, 'Conflict', message);

/** The named statement of each distinct calendars SQL text (one per host mode and seat rule). */
const calendarStatements = new Map<string, string>();

/** The slot engine run for exactly this slot on these calendars: is it offered? */
function offered(eventType: EventTypeRecord, calendars: CalendarHost[], start: number, durationMin: number, now: Date): boolean {
  const end = start + durationMin * MINUTE;
  const starts = computeSlotStarts(slotRules(eventType, durationMin, now, start, end), calendars, hostMode(eventType.kind));
  return starts.includes(start / MINUTE);
}

/** The slot engine re-run for exactly this slot on the service's calendars statement: is it offered? */
async function slotOffered(client: pg.PoolClient, eventType: EventTypeRecord, start: number, durationMin: number, now: Date): Promise<boolean> {
  const end = start + durationMin * MINUTE;
  const sql = calendarsSql(eventType);
  let name = calendarStatements.get(sql);
  if (!name) calendarStatements.set(sql, (name = `calendars-${calendarStatements.size}`));
  const calendars = await client.query<CalendarRow>({ name, text: numberPlaceholders(sql), values: calendarsParams(eventType, start, end, now) });
  return offered(eventType, toCalendarHosts(calendars.rows), start, durationMin, now);
}

/**
 * One transaction, statement for statement the service's for a one_on_one event type without an Idempotency-Key:
 * the event type with its calendars, the slot check, the host's advisory lock with lock_timeout, the slot check again, the busy block
 * (the exclusion constraint refuses an overlap: 23P01, a 409), the booking with its block link, the lead
 * conversion and the contact's lock (one statement), the contact refresh, the webhook outbox (writes nothing when no endpoint is subscribed). The
 * service's in-process turns per host and its deadlock retries are not copied: contention policy, not work.
 */
async function bookOneOnOne(userId: string, input: ReturnType<typeof bookingBody>): Promise<BookingRow> {
  const now = new Date();
  const client = await pool.connect();
  let done = false;
  try {
    await client.query('begin');
    // The event type with its hosts' calendars for the slot: the statement GET /availability runs.
    const { rows } = await client.query<AvailabilityRow>({
      name: 'availability',
      text: availabilityStatement,
      values: availabilityParams(input.eventTypeId, userId, input.startMs, input.startMs + input.durationMin * MINUTE, now),
    });
    const read = readAvailabilityRows(rows);
    if (!read) throw new HttpError(404, 'Not Found', 'Event type not found.');
    const eventType = read.eventType;
    if (!eventType.active) throw conflict('This event type is inactive and does not accept bookings.');
    if (!eventType.durationsMin.includes(input.durationMin)) throw conflict('This event type does not offer that duration.');
    if (eventType.kind !== 'one_on_one') throw new HttpError(501, 'Not Implemented', 'The baseline books one_on_one event types only.');
    const taken = () => conflict('That slot was just taken. Pick another slot from /availability.');
    // Before the lock (a slot already gone is a 409 at once), then under it, as the service does.
    if (!offered(eventType, read.hosts, input.startMs, input.durationMin, now)) throw taken();
    // The host's lock, bounding the transaction's lock waits and deleting first the host's slot holds that have
    // ended, as the service does.
    await client.query({
      name: 'host-calendar-lock',
      text: `with ended as (delete from busy_block where host_id = $1 and hold_id is not null and hold_expires_at <= $2)
             select pg_advisory_xact_lock(hashtextextended($4, 0)) from (select set_config('lock_timeout', $3, true)) as bound`,
      values: [eventType.ownerId, now, String(BOOKING_CONTENTION.hostLockMs), `host-calendar:${eventType.ownerId}`],
    });
    if (!(await slotOffered(client, eventType, input.startMs, input.durationMin, now))) throw taken();

    const start = new Date(input.startMs);
    const end = new Date(input.startMs + input.durationMin * MINUTE);
    const blockId = randomUUID();
    await client.query({
      name: 'busy-block-insert',
      text: `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at, hold_id, hold_expires_at)
             values ($1, $2, $3, $4, $5, tstzrange($6, $7, '[)'), 1, true, $8, null, null)`,
      values: [
        blockId,
        eventType.ownerId,
        eventType.id,
        start,
        end,
        new Date(input.startMs - eventType.bufferBeforeMin * MINUTE),
        new Date(end.getTime() + eventType.bufferAfterMin * MINUTE),
        now,
      ],
    });
    const created = await client.query<CreatedBookingRow>({
      name: 'booking-create',
      text: numberPlaceholders(BOOKING_STATEMENTS.create),
      values: bookingInsertParams(
        { id: randomUUID(), eventType, hostId: eventType.ownerId, start, end, blockIds: [blockId], location: resolveBookingLocation(eventType.locations, { locationInput: input.locationInput }) },
        input,
        null,
        now,
      ),
    });
    const { converted_lead_ids: convertedLeadIds, ...inserted } = created.rows[0]!;
    const tx = onClient(client);
    await refreshLockedContact(tx, eventType.ownerId, input.invitee.email);
    const row: BookingRow = { ...inserted, event_type_name: eventType.name, event_type_slug: eventType.slug };
    await emitWebhookEvent(tx, eventType.ownerId, 'booking.created', toBooking(row), now);
    for (const id of convertedLeadIds) {
      await emitWebhookEvent(tx, eventType.ownerId, 'lead.converted', await readLead(tx, eventType.ownerId, id), now);
    }
    await client.query('commit');
    done = true;
    return row;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === '23P01') throw conflict('That slot was just taken. Pick another slot from /availability.');
    if (code === '55P03') throw conflict('Other bookings of the same calendar are in progress. Check /availability and retry.');
    throw error;
  } finally {
    // A failed transaction rolls back; a connection whose rollback failed is not given back to the pool.
    if (done) client.release();
    else await client.query('rollback').then(() => client.release(), (error: Error) => client.release(error));
  }
}

app.post('/bookings', async (request, reply) => {
  const principal = await authenticate(request, reply, 'write:bookings');
  const row = await bookOneOnOne(principal.userId, bookingBody(request.body));
  reply.code(201).header('Location', `${SITE_URL}/api/v2/bookings/${encodeURIComponent(row.id)}`);
  return toBooking(row);
});

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send({ port: typeof address === 'object' && address ? address.port : 0 });

process.on('message', (message) => {
  // CPU time this process has used, so that the parent can charge it per request.
  if (message === 'cpu') return void process.send?.({ cpu: process.cpuUsage() });
  if (message !== 'stop') return;
  void (async () => {
    await app.close();
    await Promise.all([pool.end(), counterPool.end()]);
    process.exit(0);
  })();
});
process.on('disconnect', () => process.exit(0));
