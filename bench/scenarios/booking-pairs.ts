/**
 * What one feature adds to POST /bookings, in the same run: bookings of an event type without it and of its twin
 * with it, one after the other for as many rounds as the run has (the order swapped every other round), each
 * charged the service's CPU (and PostgreSQL's) per booking answered. A side may have work that its bookings leave
 * behind (e-mail to send): its `settle` waits for it inside the measured window, so that work is charged to it; both
 * windows run on for the same time after the load (AFTER_LOAD_MS).
 */
import type { AutocannonResult } from 'autocannon';
import { median } from '../report/report.ts';
import type { Target } from './scenarios.ts';

export interface PairContext {
  seconds: number;
  warmup: number;
  rounds: number;
  measure(target: Target, seconds: number): Promise<AutocannonResult>;
  /** Why one request to the target does not answer as expected, or undefined when it does. */
  probe(target: Target): Promise<string | undefined>;
  /** CPU (µs) the service's process has used so far. */
  serverCpuMicros(): Promise<number>;
  /** CPU (µs) PostgreSQL has used so far (all its databases: on a shared server, others' work too), if known. */
  databaseCpuMicros(): number | undefined;
  log(line: string): void;
}

export interface PairSide {
  target: Target;
  /** Waits until the work the side's bookings left behind is done (charged to the side). */
  settle?: () => Promise<void>;
}

export interface PairRun {
  rps: number;
  /** CPU per request answered (a 409 costs too), in the service's process and in PostgreSQL. */
  serverUsPerBooking: number;
  databaseUsPerBooking?: number;
  /** Answers other than the expected 201 (and errors), by status. */
  failed: number;
  statusCodes: Record<string, number>;
  /** How long `settle` waited after the load stopped. */
  settleMs: number;
}

export interface PairFigures {
  rounds: number;
  /** Medians over the rounds. */
  without: PairRun;
  with: PairRun;
  /** with / without, of the service's CPU per booking: 1.10 is 10 % more. */
  serverCpuRatio: number;
  /** The same of the service's and PostgreSQL's CPU together, when PostgreSQL's is known. */
  totalCpuRatio?: number;
  rpsRatio: number;
}

export async function comparePair(context: PairContext, name: string, without: PairSide, with_: PairSide): Promise<PairFigures | { skipped: string }> {
  for (const side of [without, with_]) {
    const problem = await context.probe(side.target);
    if (problem) return { skipped: problem };
    await side.settle?.();
  }
  if (context.warmup > 0) {
    for (const side of [without, with_]) {
      await context.measure(side.target, context.warmup);
      await side.settle?.();
    }
  }
  const runs = { without: [] as PairRun[], with: [] as PairRun[] };
  for (let round = 0; round < context.rounds; round++) {
    const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
    for (const which of order) runs[which].push(await measureSide(context, which === 'with' ? with_ : without));
    context.log(`${name}, round ${round + 1}/${context.rounds}: without ${format(runs.without.at(-1)!)}; with ${format(runs.with.at(-1)!)}`);
  }
  const withoutRun = medianRun(runs.without);
  const withRun = medianRun(runs.with);
  const total = (run: PairRun) => (run.databaseUsPerBooking === undefined ? undefined : run.serverUsPerBooking + run.databaseUsPerBooking);
  const totals = [total(withRun), total(withoutRun)];
  return {
    rounds: context.rounds,
    without: withoutRun,
    with: withRun,
    serverCpuRatio: withRun.serverUsPerBooking / withoutRun.serverUsPerBooking,
    ...(totals[0] !== undefined && totals[1] !== undefined ? { totalCpuRatio: totals[0] / totals[1] } : {}),
    rpsRatio: withRun.rps / withoutRun.rps,
  };
}

/**
 * Each side's window lasts at least this long after its load, settling included: the service's background work
 * (its pollers) is then charged to both sides alike, not only to the side that waits for its leftovers.
 */
const AFTER_LOAD_MS = 1_000;

async function measureSide(context: PairContext, side: PairSide): Promise<PairRun> {
  const before = { server: await context.serverCpuMicros(), database: context.databaseCpuMicros() };
  const result = await context.measure(side.target, context.seconds);
  const settleStarted = performance.now();
  await side.settle?.();
  const settleMs = performance.now() - settleStarted;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, AFTER_LOAD_MS - settleMs)));
  const server = (await context.serverCpuMicros()) - before.server;
  const databaseAfter = context.databaseCpuMicros();
  const answered = Math.max(1, result['2xx'] + result.non2xx);
  return {
    rps: result['2xx'] / result.duration,
    serverUsPerBooking: server / answered,
    ...(databaseAfter === undefined || before.database === undefined ? {} : { databaseUsPerBooking: (databaseAfter - before.database) / answered }),
    failed: result.non2xx + result.errors,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats)
        .filter(([code]) => !code.startsWith('2'))
        .map(([code, stats]) => [code, stats.count]),
    ),
    settleMs,
  };
}

function medianRun(runs: readonly PairRun[]): PairRun {
  const database = runs.map((run) => run.databaseUsPerBooking).filter((value) => value !== undefined);
  return {
    rps: median(runs.map((run) => run.rps)),
    serverUsPerBooking: median(runs.map((run) => run.serverUsPerBooking)),
    ...(database.length === runs.length ? { databaseUsPerBooking: median(database) } : {}),
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
    statusCodes: runs.reduce<Record<string, number>>((codes, run) => {
      for (const [code, n] of Object.entries(run.statusCodes)) codes[code] = (codes[code] ?? 0) + n;
      return codes;
    }, {}),
    settleMs: median(runs.map((run) => run.settleMs)),
  };
}

const format = (run: PairRun) =>
  `${Math.round(run.rps)} bookings/s, node ${Math.round(run.serverUsPerBooking)} µs + PostgreSQL ${Math.round(run.databaseUsPerBooking ?? Number.NaN)} µs CPU each` +
  (run.failed > 0 ? `, ${run.failed} failed (${Object.entries(run.statusCodes).map(([code, n]) => `${code}×${n}`).join(' ') || 'errors'})` : '') +
  (run.settleMs >= 1 ? `, settled ${Math.round(run.settleMs)} ms after` : '');

/** The figures as the run prints them. */
/** Without `limit`, a figure the bench shows but does not judge. */
export function pairLines(title: string, figures: PairFigures | { skipped: string }, limit?: number): string[] {
  if ('skipped' in figures) return [`${title}: skipped (${figures.skipped})`];
  const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
  return [
    `${title} (median of ${figures.rounds} rounds):`,
    `  without: ${format(figures.without)}`,
    `  with:    ${format(figures.with)}`,
    `  the service's CPU per booking, with / without: ${figures.serverCpuRatio.toFixed(3)} (${percent(figures.serverCpuRatio)}${
      limit === undefined ? '' : `; target at most ${limit}: ${figures.serverCpuRatio <= limit ? 'met' : 'NOT met'}`
    })`,
    ...(figures.totalCpuRatio === undefined
      ? []
      : [`  service + PostgreSQL CPU per booking, with / without: ${figures.totalCpuRatio.toFixed(3)} (${percent(figures.totalCpuRatio)})`]),
    `  throughput, with / without: ${figures.rpsRatio.toFixed(3)}`,
  ];
}
