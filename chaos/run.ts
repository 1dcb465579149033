/**
 * `npm run chaos`: what production does to the service (a booking storm, database outages, a frozen Redis,
 * SIGTERM), run against two real instances on servers of the script's own, so it can stop, kill and freeze
 * them without touching anyone else's. The scenarios and how to read the table: chaos/README.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type EmbeddedDatabase, findFreePort, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { initOrm, migrate, type Orm } from '../src/db/orm.ts';
import { invitee, setSchedule } from '../test/bookings/fixtures.ts';
import { createEventType } from '../test/helpers/booking-factories.ts';
import { databaseUrl } from '../test/helpers/database-url.ts';
import { bearer, createUserWithToken, type TestUser } from '../test/helpers/factories.ts';
import { type HttpOutcome, httpRequest, type ServiceProcess, startService } from '../test/helpers/service-process.ts';

const DATABASE = 'chaos';
const CLIENT_TIMEOUT_MS = 15_000;
/** Concurrent bookings during the faults: enough transactions in flight that a connection leak would drain a pool. */
const STEADY_WORKERS = 40;
/** The storm: this many hosts, each with this many concurrent requests spread over this many back-to-back slots. */
const STORM_HOSTS = 4;
const STORM_REQUESTS_PER_HOST = 250;
const STORM_SLOTS_PER_HOST = 5;
/** A client that got a 503 or lost its connection waits this long before its next request (not the whole Retry-After). */
const BACKOFF_MS = 100;
/** How often the load balancer asks a stopping instance's /readyz (well within its 2 s lame-duck period). */
const READINESS_PERIOD_MS = 250;
const WHOLE_RUN_LIMIT_MS = 6 * 60_000;
const SLOT_MS = 30 * 60_000;
const EVERY_DAY = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [
    day,
    [{ start: '00:00', end: '24:00' }],
  ]),
);

type Outcome = number | 'reset' | 'refused' | 'no answer';

interface Sample {
  instance: string;
  sentAt: number;
  doneAt: number;
  outcome: Outcome;
  bookingId?: string;
}

interface Host {
  user: TestUser;
  eventTypeId: string;
}

interface Instance {
  name: string;
  service: ServiceProcess;
  agent: http.Agent;
  /** Whether the load balancer still sends it traffic (it stops after a refused connection). */
  inRotation: boolean;
}

interface Row {
  scenario: string;
  samples: Sample[];
  recoveryS?: number | 'never';
  lost: number;
  phantom: number;
  after: string;
  notes: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Chaos {
  private readonly root = mkdtempSync(path.join(os.tmpdir(), 'chaos-'));
  private readonly pgDir = path.join(this.root, 'pg');
  private embedded: EmbeddedDatabase | undefined;
  private serverUrl = '';
  private redis: ChildProcess | undefined;
  private redisUrl = '';
  private orm: Orm | undefined;
  readonly instances: Instance[] = [];

  async setUp(): Promise<void> {
    chmodSync(this.root, 0o755);
    this.embedded = await startEmbeddedPostgres(this.pgDir, (line) => console.error(line));
    this.serverUrl = this.embedded.url;
    await this.admin(`create database ${DATABASE}`);
    this.orm = await initOrm(this.url, { poolMax: 4 });
    await migrate(this.orm);
    await this.startRedis();
    for (const name of ['A', 'B']) await this.startInstance(name);
  }

  get url(): string {
    return databaseUrl(this.serverUrl, DATABASE);
  }

  async tearDown(): Promise<void> {
    if (this.redis?.pid) {
      this.redis.kill('SIGCONT');
      this.redis.kill('SIGTERM');
    }
    for (const instance of this.instances) {
      instance.service.signal('SIGTERM');
      await Promise.race([instance.service.exited, sleep(15_000)]);
      instance.service.kill();
      instance.agent.destroy();
    }
    await this.orm?.close().catch(() => {});
    await this.stopDatabase('fast').catch(() => {});
    rmSync(this.root, { recursive: true, force: true });
  }

  private async startInstance(name: string): Promise<Instance> {
    const service = await startService({
      DATABASE_URL: this.url,
      REDIS_URL: this.redisUrl,
      LOG_LEVEL: 'warn',
      PGAPPNAME: `chaos-${name}`,
    });
    const instance = { name, service, agent: new http.Agent({ keepAlive: true, maxSockets: 256 }), inRotation: true };
    this.instances.push(instance);
    return instance;
  }

  /** What an orchestrator does to an instance that fails its probes: replace it, so the next scenario starts whole. */
  async replace(instance: Instance): Promise<void> {
    instance.service.kill();
    instance.agent.destroy();
    this.instances.splice(this.instances.indexOf(instance), 1);
    await this.startInstance(instance.name);
    this.instances.sort((x, y) => x.name.localeCompare(y.name));
  }

  private async startRedis(): Promise<void> {
    const port = await findFreePort();
    this.redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.redisUrl = `redis://127.0.0.1:${port}`;
    await until(async () => {
      const probe = new Redis(this.redisUrl, { lazyConnect: true, retryStrategy: () => null });
      probe.on('error', () => {});
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    }, 'the private Redis to answer');
  }

  async admin<T extends pg.QueryResultRow>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new pg.Client({ connectionString: databaseUrl(this.serverUrl, database) });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Fresh hosts, bookable around the clock, each with its own token (the rate limit is per token). */
  async createHosts(count: number): Promise<Host[]> {
    const hosts: Host[] = [];
    for (let i = 0; i < count; i++) {
      const em = this.orm!.em.fork();
      const user = await createUserWithToken(em, { timezone: 'UTC' });
      await setSchedule(em, user.id, EVERY_DAY);
      hosts.push({ user, eventTypeId: (await createEventType(em, user.id)).id });
    }
    return hosts;
  }

  async createCollective(hosts: Host[]): Promise<string> {
    const ids = hosts.map((host) => host.user.id);
    return (await createEventType(this.orm!.em.fork(), ids[0]!, { kind: 'collective', hosts: ids })).id;
  }

  async book(instance: Instance, host: Host, startMs: number): Promise<Sample> {
    const sentAt = performance.now();
    const outcome = await httpRequest(instance.service.port, {
      method: 'POST',
      path: '/api/v2/bookings',
      headers: Object.fromEntries([bearer(host.user.token)]),
      body: { eventTypeId: host.eventTypeId, start: new Date(startMs).toISOString(), durationMin: 30, invitee: invitee() },
      agent: instance.agent,
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
    const sample: Sample = { instance: instance.name, sentAt, doneAt: performance.now(), outcome: classify(outcome) };
    if (outcome.status === 201) sample.bookingId = (outcome.body as { id: string }).id;
    if (sample.outcome === 'refused') instance.inRotation = false;
    return sample;
  }

  /** Each worker books the next free slot of its own host, through the instances in turn, until `stop()`. */
  steadyLoad(hosts: Host[], stop: () => boolean): Promise<Sample[]> {
    const first = firstSlot();
    const samples: Sample[] = [];
    return Promise.all(
      hosts.map(async (host, worker) => {
        for (let k = 0; !stop(); k++) {
          const live = this.instances.filter((instance) => instance.inRotation);
          if (live.length === 0) return;
          const sample = await this.book(live[(worker + k) % live.length]!, host, first + k * SLOT_MS);
          samples.push(sample);
          if (typeof sample.outcome !== 'number' || sample.outcome >= 500) await sleep(BACKOFF_MS);
        }
      }),
    ).then(() => samples);
  }

  /**
   * Waits until no connection of the instances is busy, so that requests whose clients gave up have committed or
   * rolled back before the bookings are counted (and before the next scenario starts); says so when they have not.
   */
  async quiesce(): Promise<string[]> {
    const busy = async () =>
      (
        await this.admin<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = $1 and application_name like 'chaos-%' and state <> 'idle'`,
          [DATABASE],
        ).catch(() => [{ n: 0 }])
      )[0]!.n;
    const quiet = await until(async () => (await busy()) === 0, 'the instances to finish', 30_000).then(
      () => true,
      () => false,
    );
    return quiet ? [] : [`${await busy()} connections still busy 30 s after the load`];
  }

  /** The bookings of these hosts in the database, against the 201s their clients got. */
  async reconcile(eventTypeIds: string[], samples: Sample[]): Promise<{ lost: number; phantom: number; overlaps: number; notes: string[] }> {
    const notes = await this.quiesce();
    const stored = await this.admin<{ id: string }>('select id from booking where event_type_id = any($1)', [eventTypeIds], DATABASE);
    const storedIds = new Set(stored.map((row) => row.id));
    const acknowledged = new Set(samples.flatMap((sample) => (sample.bookingId ? [sample.bookingId] : [])));
    // Two active bookings that occupy one host at overlapping times, through the busy blocks they hold.
    const [overlaps] = await this.admin<{ n: number }>(
      `with held as (
         select bk.id, bb.host_id, tstzrange(bk.start_at, bk.end_at) as span
           from booking bk join booking_busy_block link on link.booking_id = bk.id join busy_block bb on bb.id = link.busy_block_id
          where bk.status = 'active' and bk.event_type_id = any($1))
       select count(*)::int as n from held a join held b on a.host_id = b.host_id and a.id < b.id and a.span && b.span`,
      [eventTypeIds],
      DATABASE,
    );
    return {
      lost: [...acknowledged].filter((id) => !storedIds.has(id)).length,
      phantom: [...storedIds].filter((id) => !acknowledged.has(id)).length,
      overlaps: overlaps!.n,
      notes,
    };
  }

  /**
   * Each live instance 1 s after the load: 20 concurrent requests that need a pooled connection, and its
   * connections as PostgreSQL sees them. An instance that does not answer them all is hung: it is replaced.
   */
  async poolState(): Promise<string> {
    await sleep(1000);
    const probes = new Map<Instance, { ok: number; ms: number }>();
    for (const instance of this.instances) {
      if (instance.inRotation && !(await hasExited(instance.service))) probes.set(instance, await this.probe(instance));
    }
    const connections = await this.admin<{ app: string; state: string; n: number }>(
      `select application_name as app, coalesce(state, '?') as state, count(*)::int as n from pg_stat_activity
        where datname = $1 and application_name like 'chaos-%' group by 1, 2`,
      [DATABASE],
    );
    const parts = [];
    for (const instance of [...this.instances]) {
      const probe = probes.get(instance);
      if (!probe) {
        // Out of rotation: it refused a connection because it is stopping.
        const exit = await Promise.race([instance.service.exited, sleep(20_000).then(() => undefined)]);
        parts.push(`${instance.name} ${exit ? `exited ${exit.code ?? exit.signal}` : 'still running 20 s after leaving rotation'}`);
        continue;
      }
      const mine = connections.filter((row) => row.app === `chaos-${instance.name}`);
      const summary = mine.map((row) => `${row.n} ${row.state}`).join(', ') || 'no connections';
      const hung = probe.ok < 20;
      parts.push(`${instance.name}${hung ? ' **hung**' : ''} ${probe.ok}/20 in ${probe.ms} ms (${summary})`);
      if (hung) await this.replace(instance);
    }
    return parts.join(' · ');
  }

  private async probe(instance: Instance): Promise<{ ok: number; ms: number }> {
    const started = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => httpRequest(instance.service.port, { path: '/healthz', timeoutMs: 5000 })),
    );
    return {
      ok: outcomes.filter((outcome) => outcome.status === 200).length,
      ms: Math.round(performance.now() - started),
    };
  }

  async readiness(instance: Instance): Promise<string> {
    const outcome = await httpRequest(instance.service.port, { path: '/readyz', timeoutMs: 5000 });
    return outcome.status === 'error' ? outcome.error : ((outcome.body as { status?: string }).status ?? String(outcome.status));
  }

  async terminateConnections(): Promise<void> {
    await this.admin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [DATABASE]);
  }

  async stopDatabase(how: 'fast' | 'crash'): Promise<void> {
    if (how === 'fast') {
      await this.embedded?.stop();
    } else {
      const pid = Number(readFileSync(path.join(this.pgDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      await until(() => !isAlive(pid), 'the killed postmaster to be gone');
    }
    this.embedded = undefined;
  }

  /** Starts the stopped server again; after a crash the old backends may hold its shared memory for a moment. */
  async startDatabase(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        this.embedded = await startEmbeddedPostgres(this.pgDir, () => {});
        return;
      } catch (error) {
        if (attempt >= 20) throw error;
        await sleep(250);
      }
    }
  }

  /** Ends every process this script started, without waiting (the whole run took too long). */
  killEverything(): void {
    for (const instance of this.instances) instance.service.kill();
    this.redis?.kill('SIGKILL');
    const pidFile = path.join(this.pgDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (isAlive(pid)) process.kill(pid, 'SIGINT');
    }
  }

  freezeRedis(frozen: boolean): void {
    this.redis?.kill(frozen ? 'SIGSTOP' : 'SIGCONT');
  }

  /**
   * What the instances logged behind their 5xx answers, in a word each: errors (500s) and the causes of their
   * 503s (a backing service unavailable), so a 503 from overload is told apart from one from an outage.
   */
  serverErrors(since: number): string[] {
    const counts = new Map<string, number>();
    for (const instance of this.instances) {
      for (const line of instance.service.log) {
        if (typeof line.time !== 'number' || line.time < since || !line.err || (line.level as number) < 40) continue;
        const err = line.err as { type?: string; message?: string };
        const message = (err.message ?? String(line.msg)).split('\n')[0]!.replace(/\d+/g, 'N').slice(0, 80);
        const key = `${line.level === 40 ? '503 ' : '500 '}${err.type ? `${err.type}: ` : ''}${message}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    return [...counts].map(([key, n]) => `${n} × ${key}`);
  }
}

/** Midnight UTC the day after tomorrow: every slot from there on is bookable (hosts are fresh for each scenario). */
function firstSlot(): number {
  const start = new Date();
  start.setUTCDate(start.getUTCDate() + 2);
  start.setUTCHours(0, 0, 0, 0);
  return start.getTime();
}

function classify(outcome: HttpOutcome): Outcome {
  if (outcome.status !== 'error') return outcome.status;
  if (outcome.error === 'ECONNREFUSED') return 'refused';
  if (outcome.error === 'TIMEOUT') return 'no answer';
  return 'reset';
}

async function hasExited(service: ServiceProcess): Promise<boolean> {
  return (await Promise.race([service.exited.then(() => true), sleep(0).then(() => false)])) === true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const isSuccess = (sample: Sample) => sample.outcome === 201 || sample.outcome === 409;

/** From `since` (performance.now()) to the first success answered after it, on every instance that is still serving. */
function recovery(samples: Sample[], since: number, instances: string[]): number | 'never' {
  let worst = 0;
  for (const name of instances) {
    const first = samples.find((sample) => sample.instance === name && sample.doneAt >= since && isSuccess(sample));
    if (!first) return 'never';
    worst = Math.max(worst, first.doneAt - since);
  }
  return worst / 1000;
}

/** A steady load with a fault in its middle: `fault` runs after 3 s and returns when the dependency is back. */
async function faultUnderLoad(
  chaos: Chaos,
  scenario: string,
  fault: () => Promise<void>,
  options: { measureRecovery?: boolean } = {},
): Promise<Row> {
  const hosts = await chaos.createHosts(STEADY_WORKERS);
  const startedAt = Date.now();
  let stopAt = Infinity;
  const load = chaos.steadyLoad(hosts, () => performance.now() > stopAt);
  await sleep(3000);
  await fault();
  const backAt = performance.now();
  stopAt = backAt + 6000;
  const samples = await load;
  const { lost, phantom, overlaps, notes } = await chaos.reconcile(
    hosts.map((host) => host.eventTypeId),
    samples,
  );
  const serving = chaos.instances.filter((instance) => instance.inRotation).map((instance) => instance.name);
  return {
    scenario,
    samples,
    recoveryS: options.measureRecovery === false ? undefined : recovery(samples, backAt, serving),
    lost,
    phantom,
    after: await chaos.poolState(),
    notes: [...chaos.serverErrors(startedAt), ...notes, ...(overlaps ? [`${overlaps} overlapping bookings`] : [])],
  };
}

async function storm(chaos: Chaos): Promise<Row> {
  const hosts = await chaos.createHosts(STORM_HOSTS);
  const first = firstSlot();
  const startedAt = Date.now();
  // Each host's slots are back to back, so every booking of a host races the others on its busy time.
  const requests = hosts.flatMap((host) =>
    Array.from({ length: STORM_REQUESTS_PER_HOST }, (_, i) => ({ host, start: first + (i % STORM_SLOTS_PER_HOST) * SLOT_MS })),
  );
  const bookable = STORM_HOSTS * STORM_SLOTS_PER_HOST;
  const samples = await Promise.all(
    requests.map((request, i) => chaos.book(chaos.instances[i % chaos.instances.length]!, request.host, request.start)),
  );
  const { lost, phantom, overlaps, notes } = await chaos.reconcile(
    hosts.map((host) => host.eventTypeId),
    samples,
  );
  const created = samples.filter((sample) => sample.outcome === 201).length;
  return {
    scenario: `storm: ${requests.length} concurrent bookings, ${bookable} bookable`,
    samples,
    lost,
    phantom,
    after: await chaos.poolState(),
    notes: [
      ...(created !== bookable ? [`${created} bookings created where exactly ${bookable} fit`] : []),
      ...(overlaps ? [`${overlaps} overlapping bookings`] : []),
      ...chaos.serverErrors(startedAt),
      ...notes,
    ],
  };
}

/**
 * Multi-host contention: a collective event type of hosts X and Y races one-on-one bookings of X and of Y for the
 * same 5 slots, so transactions take the two hosts' busy time in different orders. Which side wins a slot is a
 * matter of timing; what must hold is 201 or 409 for every request and no host booked twice at once.
 */
async function collectiveStorm(chaos: Chaos): Promise<Row> {
  const [x, y] = await chaos.createHosts(2);
  const collective = await chaos.createCollective([x!, y!]);
  const first = firstSlot();
  const startedAt = Date.now();
  const requests = Array.from({ length: 450 }, (_, i) => {
    const start = first + (i % 5) * SLOT_MS;
    if (i % 3 === 0) return { host: { user: x!.user, eventTypeId: collective }, start };
    return { host: i % 3 === 1 ? x! : y!, start };
  });
  const samples = await Promise.all(
    requests.map((request, i) => chaos.book(chaos.instances[i % chaos.instances.length]!, request.host, request.start)),
  );
  const { lost, phantom, overlaps, notes } = await chaos.reconcile([collective, x!.eventTypeId, y!.eventTypeId], samples);
  return {
    scenario: 'storm: 450 concurrent, a collective of 2 hosts against their own bookings',
    samples,
    lost,
    phantom,
    after: await chaos.poolState(),
    notes: [...(overlaps ? [`${overlaps} overlapping bookings`] : []), ...chaos.serverErrors(startedAt), ...notes],
  };
}

async function frozenRedis(chaos: Chaos): Promise<Row> {
  const readiness = () => Promise.all(chaos.instances.map((instance) => chaos.readiness(instance)));
  let degradedSeen = 0;
  let readyAgainS: number | 'never' = 'never';
  const row = await faultUnderLoad(
    chaos,
    'frozen Redis: SIGSTOP for 5 s',
    async () => {
      chaos.freezeRedis(true);
      const frozenUntil = performance.now() + 5000;
      while (performance.now() < frozenUntil) {
        degradedSeen += (await readiness()).filter((state) => state === 'degraded').length;
        await sleep(250);
      }
      chaos.freezeRedis(false);
      const thawedAt = performance.now();
      const ready = await until(async () => (await readiness()).every((state) => state === 'ready'), 'both instances to be ready', 10_000).then(
        () => true,
        () => false,
      );
      readyAgainS = ready ? (performance.now() - thawedAt) / 1000 : 'never';
    },
    { measureRecovery: false },
  );
  row.recoveryS = readyAgainS;
  row.notes.unshift(`/readyz answered degraded ${degradedSeen} times while Redis was frozen`);
  return row;
}

async function sigterm(chaos: Chaos): Promise<Row> {
  const [a] = chaos.instances;
  let exitAfterS: Promise<number> | undefined;
  let outOfRotationAfterS: Promise<number> | undefined;
  let signalledEpoch = 0;
  const row = await faultUnderLoad(
    chaos,
    'SIGTERM to instance A under load',
    async () => {
      const signalledAt = performance.now();
      signalledEpoch = Date.now();
      exitAfterS = a!.service.exited.then(() => (performance.now() - signalledAt) / 1000);
      a!.service.signal('SIGTERM');
      outOfRotationAfterS = takeOutWhenNotReady(chaos, a!).then(() => (performance.now() - signalledAt) / 1000);
    },
    { measureRecovery: false },
  );
  const exit = await Promise.race([a!.service.exited, sleep(20_000).then(() => undefined)]);
  const warnings = a!.service.log
    .filter((line) => line.level === 40 && Number(line.time) >= signalledEpoch)
    .map((line) => String(line.msg));
  row.notes.unshift(
    `A left rotation ${(await outOfRotationAfterS!).toFixed(2)} s after the signal`,
    exit ? `A exited with code ${exit.code ?? exit.signal} ${(await exitAfterS!).toFixed(2)} s after the signal` : 'A had not exited 20 s after SIGTERM',
    ...new Set(warnings),
  );
  return row;
}

/** The load balancer's health check: the instance leaves rotation once its /readyz fails. */
async function takeOutWhenNotReady(chaos: Chaos, instance: Instance): Promise<void> {
  while (instance.inRotation) {
    const state = await chaos.readiness(instance);
    if (state !== 'ready' && state !== 'degraded') instance.inRotation = false;
    else await sleep(READINESS_PERIOD_MS);
  }
}

function tally(samples: Sample[]) {
  const count = (predicate: (outcome: Outcome) => boolean) => samples.filter((sample) => predicate(sample.outcome)).length;
  const others = new Map<Outcome, number>();
  for (const { outcome } of samples) {
    if (typeof outcome === 'number' && !(outcome >= 200 && outcome < 300) && outcome !== 409 && outcome !== 503) {
      others.set(outcome, (others.get(outcome) ?? 0) + 1);
    }
  }
  const latencies = samples
    .filter((sample) => typeof sample.outcome === 'number')
    .map((sample) => sample.doneAt - sample.sentAt)
    .sort((x, y) => x - y);
  return {
    requests: samples.length,
    ok: count((o) => typeof o === 'number' && o >= 200 && o < 300),
    conflict: count((o) => o === 409),
    unavailable: count((o) => o === 503),
    other: [...others].map(([status, n]) => `${n} × ${status}`).join(', ') || '0',
    resets: count((o) => o === 'reset'),
    refused: count((o) => o === 'refused'),
    noAnswer: count((o) => o === 'no answer'),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
    maxMs: Math.round(latencies.at(-1) ?? 0),
  };
}

function printTable(rows: Row[]): void {
  const header =
    '| scenario | requests | 2xx | 409 | 503 | other | resets | refused | no answer | p99 / max ms | recovery s | lost | phantom | after: probes answered (connections) |';
  const lines = [header, '|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|'];
  for (const row of rows) {
    const t = tally(row.samples);
    const recoveryText = row.recoveryS === undefined ? '' : row.recoveryS === 'never' ? 'never' : row.recoveryS.toFixed(2);
    lines.push(
      `| ${row.scenario} | ${t.requests} | ${t.ok} | ${t.conflict} | ${t.unavailable} | ${t.other} | ${t.resets} | ${t.refused} | ${t.noAnswer} | ${t.p99Ms} / ${t.maxMs} | ${recoveryText} | ${row.lost} | ${row.phantom} | ${row.after} |`,
    );
  }
  console.log(lines.join('\n'));
  console.log('');
  for (const row of rows) {
    if (row.notes.length > 0) console.log(`- ${row.scenario}: ${row.notes.join('; ')}`);
  }
}

async function main(): Promise<void> {
  const chaos = new Chaos();
  const limit = setTimeout(() => {
    console.error(`chaos: still running after ${WHOLE_RUN_LIMIT_MS / 60_000} minutes; giving up`);
    chaos.killEverything();
    process.exit(2);
  }, WHOLE_RUN_LIMIT_MS);
  const rows: Row[] = [];
  const started = Date.now();
  try {
    console.error('chaos: starting a private PostgreSQL and Redis, and two instances');
    await chaos.setUp();
    const scenarios: [string, () => Promise<Row>][] = [
      ['storm', () => storm(chaos)],
      ['collective storm', () => collectiveStorm(chaos)],
      ['connection cut', () => faultUnderLoad(chaos, 'connection cut: pg_terminate_backend of all', () => chaos.terminateConnections())],
      [
        'restart',
        () =>
          faultUnderLoad(chaos, 'restart: PostgreSQL down 3 s (fast shutdown)', async () => {
            await chaos.stopDatabase('fast');
            await sleep(3000);
            await chaos.startDatabase();
          }),
      ],
      [
        'crash',
        () =>
          faultUnderLoad(chaos, 'crash: postmaster SIGKILL, down 3 s', async () => {
            await chaos.stopDatabase('crash');
            await sleep(3000);
            await chaos.startDatabase();
          }),
      ],
      ['frozen Redis', () => frozenRedis(chaos)],
      ['SIGTERM', () => sigterm(chaos)],
    ];
    for (const [name, run] of scenarios) {
      console.error(`chaos: ${name}`);
      rows.push(
        await run().catch((error: unknown) => ({
          scenario: name,
          samples: [],
          lost: 0,
          phantom: 0,
          after: '',
          notes: [`the scenario itself failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`],
        })),
      );
    }
  } finally {
    printTable(rows);
    console.log(`\n(${new Date().toISOString().slice(0, 10)}, ${Math.round((Date.now() - started) / 1000)} s, load average ${os.loadavg()[0]!.toFixed(1)})`);
    await chaos.tearDown();
    clearTimeout(limit);
  }
}

await main();
process.exit(0);
