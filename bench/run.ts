/**
 * `npm run bench`: how close the service comes to a hand-written server doing the same work, and where the time
 * goes. What each scenario measures and how to read the figures: bench/README.md.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { databaseUrl } from '../test/helpers/database-url.ts';
import { BENCH_DATABASE, ensureDataset, holdRunLock, withClient } from './dataset/dataset.ts';
import type { BenchFixture } from './dataset/fixture.ts';
import { explainQueries } from './report/explain.ts';
import { serviceNodeFlags } from '../scripts/service-node-flags.ts';
import { summarizeProfile } from './report/profile-summary.ts';
import { slotCurve } from './scenarios/slot-curve.ts';
import { benchWebhooks, type WebhookFigures, webhookLines } from './scenarios/webhooks.ts';
import { benchCalendarSync, type CalendarSyncFigures, calendarSyncLines } from './scenarios/calendar-sync.ts';
import { floorLines, type MachineFloor, measureMachineFloor } from './scenarios/machine-floor.ts';
import { comparePair, type PairContext, type PairFigures, pairLines } from './scenarios/booking-pairs.ts';
import { benchEmail, type EmailFigures, sendingLines, type SmtpSink, startSmtpSink } from './scenarios/email.ts';
import { BOOKER_EVENT_TYPES, BOOKER_LIMITS } from './dataset/rules.ts';
import {
  attachRatios,
  calendarSyncVerdicts,
  evaluateTargets,
  markdownTable,
  type Measurement,
  measurementTable,
  medianOfRounds,
  pairVerdicts,
  sendingVerdicts,
  TARGETS,
  verdictTable,
} from './report/report.ts';
import {
  BOOKINGS_PAGE,
  createBookingSource,
  DEEP_PAGES,
  restBookingTarget,
  spreadBookingSource,
  type Prepared,
  readRouter,
  type RouterProcedure,
  SURFACES,
  type Surface,
  type Target,
  targetFor,
  type Work,
  WORKS,
} from './scenarios/scenarios.ts';

const USAGE = `npm run bench -- [options]

  --rounds=5            sweeps over the surfaces of each endpoint; every figure is the median of its rounds
  --duration=3          seconds per measurement at --connections
  --warmup=3            seconds of warm-up before the first round
  --connections=50      concurrent connections
  --latency-duration=2  seconds of a second pass at one connection (0 skips it)
  --only=me,bookings    only these scenarios (webhooks included: --only=webhooks; the calendar sync: --only=calendars.sync;
                        e-mail: --only=email, or email.bookings, email.sent, email.sending; booking rules: --only=rules)
  --rebuild             rebuild the data set
  --dataset-only        build the data set, then stop
  --explain             print EXPLAIN ANALYZE of the list queries
  --profile             write a CPU profile of the service and summarise it
  --curve               one availability call in-process against team size and bookings per host, then stop
  --help                this text

The options with a value may also come from BENCH_ROUNDS, BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS,
BENCH_LATENCY_DURATION and BENCH_ONLY.
`;

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsDir = path.join(here, 'results');

interface Options {
  duration: number;
  warmup: number;
  /** Sweeps over the surfaces of each unit of work; each figure reported is the median of the rounds. */
  rounds: number;
  connections: number;
  /** Seconds of a second pass at one connection (service time without queueing); 0 skips it. */
  latencyDuration: number;
  only: string[];
  rebuild: boolean;
  datasetOnly: boolean;
  explain: boolean;
  profile: boolean;
  curve: boolean;
}

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string, envName: string, fallback: string) =>
    argv.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? env[envName] ?? fallback;
  const number = (name: string, envName: string, fallback: number) => {
    const parsed = Number(value(name, envName, String(fallback)));
    if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`--${name} must be a non-negative number`);
    return parsed;
  };
  return {
    duration: number('duration', 'BENCH_DURATION', 3),
    warmup: number('warmup', 'BENCH_WARMUP', 3),
    rounds: Math.max(1, Math.round(number('rounds', 'BENCH_ROUNDS', 5))),
    connections: number('connections', 'BENCH_CONNECTIONS', 50),
    latencyDuration: number('latency-duration', 'BENCH_LATENCY_DURATION', 2),
    only: value('only', 'BENCH_ONLY', '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rebuild: flag('rebuild'),
    datasetOnly: flag('dataset-only'),
    explain: flag('explain'),
    profile: flag('profile'),
    curve: flag('curve'),
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Server {
  url: string;
  /** CPU time (user + system, µs) the server process has used so far. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks a server script with the same Node (process.execPath) and waits for the port it listens on. */
function startServer(script: string, dbUrl: string, execArgv: string[] = [], env: Record<string, string> = {}): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = fork(path.join(here, script), [], {
      execArgv,
      env: { ...process.env, ...env, BENCH_DATABASE_URL: dbUrl, NODE_ENV: 'production' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const failed = (code: number | null) => reject(new Error(`${script} exited with code ${code} before listening`));
    child.once('exit', failed);
    const cpuWaiters: ((micros: number) => void)[] = [];
    child.on('message', (message) => {
      const cpu = (message as { cpu?: NodeJS.CpuUsage }).cpu;
      if (cpu) cpuWaiters.shift()?.(cpu.user + cpu.system);
    });
    child.once('message', (message) => {
      child.off('exit', failed);
      const port = (message as { port: number }).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        cpuMicros: () =>
          new Promise<number>((done) => {
            cpuWaiters.push(done);
            child.send('cpu');
          }),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            child.send('stop');
          }),
      });
    });
  });
}

/**
 * CPU time (µs) used so far by the PostgreSQL server: the postmaster and all its children (backends,
 * background workers), read from /proc. Undefined where /proc cannot tell (not Linux, another host). On a
 * server shared with other databases (DATABASE_URL) it counts their work too: an upper bound.
 */
export async function databaseCpuSampler(dbUrl: string): Promise<() => number | undefined> {
  const ticks = 100; // USER_HZ on Linux
  const stat = (pid: string) => {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // utime + stime, and cutime + cstime: what its children that have already exited used.
    return { ppid: fields[1], cpu: Number(fields[11]) + Number(fields[12]), children: Number(fields[13]) + Number(fields[14]) };
  };
  try {
    // Read while the connection is open: its backend process ends with it.
    const postmaster = await withClient(dbUrl, async (client) => {
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      return stat(String(rows[0]!.pid)).ppid;
    });
    if (!postmaster) return () => undefined;
    return () => {
      let total = 0;
      for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
        try {
          const { ppid, cpu, children } = stat(pid);
          if (pid === postmaster) total += cpu + children;
          else if (ppid === postmaster) total += cpu;
        } catch {
          // the process ended while we looked
        }
      }
      return (total * 1e6) / ticks;
    };
  } catch {
    return () => undefined;
  }
}

interface ProbeResult {
  status: number;
  body: unknown;
}

async function send(baseUrl: string, target: Target): Promise<ProbeResult> {
  const response = await fetch(baseUrl + target.path, {
    method: target.method,
    headers: target.headers,
    body: target.body?.(),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/** Why a probe's answer means "cannot measure this", or undefined when it is the expected success. */
function probeProblem(probe: ProbeResult, target: Target): string | undefined {
  const toolError = (probe.body as { result?: { isError?: boolean; content?: { text?: string }[] } })?.result;
  if (toolError?.isError) return `tool call failed: ${toolError.content?.[0]?.text?.slice(0, 120)}`;
  if (probe.status === target.expectStatus) return undefined;
  const body = probe.body as { message?: string; error?: { message?: string; json?: { message?: string } } };
  const message = body?.message ?? body?.error?.json?.message ?? body?.error?.message ?? String(probe.body).slice(0, 120);
  if (probe.status === 404 && /^No route/.test(message)) return 'route not implemented yet';
  return `probe answered ${probe.status}: ${message}`;
}

/** Pages through GET /bookings?limit=100 DEEP_PAGES times and returns the cursor of the next page. */
async function deepCursor(baseUrl: string, prefix: string, token: string): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < DEEP_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(BOOKINGS_PAGE), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${baseUrl}${prefix}/bookings?${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { nextCursor?: string | null };
    if (!body.nextCursor) return undefined;
    cursor = body.nextCursor;
  }
  return cursor;
}

async function measure(
  baseUrl: string,
  target: Target,
  options: Pick<Options, 'connections'>,
  seconds: number,
): Promise<AutocannonResult> {
  const base = { connections: options.connections, duration: seconds, timeout: 30 };
  if (target.body) {
    const body = target.body;
    return autocannon({
      ...base,
      url: baseUrl,
      requests: [
        {
          method: target.method,
          path: target.path,
          headers: target.headers,
          setupRequest: (request) => ({ ...request, body: body() }),
        },
      ],
    });
  }
  return autocannon({ ...base, url: baseUrl + target.path, method: target.method, headers: target.headers });
}

interface CpuPerRequest {
  server?: number;
  database?: number;
  client?: number;
}

function toMeasurement(work: Work, surface: Surface, result: AutocannonResult, load: number, cpu: CpuPerRequest): Measurement {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count]));
  return {
    work: work.key,
    label: work.label,
    surface,
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    load,
    serverCpuUs: cpu.server,
    databaseCpuUs: cpu.database,
    clientCpuUs: cpu.client,
  };
}

async function machineInfo(dbUrl: string) {
  const version = await withClient(dbUrl, async (client) => (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version);
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: version,
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(USAGE);
    return;
  }
  const options = parseOptions(process.argv.slice(2), process.env);
  const startedAt = new Date();
  const embedded = process.env.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(path.resolve(here, '../.data/bench'), log);
  const serverUrl = process.env.DATABASE_URL ?? embedded!.url;
  const servers: Server[] = [];
  let sink: SmtpSink | undefined;
  const runLock = await holdRunLock(serverUrl, log);
  try {
    const fixture = await ensureDataset(serverUrl, log, { rebuild: options.rebuild });
    if (options.datasetOnly) return;
    const dbUrl = databaseUrl(serverUrl, BENCH_DATABASE);
    const machine = await machineInfo(dbUrl);
    log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, Node ${machine.node}, PostgreSQL ${machine.postgres}`);

    if (options.explain) {
      process.stdout.write(`${await explainQueries(dbUrl, fixture)}\n`);
    }
    if (options.curve) {
      log('availability cost against team size and bookings (in-process)…');
      process.stdout.write(`${await slotCurve(dbUrl, fixture, await databaseCpuSampler(dbUrl), options.duration / 4)}\n`);
      return;
    }

    const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
    const profileDir = path.join(resultsDir, 'profiles', stamp);
    // Both servers run with the Node flags `npm start` gives the service, so that the runtime is the same.
    const nodeFlags = serviceNodeFlags();
    const baseline = await startServer('servers/baseline-server.ts', dbUrl, nodeFlags);
    servers.push(baseline);
    // Without SMTP_URL, as `npm start` by default: mail is kept (only the e-mail scenarios book event types that send any).
    const app = await startServer(
      'servers/app-server.ts',
      dbUrl,
      options.profile ? [...nodeFlags, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : nodeFlags,
    );
    servers.push(app);

    const works = WORKS.filter(
      (work) => options.only.length === 0 || options.only.some((o) => work.key === o || work.key.startsWith(`${o}.`)),
    );
    const prepared = await prepare(fixture, dbUrl, app.url, baseline.url, works);
    const procedures = await readRouter();
    const databaseCpu = await databaseCpuSampler(dbUrl);
    const floorStart = await machineFloor(dbUrl, nodeFlags, options);
    const rounds: Measurement[][] = Array.from({ length: options.rounds }, () => []);
    let index = 0;
    for (const work of works) {
      index++;
      for (const [round, measured] of rounds.entries()) {
        // Every other round runs the surfaces in reverse, so that none is always measured first or last.
        for (const surface of round % 2 === 0 ? SURFACES : [...SURFACES].reverse()) {
          const warmup = round === 0 ? options.warmup : 0;
          const m = await runOne(work, surface, prepared, procedures, { app, baseline }, { ...options, warmup }, databaseCpu);
          if (!m) continue;
          measured.push(m);
          log(
            `[${index}/${works.length}, round ${round + 1}/${options.rounds}] ${work.label} [${surface}]: ${
              m.skipped ? `skipped (${m.skipped})` : `${Math.round(m.rps ?? 0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms`
            }`,
          );
        }
      }
    }
    const measurements = medianOfRounds(rounds);
    const floorEnd = await machineFloor(dbUrl, nodeFlags, options);
    const floors = floorStart && floorEnd ? { start: floorStart, end: floorEnd } : undefined;

    const webhooks = await runWebhookBench(options, fixture, dbUrl, prepared, app, databaseCpu);
    const ruleBookings = await runRuleBookingBench(options, fixture, app, databaseCpu);
    const email: EmailFigures = {
      ...(named(options, 'email', 'email.bookings') ? await runEmailBench(options, fixture, dbUrl, prepared, app, undefined, databaseCpu, { bookings: true }) : {}),
    };
    // Its syncs are the service's only work while it runs.
    const calendarSync = await runCalendarSyncBench(options, dbUrl, app, databaseCpu);
    // Last, on a service that sends to a local SMTP server: this one's worker would keep the messages it claims.
    const sent = { bookings: named(options, 'email', 'email.sent'), sending: named(options, 'email', 'email.sending') };
    if (sent.bookings || sent.sending) {
      await app.stop();
      servers.splice(servers.indexOf(app), 1);
      sink = await startSmtpSink();
      const mailApp = await startServer(
        'servers/app-server.ts',
        dbUrl,
        options.profile ? [...nodeFlags, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : nodeFlags,
        { BENCH_SMTP_URL: sink.url },
      );
      servers.push(mailApp);
      Object.assign(email, await runEmailBench(options, fixture, dbUrl, prepared, mailApp, sink, databaseCpu, sent));
    }

    attachRatios(measurements);
    const verdicts = [
      ...evaluateTargets(measurements),
      ...pairVerdicts('POST /bookings with e-mail (queued, kept) vs without', email.bookings, TARGETS.emailBookingMaxCpuRatio),
      ...sendingVerdicts(email.sending),
      ...pairVerdicts('POST /bookings with limits vs without', ruleBookings, TARGETS.rulesBookingMaxCpuRatio),
      ...(calendarSync ? calendarSyncVerdicts(calendarSync) : []),
    ];
    const finishedAt = new Date();
    const summary = {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      seconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
      machine,
      options,
      dataset: { version: fixture.version, builtAt: fixture.builtAt, buildSeconds: fixture.buildSeconds, counts: fixture.counts },
      measurements,
      rounds,
      verdicts,
      webhooks,
      email,
      ruleBookings,
      calendarSync,
      machineFloor: floors,
    };
    mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${stamp}.json`);
    writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
    writeFileSync(path.join(resultsDir, `${stamp}.md`), `${markdownTable(measurements)}\n`);

    const out = [
      '',
      `Benchmark ${summary.startedAt}: ${options.connections} connections, ${options.warmup}s warm-up, then ${options.rounds} round(s) of ${options.duration}s per scenario` +
        (options.latencyDuration > 0 ? ` and ${options.latencyDuration}s at 1 connection` : '') +
        (options.rounds > 1 ? '; each figure is the median of the rounds' : ''),
      `${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB RAM, ${machine.os}, Node ${machine.node}, PostgreSQL ${machine.postgres}`,
      `data set ${fixture.version}: ${JSON.stringify(fixture.counts)}`,
      '',
      measurementTable(measurements),
      '',
      verdictTable(verdicts),
      '',
      ...(webhooks ? [...webhookLines(webhooks), ''] : []),
      ...(email.bookings ? [...pairLines('E-mail: POST /bookings with e-mail queued (kept, no SMTP) vs without', email.bookings, TARGETS.emailBookingMaxCpuRatio), ''] : []),
      // What sending costs in all, beside the request's own cost: the mail worker's work has its own target (sending).
      ...(email.sent ? [...pairLines('E-mail: POST /bookings with e-mail sent meanwhile (charged) vs without', email.sent), ''] : []),
      ...(email.sending ? [...sendingLines(email.sending, TARGETS.emailMessagesPerSecond), ''] : []),
      ...(ruleBookings ? [...pairLines('Booking rules: POST /bookings with limits vs without', ruleBookings, TARGETS.rulesBookingMaxCpuRatio), ''] : []),
      ...(calendarSync ? [...calendarSyncLines(calendarSync), ''] : []),
      ...(floors ? [...floorLines(floors, measurements), ''] : []),
      `${verdicts.filter((v) => v.met).length} of ${verdicts.length} targets met; total ${summary.seconds}s; results in ${path.relative(process.cwd(), file)}`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);

    await Promise.all(servers.splice(0).map((server) => server.stop()));
    await sink?.close();
    sink = undefined;
    if (options.profile) {
      for (const name of readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'))) {
        process.stdout.write(`\nCPU profile of the service (${path.join(path.relative(process.cwd(), profileDir), name)}):\n`);
        process.stdout.write(`${summarizeProfile(path.join(profileDir, name))}\n`);
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await sink?.close();
    await runLock.release();
    await embedded?.stop();
  }
}

/** The webhooks' figures, when --only names them or is not given. */
async function runWebhookBench(
  options: Options,
  fixture: BenchFixture,
  dbUrl: string,
  prepared: Prepared,
  app: Server,
  databaseCpu: () => number | undefined,
): Promise<WebhookFigures | undefined> {
  if (options.only.length > 0 && !options.only.includes('webhooks')) return undefined;
  const createBooking = WORKS.find((work) => work.key === 'bookings.create')!;
  return benchWebhooks({
    dbUrl,
    fixture,
    bookingTarget: targetFor(createBooking, 'rest', prepared)!,
    seconds: options.duration,
    warmup: options.warmup,
    measure: (target, seconds) => measure(app.url, target, options, seconds),
    serverCpuMicros: () => app.cpuMicros(),
    databaseCpuMicros: databaseCpu,
    log,
  });
}

/** What the POST /bookings comparisons need (bench/scenarios/booking-pairs.ts). */
function pairContext(options: Options, app: Server, databaseCpu: () => number | undefined): PairContext {
  return {
    seconds: options.duration,
    warmup: options.warmup,
    rounds: Math.max(2, options.rounds),
    measure: (target, seconds) => measure(app.url, target, options, seconds),
    probe: async (target) => probeProblem(await send(app.url, target), target),
    serverCpuMicros: () => app.cpuMicros(),
    databaseCpuMicros: databaseCpu,
    log,
  };
}

const named = (options: Options, ...keys: string[]) => options.only.length === 0 || options.only.some((o) => keys.includes(o));

/** E-mail's figures (bench/scenarios/email.ts) on `app`, which sends to `sink` or, without one, keeps its mail. */
function runEmailBench(
  options: Options,
  fixture: BenchFixture,
  dbUrl: string,
  prepared: Prepared,
  app: Server,
  sink: SmtpSink | undefined,
  databaseCpu: () => number | undefined,
  parts: { bookings?: boolean; sending?: boolean },
): Promise<EmailFigures> {
  return benchEmail({ ...pairContext(options, app, databaseCpu), dbUrl, appUrl: app.url, fixture, sink, nextBooking: prepared.nextBooking, parts });
}

/**
 * POST /bookings of the booker's event type with limits against the same without, when --only names it (`rules`,
 * `rules.bookings`) or is not given. Both book 8 slots a day far beyond the other scenarios' slots, so the limits
 * (8 a day, 56 a week, 248 a month) are counted on every booking, over the up to 8 × 33 bookings before it, and never
 * reached.
 */
async function runRuleBookingBench(
  options: Options,
  fixture: BenchFixture,
  app: Server,
  databaseCpu: () => number | undefined,
): Promise<PairFigures | { skipped: string } | undefined> {
  if (!named(options, 'rules', 'rules.bookings')) return undefined;
  const next = spreadBookingSource(fixture, 3000, BOOKER_LIMITS.perDay);
  const booking = (eventTypeId: string) => restBookingTarget(fixture, () => next(eventTypeId));
  return comparePair(
    pairContext(options, app, databaseCpu),
    'limits',
    { target: booking(BOOKER_EVENT_TYPES.plain) },
    { target: booking(BOOKER_EVENT_TYPES.withLimits) },
  );
}

/** The calendar sync's figures, when --only names them (`calendars` or `calendars.sync`) or is not given. */
async function runCalendarSyncBench(
  options: Options,
  dbUrl: string,
  app: Server,
  databaseCpu: () => number | undefined,
): Promise<CalendarSyncFigures | undefined> {
  if (options.only.length > 0 && !options.only.some((o) => o === 'calendars' || o === 'calendars.sync')) return undefined;
  return benchCalendarSync({ dbUrl, runs: Math.max(3, options.rounds), serverCpuMicros: () => app.cpuMicros(), databaseCpuMicros: databaseCpu, log });
}

/** Deep cursors and offsets, found once the servers run (a skipped route just leaves them unset). */
async function prepare(fixture: BenchFixture, dbUrl: string, appUrl: string, baselineUrl: string, works: Work[]): Promise<Prepared> {
  const prepared: Prepared = {
    fixture,
    deepCursor: {},
    contactsDeepOffset: 0,
    nextBooking: createBookingSource(fixture),
  };
  if (works.some((work) => work.key === 'bookings.deep')) {
    log(`paging ${DEEP_PAGES} pages into the heavy user's bookings for the deep cursors…`);
    prepared.deepCursor.app = await deepCursor(appUrl, '/api/v2', fixture.heavy.token);
    prepared.deepCursor.baseline = await deepCursor(baselineUrl, '', fixture.heavy.token);
  }
  const contacts = await withClient(dbUrl, async (client) => {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from contact where owner_id = $1', [fixture.heavy.id]);
    return Number(rows[0]!.n);
  });
  // Three quarters of the way down the list, on a page boundary.
  prepared.contactsDeepOffset = Math.floor((contacts * 0.75) / 50) * 50;
  return prepared;
}

/**
 * Waits until the server has worked off the requests autocannon left in flight when it ended the loaded pass by
 * closing its connections: the server still answers them (to closed sockets), and the one-connection pass would
 * queue behind them, its first request measuring the loaded pass's queue (for an endpoint of 10–20 ms, 0.3–0.8 s).
 * Worked off = the server's CPU under 5 % of a core for three 50 ms polls in a row; at most 15 s.
 */
async function drained(server: Server): Promise<void> {
  const started = performance.now();
  let last = await server.cpuMicros();
  for (let idle = 0; idle < 3 && performance.now() - started < 15_000; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await server.cpuMicros();
    idle = now - last < 2_500 ? idle + 1 : 0;
    last = now;
  }
}

/** The machine's own one-connection tail (bench/scenarios/machine-floor.ts), on a server of its own; none without a one-connection pass. */
async function machineFloor(dbUrl: string, nodeFlags: string[], options: Options): Promise<MachineFloor | undefined> {
  if (options.latencyDuration <= 0) return undefined;
  const floor = await startServer('servers/floor-server.ts', dbUrl, nodeFlags);
  try {
    return await measureMachineFloor(floor.url, Math.max(10, 5 * options.latencyDuration));
  } finally {
    await floor.stop();
  }
}

async function runOne(
  work: Work,
  surface: Surface,
  prepared: Prepared,
  procedures: RouterProcedure[],
  servers: { app: Server; baseline: Server },
  options: Options,
  databaseCpu: () => number | undefined,
): Promise<Measurement | undefined> {
  if (surface === 'baseline' && !work.hasBaseline) return undefined;
  const skipped = (reason: string): Measurement => ({ work: work.key, label: work.label, surface, skipped: reason });
  let trpc: { path: string; acceptsVoid: boolean; tool: string } | undefined;
  if (surface === 'trpc' || surface === 'mcp') {
    const procedure = procedures.find((p) => p.method === work.method && p.restPath === work.path);
    if (!procedure) return skipped('no procedure for this route in the router yet');
    trpc = { path: procedure.path, acceptsVoid: procedure.acceptsVoid, tool: procedure.tool };
  }
  const target = targetFor(work, surface, prepared, trpc);
  if (!target) return skipped(work.key === 'bookings.deep' ? 'no deep cursor (paging failed)' : 'not applicable');
  const server = surface === 'baseline' ? servers.baseline : servers.app;
  const problem = probeProblem(await send(server.url, target), target);
  if (problem) return skipped(problem);
  if (options.warmup > 0) await measure(server.url, target, options, options.warmup);
  const load = os.loadavg()[0] ?? 0;
  const before = { server: await server.cpuMicros(), database: databaseCpu(), client: process.cpuUsage() };
  const result = await measure(server.url, target, options, options.duration);
  const serverAfter = await server.cpuMicros();
  const databaseAfter = databaseCpu();
  const client = process.cpuUsage(before.client);
  const requests = Math.max(1, result['2xx'] + result.non2xx);
  const cpu: CpuPerRequest = {
    server: (serverAfter - before.server) / requests,
    database:
      databaseAfter === undefined || before.database === undefined ? undefined : (databaseAfter - before.database) / requests,
    client: (client.user + client.system) / requests,
  };
  const measurement = toMeasurement(work, surface, result, load, cpu);
  if (options.latencyDuration > 0) {
    await drained(server);
    const single = await measure(server.url, target, { connections: 1 }, options.latencyDuration);
    measurement.p50Single = single.latency.p50;
    measurement.p99Single = single.latency.p99;
    measurement.rpsSingle = (single['2xx'] + single.non2xx) / single.duration;
  }
  return measurement;
}

await main();
