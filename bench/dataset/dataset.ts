/**
 * The bench's data set (bench/README.md, "The data set"), built once in its own database, `bench_data`, with
 * set-based SQL, and reused between runs. Every booking of a host gets its own slot, so the busy blocks never trip
 * the exclusion constraint. The raw bench tokens are stored in `bench_meta` so later runs can use them: never point
 * the bench at a database holding anything of value.
 */
import pg from 'pg';
import { initOrm, migrate } from '../../src/db/orm.ts';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { rebuildAllContacts, refreshContacts } from '../../src/modules/contacts/contacts.projection.ts';
import { databaseUrl } from '../../test/helpers/database-url.ts';
import { type BenchFixture, eventTypeIdOf, userIdOf } from './fixture.ts';
import { ensureCalendarHosts } from './calendars.ts';
import { ensureRuleHosts } from './rules.ts';
import { ensureTeams } from './teams.ts';

export const BENCH_DATABASE = 'bench_data';

export const SIZES = {
  users: 10_000,
  bookings: 1_000_000,
  leads: 200_000,
  heavyBookings: 50_000,
  heavyLeads: 50_000,
  heavyEventTypes: 5,
  availabilityBookings: 500,
  /** Share of the heavy user's leads that reuse an invitee's e-mail (in another letter case). */
  heavyLeadOverlap: 0.4,
} as const;

/** Bump when the shape of the generated data changes; a different version triggers a rebuild. */
export const DATASET_VERSION = `v1:${Object.values(SIZES).join('/')}`;

const HEAVY = 1;
const AVAILABILITY = 2;
const BOOKER = 3;
const FIRST_NORMAL = 4;
const NORMAL_USERS = SIZES.users - FIRST_NORMAL + 1;
const NORMAL_EVENT_TYPES = 2;

// Deterministic ids from sequence numbers, so that every statement computes them without a lookup.
const userIdSql = (seq: string) => `md5('bench-user-' || (${seq}))::uuid::text`;
const eventTypeIdSql = (seq: string, n: string) => `md5('bench-et-' || (${seq}) || '-' || (${n}))::uuid::text`;
const FIRST_NAMES = `Anna Ben Carla David Elena Felix Grace Hugo Ines Jonas Klara Leo Maya Noah Olga Paul Quinn Rosa Sami Tara
  Umar Vera Will Xenia Yusuf Zoe Amir Bella Chen Dara Emil Fatima Gabriel Hana Ivan Julia Kenji Lucia Mateo Nina`.split(/\s+/);
const LAST_NAMES = `Smith Mueller Garcia Kowalski Rossi Dubois Silva Nguyen Kim Ivanova Jensen Novak Horvat Schmidt Martin
  Lopez Brown Wilson Taylor Anderson Thomas Moore Jackson White Harris Clark Lewis Young Walker Hall Allen King Wright
  Scott Green Baker Adams Nelson Carter Mitchell`.split(/\s+/);
const DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example', 'acme.example', 'corp.example'];
const INVITEE_ZONES = ['America/New_York', 'Europe/Berlin', 'Europe/London', 'Asia/Tokyo', 'America/Los_Angeles', 'Australia/Sydney'];
const sqlArray = (values: readonly string[]) => `array[${values.map((v) => `'${v}'`).join(',')}]::text[]`;

/**
 * Person j of owner s: a name and an e-mail derived from both, so that bookings and leads written by
 * different statements agree on who is who. Plain SQL functions, which the planner inlines.
 */
const PERSON_FUNCTIONS = `
  create or replace function bench_first(s int, j int) returns text language sql immutable parallel safe as
    $$ select (${sqlArray(FIRST_NAMES)})[1 + (j * 7 + s) % ${FIRST_NAMES.length}] $$;
  create or replace function bench_last(s int, j int) returns text language sql immutable parallel safe as
    $$ select (${sqlArray(LAST_NAMES)})[1 + (j * 13 + s * 3) % ${LAST_NAMES.length}] $$;
  create or replace function bench_email(s int, j int) returns text language sql immutable parallel safe as
    $$ select lower(bench_first(s, j)) || '.' || lower(bench_last(s, j)) || j || '@' ||
              (${sqlArray(DOMAINS)})[1 + (j + s) % ${DOMAINS.length}] $$;
  create or replace function bench_zone(j int) returns text language sql immutable parallel safe as
    $$ select (${sqlArray(INVITEE_ZONES)})[1 + j % ${INVITEE_ZONES.length}] $$;`;

export type Log = (line: string) => void;

/** The bench database on the server of `serverUrl`, built when missing or outdated (or when `rebuild`). */
export async function ensureDataset(serverUrl: string, log: Log, options: { rebuild?: boolean } = {}): Promise<BenchFixture> {
  return whileNoOtherBenchPrepares(serverUrl, log, async () => {
    const fixture = await ensureCoreDataset(serverUrl, log, options);
    await withClient(databaseUrl(serverUrl, BENCH_DATABASE), async (client) => {
      await ensureTeams(client, fixture, log);
      await ensureCalendarHosts(client, fixture, log);
      await ensureRuleHosts(client, fixture, log);
    });
    return fixture;
  });
}

/** The advisory lock of preparing the data set, on the server's maintenance database (a build drops bench_data). */
const PREPARATION_LOCK = 0x62656e63;

/**
 * One bench at a time prepares the data set: a second one started meanwhile waits, then finds it built. Without
 * this, a bench started during another's build saw no finished data set and dropped the database under it.
 */
async function whileNoOtherBenchPrepares<T>(serverUrl: string, log: Log, work: () => Promise<T>): Promise<T> {
  return withClient(serverUrl, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [PREPARATION_LOCK]);
    if (!rows[0]?.locked) {
      log('another bench is preparing the data set; waiting for it');
      await client.query('select pg_advisory_lock($1)', [PREPARATION_LOCK]);
    }
    // Ending the session (withClient) releases the lock.
    return work();
  });
}

/** The advisory lock a whole bench run holds, on the server's maintenance database. */
const RUN_LOCK = 0x62656e64;

/**
 * Takes the lock of a whole run, waiting while another bench holds it: two benches on one data set disturb each other's
 * figures, wipe each other's bookings (resetBooker) and take each other's queued messages. Also warns of other sessions
 * on the data set (a bench without this lock, a test pointed at it). Ending the returned session releases it.
 */
export async function holdRunLock(serverUrl: string, log: Log): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [RUN_LOCK]);
  if (!rows[0]?.locked) {
    log('another bench is running on this server; waiting for it to finish');
    await client.query('select pg_advisory_lock($1)', [RUN_LOCK]);
  }
  const others = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [BENCH_DATABASE]);
  if (others.rows[0]!.n > 0) {
    log(`warning: ${others.rows[0]!.n} other sessions are connected to ${BENCH_DATABASE} (another bench?): the figures may be disturbed`);
  }
  return { release: () => client.end() };
}

async function ensureCoreDataset(serverUrl: string, log: Log, options: { rebuild?: boolean }): Promise<BenchFixture> {
  const url = databaseUrl(serverUrl, BENCH_DATABASE);
  const existing = options.rebuild ? null : await readFixture(serverUrl);
  if (existing && existing.version === DATASET_VERSION) {
    log(`dataset ${DATASET_VERSION} found (built ${existing.builtAt} in ${existing.buildSeconds}s); reusing it`);
    await migrateDatabase(url);
    await withClient(url, async (client) => {
      await refreshAvailabilityWindow(client, url, existing, log);
      await resetBooker(client);
    });
    await writeFixture(url, existing);
    return existing;
  }
  if (existing) log(`dataset version ${existing.version} is outdated (want ${DATASET_VERSION}); rebuilding`);
  return buildDataset(serverUrl, log);
}

async function readFixture(serverUrl: string): Promise<BenchFixture | null> {
  const exists = await withClient(serverUrl, async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [BENCH_DATABASE]);
    return rowCount === 1;
  });
  if (!exists) return null;
  return withClient(databaseUrl(serverUrl, BENCH_DATABASE), async (client) => {
    const { rows } = await client.query<{ value: BenchFixture }>(
      `select value from bench_meta where key = 'fixture'`,
    ).catch(() => ({ rows: [] as { value: BenchFixture }[] }));
    return rows[0]?.value ?? null;
  });
}

async function writeFixture(url: string, fixture: BenchFixture): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      `insert into bench_meta (key, value) values ('fixture', $1)
         on conflict (key) do update set value = excluded.value`,
      [JSON.stringify(fixture)],
    ),
  );
}

async function migrateDatabase(url: string): Promise<void> {
  const orm = await initOrm(url, { poolMax: 2 });
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}

async function buildDataset(serverUrl: string, log: Log): Promise<BenchFixture> {
  const started = Date.now();
  const step = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const result = await work();
    log(`  ${label}: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    return result;
  };
  log(`building dataset ${DATASET_VERSION} in database ${BENCH_DATABASE} (a few minutes)…`);
  await withClient(serverUrl, async (client) => {
    await client.query(`drop database if exists ${BENCH_DATABASE} with (force)`);
    await client.query(`create database ${BENCH_DATABASE}`);
  });
  const url = databaseUrl(serverUrl, BENCH_DATABASE);
  await step('migrate', () => migrateDatabase(url));

  const now = new Date();
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  await withClient(url, async (client) => {
    await client.query(`set synchronous_commit = off; set work_mem = '256MB'; set maintenance_work_mem = '1GB'`);
    await client.query('create table bench_meta (key text primary key, value jsonb not null)');
    await client.query(PERSON_FUNCTIONS);
    await client.query('select setseed(0.42)');
    // Every reference is built from the rows generated here, so foreign keys are not re-checked row by row
    // while loading (session only); checkReferences verifies them all at once afterwards.
    await client.query('set session_replication_role = replica');

    await step('users, schedules, event types', () => insertUsers(client, now));
    await step(`bookings of the heavy user (${SIZES.heavyBookings})`, () =>
      insertBookings(client, {
        count: SIZES.heavyBookings,
        ownerSql: String(HEAVY),
        eventTypes: SIZES.heavyEventTypes,
        spanDays: 1095,
        slotsPerDay: 48,
        firstHour: 0,
        today,
        now,
      }),
    );
    const normalBookings = SIZES.bookings - SIZES.heavyBookings - SIZES.availabilityBookings;
    await step(`bookings of the other users (${normalBookings})`, () =>
      insertBookings(client, {
        count: normalBookings,
        // Skewed: a few users hold thousands of bookings, most hold a few dozen.
        ownerSql: `${FIRST_NORMAL} + floor(${NORMAL_USERS} * power(random(), 1.5))::int`,
        eventTypes: NORMAL_EVENT_TYPES,
        spanDays: 730,
        slotsPerDay: 16,
        firstHour: 9,
        today,
        now,
      }),
    );
    await step('leads', () => insertLeads(client, now));
    await step('booked leads', () =>
      client.query(`
        update lead l set booking_id = b.id, completed_at = greatest(l.created_at, b.created_at),
                          updated_at = greatest(l.created_at, b.created_at)
          from (select distinct on (owner_id, lower(invitee_email)) id, owner_id, lower(invitee_email) as email_key, created_at
                  from booking order by owner_id, lower(invitee_email), created_at) b
         where l.owner_id = b.owner_id and lower(l.email) = b.email_key
           and get_byte(decode(md5(l.id), 'hex'), 0) < 128`),
    );
    await step('busy blocks', () => insertBusyBlocksInBulk(client));
    await client.query('set session_replication_role = origin');
    await step('reference check', () => checkReferences(client));
  });

  const windowFrom = new Date(today.getTime() + 14 * DAY_MS);
  const fixture: BenchFixture = {
    version: DATASET_VERSION,
    builtAt: now.toISOString(),
    buildSeconds: 0,
    heavy: { id: userIdOf(HEAVY), token: '', eventTypeIds: range(SIZES.heavyEventTypes).map((n) => eventTypeIdOf(HEAVY, n)) },
    availability: {
      id: userIdOf(AVAILABILITY),
      token: '',
      eventTypeIds: [eventTypeIdOf(AVAILABILITY, 1)],
      timezone: 'America/New_York',
      windowFrom: windowFrom.toISOString(),
      windowTo: new Date(windowFrom.getTime() + 31 * DAY_MS).toISOString(),
    },
    booker: {
      id: userIdOf(BOOKER),
      token: '',
      eventTypeIds: [eventTypeIdOf(BOOKER, 1)],
      timezone: 'UTC',
      durationMin: 15,
      firstStart: new Date(today.getTime() + 2 * DAY_MS).toISOString(),
    },
    counts: {},
  };
  await withClient(url, async (client) => {
    await step(`availability window (${SIZES.availabilityBookings} bookings)`, () =>
      insertAvailabilityBookings(client, fixture),
    );
  });

  // A batch connection, as `npm run contacts:rebuild` uses: the whole projection is one long statement, which the
  // request-sized statement timeout would cancel.
  const orm = await initOrm(url, { poolMax: 2, batch: true });
  try {
    const contacts = await step('contacts projection', () => rebuildAllContacts(orm.em.fork()));
    log(`  ${contacts} contacts`);
    for (const user of [fixture.heavy, fixture.availability, fixture.booker]) {
      const created = await createPersonalAccessToken(orm.em.fork(), { userId: user.id, name: 'bench', scopes: ALL_SCOPES });
      user.token = created.token;
    }
  } finally {
    await orm.close();
  }
  await withClient(url, async (client) => {
    await step('vacuum analyze', () => client.query('vacuum analyze'));
    fixture.counts = await countRows(client);
  });
  fixture.buildSeconds = Math.round((Date.now() - started) / 1000);
  await writeFixture(url, fixture);
  log(`dataset built in ${fixture.buildSeconds}s: ${JSON.stringify(fixture.counts)}`);
  return fixture;
}

const DAY_MS = 86_400_000;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
function weekly(hours: { start: string; end: string } | null, days = WEEKDAYS.slice(0, 5)): string {
  return JSON.stringify(Object.fromEntries(WEEKDAYS.map((day) => [day, hours && days.includes(day) ? [hours] : []])));
}

async function insertUsers(client: pg.Client, now: Date): Promise<void> {
  const zones = sqlArray(['America/New_York', 'Europe/Berlin', 'Europe/London', 'America/Chicago', 'Asia/Singapore']);
  await client.query(
    `insert into app_user (id, email, name, slug, timezone, plan, created_at, updated_at)
     select ${userIdSql('s')}, 'user' || s || '@bench.example', bench_first(s, 0) || ' ' || bench_last(s, 0),
            'bench-user-' || s,
            case s when ${AVAILABILITY} then 'America/New_York' when ${BOOKER} then 'UTC' else (${zones})[1 + s % 5] end,
            'team', $1::timestamptz - interval '1100 days', $1::timestamptz - interval '1100 days'
       from generate_series(1, ${SIZES.users}) s`,
    [now],
  );
  await client.query(
    `insert into availability_schedule (user_id, weekly, overrides, updated_at)
     select ${userIdSql('s')},
            case s when ${AVAILABILITY} then $2::jsonb when ${BOOKER} then $3::jsonb else $1::jsonb end, '[]', now()
       from generate_series(1, ${SIZES.users}) s`,
    [
      weekly({ start: '09:00', end: '17:00' }),
      weekly({ start: '08:00', end: '20:00' }, WEEKDAYS),
      weekly({ start: '00:00', end: '24:00' }, WEEKDAYS),
    ],
  );
  const eventTypeRows = (seqSql: string, count: number) => `
    select ${seqSql} as s, n from generate_series(1, ${count}) n`;
  await client.query(
    `insert into event_type (id, owner_id, name, slug, kind, durations_min, buffer_before_min, buffer_after_min,
                             color, active, created_at, updated_at)
     select ${eventTypeIdSql('s', 'n')}, ${userIdSql('s')},
            case when s = ${AVAILABILITY} then 'Availability bench' when s = ${BOOKER} then 'Quick call'
                 when n = 1 then 'Intro call' else 'Consultation ' || n end,
            case when n = 1 then 'intro' else 'consultation-' || n end,
            'one_on_one',
            case when s = ${BOOKER} then '{15}'::int[] when n = 1 then '{30}'::int[] else '{30,15}'::int[] end,
            0, 0, '#2563eb', true, $1::timestamptz - interval '1100 days' + n * interval '1 day',
            $1::timestamptz - interval '1100 days' + n * interval '1 day'
       from (${eventTypeRows(String(HEAVY), SIZES.heavyEventTypes)}
             union all ${eventTypeRows(String(AVAILABILITY), 1)}
             union all ${eventTypeRows(String(BOOKER), 1)}
             union all select s, n from generate_series(${FIRST_NORMAL}, ${SIZES.users}) s,
                                        generate_series(1, ${NORMAL_EVENT_TYPES}) n) et`,
    [now],
  );
}

interface BookingBatch {
  count: number;
  ownerSql: string;
  eventTypes: number;
  /** Days the owner's bookings spread over; the last 30 of them lie in the future. */
  spanDays: number;
  /** 30-minute slots per day, from firstHour (UTC). */
  slotsPerDay: number;
  firstHour: number;
  today: Date;
  now: Date;
}

/**
 * One INSERT … SELECT. The k-th of an owner's n bookings takes slot floor(k·S/n) of the S slots in its span:
 * distinct slots, so no two bookings of a host overlap. Invitee j is drawn from a pool of 0.6·n people with
 * a skew towards low j: regulars book again and again.
 */
async function insertBookings(client: pg.Client, batch: BookingBatch): Promise<void> {
  const spanStart = new Date(batch.today.getTime() - (batch.spanDays - 30) * DAY_MS);
  const slots = batch.spanDays * batch.slotsPerDay;
  await client.query(
    `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                          invitee_name, invitee_email, invitee_timezone, location_kind, location_value, no_show,
                          canceled_at, cancel_reason, canceled_by, created_at, updated_at)
     with raw as (
       select ${batch.ownerSql} as s, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5
         from generate_series(1, ${batch.count})
     ), numbered as (
       select raw.*, row_number() over (partition by s order by r1) - 1 as k, count(*) over (partition by s) as cnt
         from raw
     ), placed as (
       select numbered.*,
              floor(k * ${slots}::numeric / cnt)::int as slot,
              floor(greatest(1, floor(cnt * 0.6)) * r2 * r2)::int as j,
              1 + (k % ${batch.eventTypes})::int as n
         from numbered
     ), timed as (
       select placed.*,
              case when n = 1 or r3 < 0.5 then 30 else 15 end as dur,
              $1::timestamptz + (slot / ${batch.slotsPerDay}) * interval '1 day' + interval '${batch.firstHour} hours'
                + (slot % ${batch.slotsPerDay}) * interval '30 minutes' as start_at
         from placed
     ), stamped as (
       select timed.*, r4 < 0.12 as canceled,
              least(start_at - (1 + floor(r3 * 20)) * interval '1 day', $2::timestamptz) as created_at
         from timed
     ), final as (
       select stamped.*,
              case when canceled then least(created_at + (start_at - created_at) / 2, $2::timestamptz) end as canceled_at
         from stamped
     )
     select gen_random_uuid()::text, ${userIdSql('s')}, ${userIdSql('s')}, ${eventTypeIdSql('s', 'n')},
            start_at, start_at + dur * interval '1 minute', dur,
            case when canceled then 'canceled' else 'active' end,
            bench_first(s, j) || ' ' || bench_last(s, j), bench_email(s, j), bench_zone(j),
            case when r1 < 0.5 then 'video' when r1 < 0.8 then 'phone' end,
            case when r1 < 0.5 then 'https://meet.example/' || substr(md5(r2::text), 1, 10)
                 when r1 < 0.8 then '+1415555' || lpad((j % 10000)::text, 4, '0') end,
            not canceled and start_at < $2::timestamptz and r5 < 0.03,
            canceled_at,
            case when canceled and r5 < 0.5 then 'Schedule conflict' end,
            case when canceled then (case when r5 < 0.7 then 'invitee' else 'host' end) end,
            created_at, coalesce(canceled_at, created_at)
       from final`,
    [spanStart, batch.now],
  );
}

async function insertLeads(client: pg.Client, now: Date): Promise<void> {
  const normalLeads = SIZES.leads - SIZES.heavyLeads;
  // owner, count, share reusing an invitee's e-mail, invitee pool drawn from, lead-only pool size, span in days
  const batches: [string, number, number, number, number, number][] = [
    [String(HEAVY), SIZES.heavyLeads, SIZES.heavyLeadOverlap, Math.floor(SIZES.heavyBookings * 0.6), 25_000, 1095],
    [`${FIRST_NORMAL} + floor(${NORMAL_USERS} * random())::int`, normalLeads, 0.2, 20, 30, 730],
  ];
  for (const [ownerSql, count, overlap, invitees, leadOnly, spanDays] of batches) {
    await client.query(
      `insert into lead (id, owner_id, event_type_id, name, email, timezone, status, created_at, updated_at)
       with raw as (
         select g, ${ownerSql} as s, random() as r1, random() as r2, random() as r3, random() as r4, random() as r5
           from generate_series(1, ${count}) g
       ), picked as (
         select raw.*, r1 < ${overlap} as reused,
                case when r1 < ${overlap} then floor(${invitees} * r2 * r2)::int
                     else ${invitees} + floor(${leadOnly} * r2)::int end as j,
                $1::timestamptz - r4 * ${spanDays - 30} * interval '1 day' as created_at
           from raw
       )
       select gen_random_uuid()::text, ${userIdSql('s')},
              ${eventTypeIdSql('s', `1 + g % ${ownerSql === String(HEAVY) ? SIZES.heavyEventTypes : NORMAL_EVENT_TYPES}`)},
              case when r5 < 0.1 then null else bench_first(s, j) || ' ' || bench_last(s, j) end,
              -- A reused e-mail comes back in another letter case: Anna.Smith12@Example.Com.
              case when reused then initcap(bench_email(s, j)) else bench_email(s, j) end,
              bench_zone(j),
              case when r3 < 0.4 then 'new' when r3 < 0.65 then 'contacted' when r3 < 0.85 then 'qualified' else 'lost' end,
              created_at, created_at
         from picked`,
      [now],
    );
  }
}

/** One busy block per booking (active ones block time; canceled ones are kept inactive), and the links. */
async function insertBusyBlocks(client: pg.Client, bookingFilter: string): Promise<void> {
  await client.query(`
    insert into busy_block (id, host_id, event_type_id, start_at, end_at, busy, seats_taken, active, created_at)
    select md5('bench-bb-' || id)::uuid::text, host_id, event_type_id, start_at, end_at, tstzrange(start_at, end_at, '[)'),
           case when status = 'active' then 1 else 0 end, status = 'active', created_at
      from booking where ${bookingFilter}`);
  await client.query(`
    insert into booking_busy_block (booking_id, busy_block_id)
    select id, md5('bench-bb-' || id)::uuid::text from booking where ${bookingFilter}`);
}

/**
 * The million busy blocks, faster: the exclusion constraint (its GiST index) is built once over the loaded rows
 * instead of row by row. It is re-created from its own definition, so the app sees the schema its migrations
 * made; a generated overlap would make the build fail here.
 */
async function insertBusyBlocksInBulk(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `select conname as name, pg_get_constraintdef(oid) as definition
       from pg_constraint where conrelid = 'busy_block'::regclass and contype = 'x'`,
  );
  for (const constraint of rows) await client.query(`alter table busy_block drop constraint ${constraint.name}`);
  await insertBusyBlocks(client, 'true');
  for (const constraint of rows) {
    await client.query(`alter table busy_block add constraint ${constraint.name} ${constraint.definition}`);
  }
}

/** The foreign keys the bulk load did not check row by row, checked set-wise; throws on a dangling reference. */
async function checkReferences(client: pg.Client): Promise<void> {
  const checks: [string, string][] = [
    ['booking.owner_id', 'select count(*) from booking b where not exists (select 1 from app_user u where u.id = b.owner_id)'],
    [
      'booking.event_type_id',
      'select count(*) from booking b where not exists (select 1 from event_type e where e.id = b.event_type_id and e.owner_id = b.owner_id)',
    ],
    [
      'lead.event_type_id',
      'select count(*) from lead l where not exists (select 1 from event_type e where e.id = l.event_type_id and e.owner_id = l.owner_id)',
    ],
    ['lead.booking_id', 'select count(*) from lead l where l.booking_id is not null and not exists (select 1 from booking b where b.id = l.booking_id)'],
    ['event_type.owner_id', 'select count(*) from event_type e where not exists (select 1 from app_user u where u.id = e.owner_id)'],
    ['availability_schedule.user_id', 'select count(*) from availability_schedule s where not exists (select 1 from app_user u where u.id = s.user_id)'],
    [
      'booking_busy_block',
      `select count(*) from booking_busy_block l
        where not exists (select 1 from booking b where b.id = l.booking_id)
           or not exists (select 1 from busy_block bb where bb.id = l.busy_block_id)`,
    ],
  ];
  for (const [name, sql] of checks) {
    const { rows } = await client.query<{ count: string }>(sql);
    if (Number(rows[0]!.count) !== 0) throw new Error(`bench data set: ${rows[0]!.count} dangling ${name} reference(s)`);
  }
}

/**
 * 500 active bookings of the availability user, on distinct 30-minute slots of its 08:00–20:00 (New York)
 * schedule inside [windowFrom, windowTo).
 */
async function insertAvailabilityBookings(client: pg.Client, fixture: BenchFixture): Promise<void> {
  const { availability } = fixture;
  await client.query(
    `insert into booking (id, owner_id, host_id, event_type_id, start_at, end_at, duration_min, status,
                          invitee_name, invitee_email, invitee_timezone, location_kind, location_value,
                          created_at, updated_at)
     with candidates as (
       select (d + interval '8 hours' + i * interval '30 minutes') at time zone $4 as start_at
         from generate_series((($1::timestamptz at time zone $4)::date - 1)::timestamp,
                              (($2::timestamptz at time zone $4)::date + 1)::timestamp, interval '1 day') d,
              generate_series(0, 23) i
     ), chosen as (
       select start_at, floor(300 * random() * random())::int as j
         from candidates where start_at >= $1::timestamptz and start_at + interval '30 minutes' <= $2::timestamptz
        order by random() limit ${SIZES.availabilityBookings}
     )
     select gen_random_uuid()::text, $3, $3, $5, start_at, start_at + interval '30 minutes', 30, 'active',
            bench_first(${AVAILABILITY}, j) || ' ' || bench_last(${AVAILABILITY}, j), bench_email(${AVAILABILITY}, j),
            bench_zone(j), 'video', 'https://meet.example/avail', now() - interval '1 day', now() - interval '1 day'
       from chosen`,
    [availability.windowFrom, availability.windowTo, availability.id, availability.timezone, availability.eventTypeIds[0]],
  );
  await insertBusyBlocks(client, `owner_id = '${availability.id}'`);
}

/** Moves the availability window forward when it has come too close to now, keeping its 500 bookings. */
async function refreshAvailabilityWindow(client: pg.Client, url: string, fixture: BenchFixture, log: Log): Promise<void> {
  if (new Date(fixture.availability.windowFrom).getTime() > Date.now() + 2 * DAY_MS) return;
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today + 14 * DAY_MS);
  fixture.availability.windowFrom = from.toISOString();
  fixture.availability.windowTo = new Date(from.getTime() + 31 * DAY_MS).toISOString();
  fixture.booker.firstStart = new Date(today + 2 * DAY_MS).toISOString();
  log(`availability window moved to ${fixture.availability.windowFrom}`);
  await client.query('begin');
  await client.query('delete from busy_block where host_id = $1', [fixture.availability.id]);
  await client.query('delete from booking where owner_id = $1', [fixture.availability.id]);
  await insertAvailabilityBookings(client, fixture);
  await client.query('delete from contact where owner_id = $1', [fixture.availability.id]);
  await client.query('commit');
  // The projection rows of this one user, recomputed the way rebuildAllContacts does it for everyone.
  const orm = await initOrm(url, { poolMax: 1 });
  try {
    const { rows } = await client.query<{ email: string }>(
      'select distinct invitee_email as email from booking where owner_id = $1',
      [fixture.availability.id],
    );
    await orm.em.fork().transactional((em) => refreshContacts(em, fixture.availability.id, rows.map((r) => r.email)));
  } finally {
    await orm.close();
  }
  await client.query('analyze booking; analyze busy_block; analyze contact');
}

/** Wipes what earlier runs booked for the booker, so that this run's POSTs find the same free slots. */
export async function resetBooker(client: pg.Client, fixture?: BenchFixture): Promise<void> {
  const id = fixture?.booker.id ?? userIdOf(BOOKER);
  await client.query('begin');
  await client.query('delete from busy_block where host_id = $1', [id]);
  await client.query('delete from lead where owner_id = $1', [id]);
  await client.query('delete from booking where owner_id = $1', [id]);
  await client.query('delete from contact where owner_id = $1', [id]);
  await client.query('commit');
}

async function countRows(client: pg.Client): Promise<Record<string, number>> {
  const tables = ['app_user', 'event_type', 'booking', 'busy_block', 'lead', 'contact'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${table}`);
    counts[table] = Number(rows[0]!.n);
  }
  const { rows } = await client.query<{ bookings: string; leads: string; contacts: string }>(
    `select (select count(*) from booking where owner_id = $1) as bookings,
            (select count(*) from lead where owner_id = $1) as leads,
            (select count(*) from contact where owner_id = $1) as contacts`,
    [userIdOf(HEAVY)],
  );
  counts.heavy_bookings = Number(rows[0]!.bookings);
  counts.heavy_leads = Number(rows[0]!.leads);
  counts.heavy_contacts = Number(rows[0]!.contacts);
  return counts;
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
