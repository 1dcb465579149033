/**
 * What the booking-rule and e-mail scenarios need (bench/README.md, "The data set"), added to the data set without
 * rebuilding it:
 *
 * - the rules host, rebuilt whenever the availability window moves: 500 bookings of a round robin of one (owned by
 *   the availability user) with a booking window and limits that fill some of its days and weeks, slot holds on the
 *   days that are not full, and a twin event type of the same host without window or limits;
 * - the booker's event types: its first (the `POST /bookings` rows') sends no e-mail, as the baseline sends none;
 *   a second one does; a third has limits that the bench's bookings never reach.
 */
import type pg from 'pg';
import { type BenchFixture, eventTypeIdOf, userIdOf } from './fixture.ts';

const RULES_VERSION = 'r2';
const BOOKER_VERSION = 'b1';
const AVAILABILITY_USER = 2;
const BOOKER = 3;
const RULES_HOST = 20_701;
const RULES_ZONE = 'America/New_York';

export type RulesScenario = 'limited' | 'none';

/** The availability user's round-robin event types of the rules host (30 minutes): with window and limits, and without. */
export function rulesEventTypeId(scenario: RulesScenario): string {
  return eventTypeIdOf(AVAILABILITY_USER, scenario === 'limited' ? 3000 : 3001);
}

/**
 * The rules host's bookings: on 30 local days from the window's first whole one, 20 on every third day (0, 3, …)
 * and 15 on the others (500 in all), at evenly spread half hours of its 08:00–20:00 (New York).
 */
export const RULES = {
  days: 30,
  fullDayBookings: 20,
  otherDayBookings: 15,
  /** The limits: every third day is full, and so is each week holding three of them (3 × 20 + 4 × 15 = 120). */
  limits: { perDay: 20, perWeek: 118, perMonth: 1000 },
  /** The window: the window's first 24 whole local days, so that the last week of the 31 days asked for is outside. */
  windowDays: 24,
  /** Live slot holds on each day that is not full (20 days: 40 holds). */
  holdsPerDay: 2,
} as const;

/** The booker's event types (15 minutes each, like its first). */
export const BOOKER_EVENT_TYPES = {
  /** The `POST /bookings` rows' one: no e-mail, no limits. */
  plain: eventTypeIdOf(BOOKER, 1),
  /** The same with e-mail: a confirmation to the invitee (with its invitation) and a notice to the host per booking. */
  withEmail: eventTypeIdOf(BOOKER, 2),
  /** The same as `plain` with limits per day, week and month that 8 bookings a day never reach. */
  withLimits: eventTypeIdOf(BOOKER, 3),
} as const;
export const BOOKER_LIMITS = { perDay: 8, perWeek: 56, perMonth: 248 } as const;

/** Builds what is missing or outdated. */
export async function ensureRuleHosts(client: pg.Client, fixture: BenchFixture, log: (line: string) => void): Promise<void> {
  await ensureBookerEventTypes(client, log);
  const marker = `${RULES_VERSION}:${fixture.availability.windowFrom}`;
  const { rows } = await client.query<{ value: string }>(`select value #>> '{}' as value from bench_meta where key = 'rules'`);
  if (rows[0]?.value === marker) return;
  const started = Date.now();
  const host = userIdOf(RULES_HOST);
  await client.query('begin');
  await client.query('delete from app_user where id = $1', [host]);
  await client.query(`delete from event_type where owner_id = $1 and slug like 'rules-%'`, [fixture.availability.id]);
  await client.query(
    `insert into app_user (id, email, name, slug, timezone, plan, created_at, updated_at)
     values ($1, 'rules@bench.example', 'Rules host', 'bench-rules', $2, 'team', now(), now())`,
    [host, RULES_ZONE],
  );
  await client.query(
    `insert into availability_schedule (user_id, weekly, overrides, updated_at)
     select $1, jsonb_build_object('monday', e, 'tuesday', e, 'wednesday', e, 'thursday', e, 'friday', e, 'saturday', e, 'sunday', e), '[]', now()
       from (select jsonb_build_array(jsonb_build_object('start', '08:00', 'end', '20:00')) as e) hours`,
    [host],
  );
  const firstDay = await insertEventTypes(client, fixture, host);
  await insertBookings(client, fixture, host, firstDay);
  await insertHolds(client, host, firstDay);
  await client.query(
    `insert into bench_meta (key, value) values ('rules', to_jsonb($1::text)) on conflict (key) do update set value = excluded.value`,
    [marker],
  );
  await client.query('commit');
  await client.query('analyze app_user; analyze event_type; analyze event_type_host; analyze booking; analyze busy_block');
  log(`  rules host (${RULES.days} days of bookings): ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/** The two event types; returns the first whole local day of the window (YYYY-MM-DD), where the bookings start. */
async function insertEventTypes(client: pg.Client, fixture: BenchFixture, host: string): Promise<string> {
  const { rows } = await client.query<{ first: string; last: string }>(
    `select (($1::timestamptz at time zone $2)::date + 1)::text as first, (($1::timestamptz at time zone $2)::date + $3::int)::text as last`,
    [fixture.availability.windowFrom, RULES_ZONE, RULES.windowDays],
  );
  const { first, last } = rows[0]!;
  for (const scenario of ['limited', 'none'] as const) {
    const limited = scenario === 'limited';
    await client.query(
      `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, created_at, updated_at,
                               booking_window_start, booking_window_end, limit_per_day, limit_per_week, limit_per_month)
       values ($1, $2, $3, $4, 'round_robin', '{30}', '#2563eb', true, now(), now(), $5::date, $6::date, $7, $8, $9)`,
      [
        rulesEventTypeId(scenario),
        fixture.availability.id,
        limited ? 'Rules (window and limits)' : 'Rules (none)',
        `rules-${scenario}`,
        limited ? first : null,
        limited ? last : null,
        limited ? RULES.limits.perDay : null,
        limited ? RULES.limits.perWeek : null,
        limited ? RULES.limits.perMonth : null,
      ],
    );
    await client.query('insert into event_type_host (event_type_id, user_id) values ($1, $2)', [rulesEventTypeId(scenario), host]);
  }
  return first;
}

/** The host's bookings of the limited event type (the limits count them), with their busy blocks and links. */
async function insertBookings(client: pg.Client, fixture: BenchFixture, host: string, firstDay: string): Promise<void> {
  await client.query(
    `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                          invitee_name, invitee_email, invitee_timezone, created_at, updated_at)
     select gen_random_uuid()::text, $1, $2, $3, start_at, start_at + interval '30 minutes', 30, 'active',
            'Rules invitee ' || d || '-' || j, 'rules.invitee' || d || '.' || j || '@example.com', 'UTC', now(), now()
       from generate_series(0, $5::int - 1) d,
            lateral (select case when d % 3 = 0 then $6::int else $7::int end as n) per,
            generate_series(0, per.n - 1) j,
            lateral (select (($4::date + d)::timestamp + interval '8 hours' + floor(j * 24.0 / per.n) * interval '30 minutes') at time zone $8
                       as start_at) placed`,
    [fixture.availability.id, host, rulesEventTypeId('limited'), firstDay, RULES.days, RULES.fullDayBookings, RULES.otherDayBookings, RULES_ZONE],
  );
  await client.query(
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
     select md5('bench-bb-' || id)::uuid::text, host_id, event_type_id, start_at, end_at, tstzrange(start_at, end_at, '[)'), 1, true, created_at
       from booking where host_id = $1`,
    [host],
  );
  await client.query(
    `insert into booking_busy_block (booking_id, busy_block_id) select id, md5('bench-bb-' || id)::uuid::text from booking where host_id = $1`,
    [host],
  );
}

/**
 * Slot holds of the rules host, written as the service writes them (a slot_hold row and its busy block): the first
 * `RULES.holdsPerDay` free half hours of each day that is not full, alive for the whole run.
 */
async function insertHolds(client: pg.Client, host: string, firstDay: string): Promise<void> {
  await client.query(
    `with free as (
       select d, p, (($3::date + d)::timestamp + interval '8 hours' + p * interval '30 minutes') at time zone $5 as start_at
         from generate_series(0, $4::int - 1) d, generate_series(0, 23) p
        where d % 3 <> 0
          and not exists (select 1 from busy_block bb
                           where bb.host_id = $2
                             and bb.start_at = (($3::date + d)::timestamp + interval '8 hours' + p * interval '30 minutes') at time zone $5)),
     picked as (select d, start_at, row_number() over (partition by d order by p) as nth from free)
     insert into slot_hold (id, event_type_id, host_id, holder, start_at, end_at, duration_min, expires_at, created_at)
     select md5('bench-hold-' || d || '-' || nth)::uuid::text, $1, $2, 'bench', start_at, start_at + interval '30 minutes', 30,
            now() + interval '400 days', now()
       from picked where nth <= $6`,
    [rulesEventTypeId('limited'), host, firstDay, RULES.days, RULES_ZONE, RULES.holdsPerDay],
  );
  await client.query(
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at, hold_id, hold_expires_at)
     select md5('bench-hb-' || id)::uuid::text, host_id, event_type_id, start_at, end_at, tstzrange(start_at, end_at, '[)'), 1, true,
            created_at, id, expires_at
       from slot_hold where host_id = $1`,
    [host],
  );
}

/** The booker's event types beside its first (which loses its e-mail), unless this version of them exists. */
async function ensureBookerEventTypes(client: pg.Client, log: (line: string) => void): Promise<void> {
  const { rows } = await client.query<{ value: string }>(`select value #>> '{}' as value from bench_meta where key = 'booker'`);
  if (rows[0]?.value === BOOKER_VERSION) return;
  const booker = userIdOf(BOOKER);
  await client.query('begin');
  await client.query('delete from event_type where id = any($1)', [[BOOKER_EVENT_TYPES.withEmail, BOOKER_EVENT_TYPES.withLimits]]);
  await client.query('update event_type set notifications = false where id = $1', [BOOKER_EVENT_TYPES.plain]);
  const insert = (id: string, name: string, slug: string, notifications: boolean, limits: readonly (number | null)[]) =>
    client.query(
      `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, notifications, created_at, updated_at,
                               limit_per_day, limit_per_week, limit_per_month)
       values ($1, $2, $3, $4, 'one_on_one', '{15}', '#2563eb', true, $5, now(), now(), $6, $7, $8)`,
      [id, booker, name, slug, notifications, ...limits],
    );
  await insert(BOOKER_EVENT_TYPES.withEmail, 'Quick call with e-mail', 'quick-call-email', true, [null, null, null]);
  await insert(BOOKER_EVENT_TYPES.withLimits, 'Quick call with limits', 'quick-call-limits', false, [
    BOOKER_LIMITS.perDay,
    BOOKER_LIMITS.perWeek,
    BOOKER_LIMITS.perMonth,
  ]);
  await client.query(
    `insert into bench_meta (key, value) values ('booker', to_jsonb($1::text)) on conflict (key) do update set value = excluded.value`,
    [BOOKER_VERSION],
  );
  await client.query('commit');
  log('  booker event types: e-mail off on the first, one with e-mail, one with limits');
}
