/**
 * Hosts with connected calendars for the calendar scenarios (bench/README.md, "The data set"), added to the data set
 * without rebuilding it, and rebuilt whenever the availability window moves. Their connections and busy intervals
 * are written straight into the tables a sync fills, as a sync leaves them (`ok`, synced now), and are never due:
 * no sync runs for them during a run. The sync scenario's host has no connection here: the scenario makes its own.
 */
import type pg from 'pg';
import { SEALING_ROOT_SECRET, sealWithRoot } from '../../src/lib/sealed-secrets.ts';
import { readOrCreateServerSecret } from '../../src/lib/server-secret.ts';
import { busyDaysSql } from '../../src/modules/calendars/busy-days.ts';
import { type BenchFixture, eventTypeIdOf, userIdOf } from './fixture.ts';

const CALENDARS_VERSION = 'c2';
const AVAILABILITY_USER = 2;
/** The host with calendars, its two twins without (one with the same busy time as bookings), the sync host. */
const HOSTS = { busy: 20_401, booked: 20_402, bare: 20_403, sync: 20_404 } as const;
const FIRST_TEAM_HOST = 20_500;
export const CALENDAR_SIZES = {
  /** The host with calendars: this many connections and busy intervals in the window. */
  connections: 3,
  busyIntervals: 2_000,
  /** The round-robin team: hosts, connections each, busy intervals each. */
  teamHosts: 50,
  teamConnections: 2,
  teamBusyIntervals: 200,
} as const;
/** 15-minute places in 31 days: busy intervals take distinct ones, so that they never overlap (bookings cannot). */
const PLACES = 31 * 96;
/** Never due within a run: the worker never claims these connections. */
const NEVER = '2100-01-01T00:00:00Z';

export type CalendarScenario = 'busy' | 'booked' | 'bare' | 'team';
const SCENARIOS: CalendarScenario[] = ['busy', 'booked', 'bare', 'team'];

/** The availability user's round-robin event type of each calendar scenario (30 minutes). */
export function calendarEventTypeId(scenario: CalendarScenario): string {
  return eventTypeIdOf(AVAILABILITY_USER, 2000 + SCENARIOS.indexOf(scenario));
}

/** The user whose connection the sync scenario makes and syncs. */
export const SYNC_HOST = { id: userIdOf(HOSTS.sync), timezone: 'Europe/Berlin' };

const teamSeqs = () => Array.from({ length: CALENDAR_SIZES.teamHosts }, (_, i) => FIRST_TEAM_HOST + i + 1);

/** Builds the calendar hosts unless this version of them already lies in the current availability window. */
export async function ensureCalendarHosts(client: pg.Client, fixture: BenchFixture, log: (line: string) => void): Promise<void> {
  const marker = `${CALENDARS_VERSION}:${fixture.availability.windowFrom}`;
  const { rows } = await client.query<{ value: string }>(`select value #>> '{}' as value from bench_meta where key = 'calendars'`);
  if (rows[0]?.value === marker) {
    await ensureBusyDays(client, log);
    return;
  }
  const started = Date.now();
  const seqs = [...Object.values(HOSTS), ...teamSeqs()];
  await client.query('begin');
  await client.query('delete from app_user where id = any($1)', [seqs.map(userIdOf)]);
  await client.query(`delete from event_type where owner_id = $1 and slug like 'calendars-%'`, [fixture.availability.id]);
  await insertUsers(client, seqs);
  await insertConnections(client, [
    [HOSTS.busy, CALENDAR_SIZES.connections],
    ...teamSeqs().map((seq): [number, number] => [seq, CALENDAR_SIZES.teamConnections]),
  ]);
  await insertCalendarBusy(client, fixture);
  await insertTwinBookings(client, fixture);
  await insertEventTypes(client, fixture);
  await client.query(
    `insert into bench_meta (key, value) values ('calendars', to_jsonb($1::text)) on conflict (key) do update set value = excluded.value`,
    [marker],
  );
  await client.query('commit');
  await client.query('analyze app_user; analyze event_type; analyze event_type_host; analyze calendar_connection; analyze calendar_busy; analyze calendar_busy_day; analyze busy_block');
  log(`  calendar hosts (${seqs.length}, ${CALENDAR_SIZES.busyIntervals + CALENDAR_SIZES.teamHosts * CALENDAR_SIZES.teamBusyIntervals} busy intervals): ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/** Every host: 08:00–20:00 every day in New York (the single hosts), ten weekday hours in Europe (the team's). */
async function insertUsers(client: pg.Client, seqs: number[]): Promise<void> {
  await client.query(
    `insert into app_user (id, email, name, slug, timezone, plan, created_at, updated_at)
     select md5('bench-user-' || s)::uuid::text, 'calendars' || s || '@bench.example', 'Calendar host ' || s, 'bench-calendars-' || s,
            case when s = $2 then $3 when s > $4 then (array['Europe/London', 'Europe/Berlin', 'Europe/Helsinki'])[1 + s % 3]
                 else 'America/New_York' end, 'team', now(), now()
       from unnest($1::int[]) s`,
    [seqs, HOSTS.sync, SYNC_HOST.timezone, FIRST_TEAM_HOST],
  );
  await client.query(
    `insert into availability_schedule (user_id, weekly, overrides, updated_at)
     select md5('bench-user-' || s)::uuid::text,
            case when s > $2 then jsonb_build_object('monday', d, 'tuesday', d, 'wednesday', d, 'thursday', d, 'friday', d,
                                                     'saturday', '[]'::jsonb, 'sunday', '[]'::jsonb)
                 else jsonb_build_object('monday', e, 'tuesday', e, 'wednesday', e, 'thursday', e, 'friday', e, 'saturday', e, 'sunday', e)
            end, '[]', now()
       from unnest($1::int[]) s,
            lateral (select jsonb_build_array(jsonb_build_object(
                       'start', to_char(make_time(8 + s % 3, (s % 4) * 15, 0), 'HH24:MI'),
                       'end', to_char(make_time(18 + s % 3, (s % 4) * 15, 0), 'HH24:MI'))) as d,
                            jsonb_build_array(jsonb_build_object('start', '08:00', 'end', '20:00')) as e) hours`,
    [seqs, FIRST_TEAM_HOST],
  );
}

/** Each host's connections (an iCalendar feed with one busy calendar each), as a sync leaves them, never due again. */
async function insertConnections(client: pg.Client, pairs: [seq: number, connections: number][]): Promise<void> {
  const root = await readOrCreateServerSecret(async (sql, params) => (await client.query(positional(sql), params)).rows, SEALING_ROOT_SECRET);
  const secret = sealWithRoot(root, 'calendar-credentials', 'https://calendar.example/bench/private-feed.ics');
  await client.query(
    `insert into calendar_connection (id, owner_id, kind, name, secret, masked_url, status, last_synced_at, last_attempt_at,
                                      next_sync_at, created_at)
     select md5('bench-cc-' || p.s || '-' || n)::uuid::text, md5('bench-user-' || p.s)::uuid::text, 'ics', 'Calendar ' || n, $3,
            'https://calendar.example/….ics', 'ok', now(), now(), $4, now() + n * interval '1 ms'
       from unnest($1::int[], $2::int[]) as p(s, c), generate_series(1, p.c) n`,
    [pairs.map(([s]) => s), pairs.map(([, c]) => c), secret, NEVER],
  );
  await client.query(
    `insert into connected_calendar (id, connection_id, name, busy, booking_target)
     select md5('bench-cal-' || c.id)::uuid::text, c.id, c.name, true, false
       from calendar_connection c where c.owner_id = any($1)`,
    [pairs.map(([s]) => userIdOf(s))],
  );
}

const positional = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * 15-minute busy intervals on distinct places of the window, spread evenly over days and nights, taking the
 * host's connections in turn (the team's shifted per host, as the team scenarios' bookings are).
 */
const busyPlaces = (count: number, shift: string) => `
  select k, $1::timestamptz + ((floor(k * ${PLACES}::numeric / ${count})::int + ${shift}) % ${PLACES}) * interval '15 minutes' as start_at
    from generate_series(0, ${count} - 1) k`;

async function insertCalendarBusy(client: pg.Client, fixture: BenchFixture): Promise<void> {
  const insert = (count: number, connections: number, seqs: number[], shift: string) =>
    client.query(
      `insert into calendar_busy (host_id, connection_id, calendar_id, busy, counts)
       select md5('bench-user-' || s)::uuid::text, cc, md5('bench-cal-' || cc)::uuid::text,
              tstzrange(placed.start_at, placed.start_at + interval '15 minutes'), true
         from unnest($2::int[]) s,
              lateral (${busyPlaces(count, shift)}) placed,
              lateral (select md5('bench-cc-' || s || '-' || (1 + k % ${connections}))::uuid::text as cc) connection`,
      [fixture.availability.windowFrom, seqs],
    );
  await insert(CALENDAR_SIZES.busyIntervals, CALENDAR_SIZES.connections, [HOSTS.busy], '0');
  await insert(CALENDAR_SIZES.teamBusyIntervals, CALENDAR_SIZES.teamConnections, teamSeqs(), 's * 7');
  await insertBusyDays(client);
}

const CALENDAR_HOSTS = () => [HOSTS.busy, ...teamSeqs()].map(userIdOf);

/** The calendar hosts' busy days, as a sync writes them after its busy rows (calendar_busy_day). */
async function insertBusyDays(client: pg.Client): Promise<void> {
  await client.query(busyDaysSql('cal.connection_id in (select id from calendar_connection where owner_id = any($1))'), [CALENDAR_HOSTS()]);
}

/**
 * The busy days again when the hosts are there without them: a checkout whose bench predates calendar_busy_day
 * may have rebuilt the hosts in the shared data set (it keeps the same version of them, so that the two do not
 * rebuild them in turn).
 */
async function ensureBusyDays(client: pg.Client, log: (line: string) => void): Promise<void> {
  const { rows } = await client.query<{ present: boolean }>('select exists (select 1 from calendar_busy_day where host_id = any($1)) as present', [
    CALENDAR_HOSTS(),
  ]);
  if (rows[0]?.present) return;
  await insertBusyDays(client);
  await client.query('analyze calendar_busy_day');
  log('  calendar hosts: their busy days written');
}

/** The booked twin: the calendar host's busy intervals as its own bookings (with busy blocks and their links). */
async function insertTwinBookings(client: pg.Client, fixture: BenchFixture): Promise<void> {
  const twin = userIdOf(HOSTS.booked);
  const ownEventType = eventTypeIdOf(HOSTS.booked, 1);
  await client.query(
    `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, created_at, updated_at)
     values ($1, $2, 'Own calls', 'own-calls', 'one_on_one', '{15}', '#2563eb', true, now(), now())`,
    [ownEventType, twin],
  );
  await client.query(
    `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                          invitee_name, invitee_email, invitee_timezone, created_at, updated_at)
     select gen_random_uuid()::text, $2, $2, $3, start_at, start_at + interval '15 minutes', 15, 'active',
            'Calendar twin invitee ' || k, 'calendar.twin' || k || '@example.com', 'UTC', now(), now()
       from (${busyPlaces(CALENDAR_SIZES.busyIntervals, '0')}) placed`,
    [fixture.availability.windowFrom, twin, ownEventType],
  );
  await client.query(
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
     select md5('bench-bb-' || id)::uuid::text, host_id, event_type_id, start_at, end_at, tstzrange(start_at, end_at, '[)'), 1, true, created_at
       from booking where owner_id = $1`,
    [twin],
  );
  await client.query(
    `insert into booking_busy_block (booking_id, busy_block_id) select id, md5('bench-bb-' || id)::uuid::text from booking where owner_id = $1`,
    [twin],
  );
}

/**
 * The availability user's round-robin event types: one host each for the single scenarios (15 minutes, so that
 * the host with calendars still offers about 500 slots between its busy intervals), the 50 for the team (30).
 */
async function insertEventTypes(client: pg.Client, fixture: BenchFixture): Promise<void> {
  const hostsOf: Record<CalendarScenario, number[]> = { busy: [HOSTS.busy], booked: [HOSTS.booked], bare: [HOSTS.bare], team: teamSeqs() };
  for (const scenario of SCENARIOS) {
    const id = calendarEventTypeId(scenario);
    await client.query(
      `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, created_at, updated_at)
       values ($1, $2, $3, $4, 'round_robin', $5, '#2563eb', true, now(), now())`,
      [id, fixture.availability.id, `Calendars (${scenario})`, `calendars-${scenario}`, scenario === 'team' ? '{30}' : '{15}'],
    );
    await client.query('insert into event_type_host (event_type_id, user_id) select $1, unnest($2::text[])', [id, hostsOf[scenario].map(userIdOf)]);
  }
}
