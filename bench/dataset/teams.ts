/**
 * Teams for the round-robin and collective availability scenarios (bench/README.md, "The data set"), added to the
 * data set without rebuilding it, and rebuilt whenever the availability window moves.
 */
import type pg from 'pg';
import { type BenchFixture, eventTypeIdOf, userIdOf } from './fixture.ts';

export const TEAM_SIZES = [1, 5, 10, 25, 50] as const;
export const TEAM_BOOKINGS = [0, 100, 500, 2000] as const;
export type TeamKind = 'round_robin' | 'collective';
const KINDS: TeamKind[] = ['round_robin', 'collective'];
const TEAMS_VERSION = 't1';
const AVAILABILITY_USER = 2;
const FIRST_HOST = 20_000;
/** 15-minute slots in 31 days: 2,976, enough for 2,000 distinct bookings per host. */
const SLOTS = 31 * 96;

const hostSeq = (level: number, i: number) => FIRST_HOST + level * 100 + i;

/** The event type of the availability user for a team of `hosts` hosts with `bookings` bookings each. */
export function teamEventTypeId(kind: TeamKind, hosts: number, bookings: number): string {
  const index = KINDS.indexOf(kind) * 100 + TEAM_SIZES.indexOf(hosts as (typeof TEAM_SIZES)[number]) * 10;
  return eventTypeIdOf(AVAILABILITY_USER, 1000 + index + TEAM_BOOKINGS.indexOf(bookings as (typeof TEAM_BOOKINGS)[number]));
}

/** Builds the teams unless this version of them already lies in the current availability window. */
export async function ensureTeams(client: pg.Client, fixture: BenchFixture, log: (line: string) => void): Promise<void> {
  const marker = `${TEAMS_VERSION}:${fixture.availability.windowFrom}`;
  const { rows } = await client.query<{ value: string }>(`select value #>> '{}' as value from bench_meta where key = 'teams'`);
  if (rows[0]?.value === marker) return;
  const started = Date.now();
  const hostIds = TEAM_BOOKINGS.flatMap((_, level) => levelHostIds(level));
  await client.query('begin');
  await client.query('delete from app_user where id = any($1)', [hostIds]);
  await client.query(`delete from event_type where owner_id = $1 and slug like 'team-%'`, [fixture.availability.id]);
  for (const [level, bookings] of TEAM_BOOKINGS.entries()) await insertHosts(client, fixture, level, bookings);
  await insertTeamEventTypes(client, fixture);
  await client.query(
    `insert into bench_meta (key, value) values ('teams', to_jsonb($1::text)) on conflict (key) do update set value = excluded.value`,
    [marker],
  );
  await client.query('commit');
  await client.query('analyze app_user; analyze event_type; analyze event_type_host; analyze booking; analyze busy_block');
  log(`  teams (${hostIds.length} hosts, ${KINDS.length * TEAM_SIZES.length * TEAM_BOOKINGS.length} event types): ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/** The 50 hosts of a busyness level, in the order teams take them. */
const levelHostIds = (level: number) => Array.from({ length: 50 }, (_, i) => userIdOf(hostSeq(level, i + 1)));

async function insertHosts(client: pg.Client, fixture: BenchFixture, level: number, bookings: number): Promise<void> {
  const seq = `(${FIRST_HOST + level * 100} + i)`;
  await client.query(
    `insert into app_user (id, email, name, slug, timezone, plan, created_at, updated_at)
     select md5('bench-user-' || ${seq})::uuid::text, 'team' || ${seq} || '@bench.example', 'Team host ' || ${seq},
            'bench-team-' || ${seq}, (array['Europe/London', 'Europe/Berlin', 'Europe/Helsinki'])[1 + i % 3], 'team', now(), now()
       from generate_series(1, 50) i`,
  );
  // Ten hours on weekdays, from 08:00 + (i mod 3) h + (i mod 4) quarter-hours, local time.
  await client.query(
    `insert into availability_schedule (user_id, weekly, overrides, updated_at)
     select md5('bench-user-' || ${seq})::uuid::text,
            jsonb_build_object('monday', d, 'tuesday', d, 'wednesday', d, 'thursday', d, 'friday', d,
                               'saturday', '[]'::jsonb, 'sunday', '[]'::jsonb), '[]', now()
       from generate_series(1, 50) i,
            lateral (select jsonb_build_array(jsonb_build_object(
                       'start', to_char(make_time(8 + i % 3, (i % 4) * 15, 0), 'HH24:MI'),
                       'end', to_char(make_time(18 + i % 3, (i % 4) * 15, 0), 'HH24:MI'))) as d) hours`,
  );
  await client.query(
    `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, created_at, updated_at)
     select md5('bench-et-' || ${seq} || '-1')::uuid::text, md5('bench-user-' || ${seq})::uuid::text, 'Own calls', 'own-calls',
            'one_on_one', '{15}', '#2563eb', true, now(), now()
       from generate_series(1, 50) i`,
  );
  if (bookings === 0) return;
  await client.query(
    `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                          invitee_name, invitee_email, invitee_timezone, created_at, updated_at)
     select gen_random_uuid()::text, u, u, md5('bench-et-' || ${seq} || '-1')::uuid::text, start_at,
            start_at + interval '15 minutes', 15, 'active', 'Team invitee ' || k, 'team.invitee' || k || '@example.com', 'UTC',
            now(), now()
       from generate_series(1, 50) i, generate_series(0, $2 - 1) k,
            lateral (select md5('bench-user-' || ${seq})::uuid::text as u,
                            $1::timestamptz + ((floor(k * ${SLOTS}::numeric / $2)::int + i * 7) % ${SLOTS}) * interval '15 minutes'
                              as start_at) placed`,
    [fixture.availability.windowFrom, bookings],
  );
  const hosts = levelHostIds(level);
  await client.query(
    `insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
     select md5('bench-bb-' || id)::uuid::text, host_id, event_type_id, start_at, end_at, tstzrange(start_at, end_at, '[)'),
            1, true, created_at
       from booking where owner_id = any($1)`,
    [hosts],
  );
  await client.query(
    `insert into booking_busy_block (booking_id, busy_block_id)
     select id, md5('bench-bb-' || id)::uuid::text from booking where owner_id = any($1)`,
    [hosts],
  );
}

async function insertTeamEventTypes(client: pg.Client, fixture: BenchFixture): Promise<void> {
  for (const kind of KINDS) {
    for (const size of TEAM_SIZES) {
      for (const [level, bookings] of TEAM_BOOKINGS.entries()) {
        const id = teamEventTypeId(kind, size, bookings);
        await client.query(
          `insert into event_type (id, owner_id, name, slug, kind, durations_min, color, active, created_at, updated_at)
           values ($1, $2, $3, $4, $5, '{30}', '#2563eb', true, now(), now())`,
          [id, fixture.availability.id, `Team of ${size} (${kind})`, `team-${kind}-${size}-${bookings}`, kind],
        );
        await client.query('insert into event_type_host (event_type_id, user_id) select $1, unnest($2::text[])', [
          id,
          levelHostIds(level).slice(0, size),
        ]);
      }
    }
  }
}
