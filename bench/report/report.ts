/** Turning measurements into the table on stdout, the target verdicts and the JSON results file (pure). */
import type { Surface } from '../scenarios/scenarios.ts';

export interface Measurement {
  work: string;
  label: string;
  surface: Surface;
  /** Why it was not measured (route missing, probe failed, …); absent when measured. */
  skipped?: string;
  /** Successful (2xx) responses per second. */
  rps?: number;
  p50?: number;
  p90?: number;
  p99?: number;
  max?: number;
  /** p50 and p99 at a single connection: the service time, without queueing behind other requests. */
  p50Single?: number;
  p99Single?: number;
  /** Answers a second at a single connection. */
  rpsSingle?: number;
  ok?: number;
  non2xx?: number;
  errors?: number;
  statusCodes?: Record<string, number>;
  /** rps divided by the baseline's rps for the same work in the same run. */
  ratio?: number;
  /** 1-minute load average when the measurement started: a hint of noise from other processes. */
  load?: number;
  /**
   * CPU time per request (µs) of the server process, of PostgreSQL (all its processes) and of the load
   * generator: unlike throughput, these barely move when other processes compete for the cores.
   */
  serverCpuUs?: number;
  databaseCpuUs?: number;
  clientCpuUs?: number;
  /** How many rounds the figures are the medians of (see medianOfRounds). */
  rounds?: number;
}

export interface TargetVerdict {
  target: string;
  subject: string;
  value: string;
  met: boolean;
}

export const TARGETS = {
  minRatio: 0.8,
  /** CPU per request against the baseline's for the same work: Node (the server process) and PostgreSQL. */
  maxNodeCpuRatio: 1.5,
  maxDatabaseCpuRatio: 1.2,
  contactsFirstP50Ms: 50,
  maxP99Ms: 100,
  /** GET /availability, 31 days, 500 bookings: p99 at one connection and node CPU per call. */
  availabilityP99SingleMs: 5,
  availabilityNodeCpuUs: 1500,
  /** Round-robin and collective teams of 10 and 50 hosts: p99 at one connection. */
  teamAvailabilityP99SingleMs: 50,
  /** A deep cursor page counts as "as fast as the first" within this share of its throughput. */
  deepPageMinShare: 0.9,
  /** An MCP tools/call may cost at most this many times the node CPU of the same REST call. */
  mcpMaxCpuRatio: 1.3,
  /** GET /availability of a host with connected calendars: node CPU against the same host without, and p99 at one connection. */
  calendarsMaxNodeCpuRatio: 1.2,
  calendarsP99SingleMs: 5,
  /** Round robin of 50 hosts with 2 calendars each: p99 at one connection. */
  calendarsTeamP99SingleMs: 50,
  /** One sync of a 5,000-event feed with 200 recurring series: the service's CPU. */
  calendarSyncCpuMs: 1000,
  /** GET /availability of an event type with a booking window and limits: p99 at one connection. */
  rulesAvailabilityP99SingleMs: 5,
  /** POST /bookings with limits against the same without, and with e-mail against the same without: node CPU. */
  rulesBookingMaxCpuRatio: 1.1,
  emailBookingMaxCpuRatio: 1.1,
  /** Messages a second one instance sends to a local SMTP server. */
  emailMessagesPerSecond: 200,
};

/** The host with calendars and its twins without (bench/dataset/calendars.ts): the same busy time as bookings, none. */
const CALENDAR_TWINS = [
  { work: 'calendars.booked', what: 'the same host without calendars (same busy time, as bookings)' },
  { work: 'calendars.bare', what: 'the same host without calendars or bookings' },
];

/** The figures that rounds are combined on, each by its median. */
const ROUND_FIGURES = [
  'rps',
  'p50',
  'p90',
  'p99',
  'max',
  'p50Single',
  'p99Single',
  'rpsSingle',
  'load',
  'serverCpuUs',
  'databaseCpuUs',
  'clientCpuUs',
] as const satisfies readonly (keyof Measurement)[];

/**
 * One measurement per work and surface out of several rounds of the same sweep: each figure is the median of its
 * rounds, so that one round disturbed by another process on the shared cores does not decide a verdict; counts
 * are summed. A surface skipped in any round is reported as skipped.
 */
export function medianOfRounds(rounds: readonly (readonly Measurement[])[]): Measurement[] {
  const [first = []] = rounds;
  return first.map((measurement) => {
    const measured = rounds.flatMap((round) => round.filter((m) => m.work === measurement.work && m.surface === measurement.surface));
    if (measured.length < rounds.length) return { ...measurement, skipped: 'not measured in every round' };
    const skipped = measured.find((m) => m.skipped !== undefined);
    if (skipped) return skipped;
    const combined: Measurement = { work: measurement.work, label: measurement.label, surface: measurement.surface, rounds: measured.length };
    for (const figure of ROUND_FIGURES) {
      const values = measured.map((m) => m[figure]).filter((value) => value !== undefined);
      if (values.length === measured.length) combined[figure] = median(values);
    }
    for (const count of ['ok', 'non2xx', 'errors'] as const) {
      if (measured.every((m) => m[count] !== undefined)) combined[count] = measured.reduce((sum, m) => sum + m[count]!, 0);
    }
    const statusCodes: Record<string, number> = {};
    for (const m of measured) {
      for (const [code, n] of Object.entries(m.statusCodes ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + n;
    }
    if (measured.some((m) => m.statusCodes)) combined.statusCodes = statusCodes;
    return combined;
  });
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Sets each measurement's ratio to the baseline of the same work. */
export function attachRatios(measurements: Measurement[]): void {
  for (const m of measurements) {
    if (m.surface === 'baseline' || m.rps === undefined) continue;
    const base = measurements.find((b) => b.work === m.work && b.surface === 'baseline' && b.rps !== undefined);
    if (base?.rps) m.ratio = m.rps / base.rps;
  }
}

export function evaluateTargets(measurements: Measurement[]): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  const measured = measurements.filter((m) => m.rps !== undefined && m.surface !== 'baseline');
  for (const m of measured) {
    const subject = `${m.label} [${m.surface}]`;
    // The hand-written server's figure for the same work, where there is one: a target it misses too is
    // a limit of the machine (or of the target), not of the stack.
    const base = measurements.find((b) => b.work === m.work && b.surface === 'baseline' && b.rps !== undefined);
    const againstBase = (value: number | undefined) => (base && value !== undefined ? `; baseline ${value} ms` : '');
    // The same percentile at ONE connection: the service time, which queueing behind 49 others hides.
    const single = (value: number | undefined) => (value === undefined ? '' : `; at 1 conn. ${value} ms`);
    if (m.ratio !== undefined) {
      verdicts.push({
        target: `throughput ≥ ${TARGETS.minRatio} × baseline`,
        subject,
        value: m.ratio.toFixed(2),
        met: m.ratio >= TARGETS.minRatio,
      });
    }
    const cpuAgainstBase = (target: string, limit: number, value: number | undefined, baseValue: number | undefined) => {
      if (value === undefined || !baseValue) return;
      const ratio = value / baseValue;
      verdicts.push({
        target: `${target} ≤ ${limit} × baseline`,
        subject,
        value: `${ratio.toFixed(2)} (${Math.round(value)} vs ${Math.round(baseValue)} µs)`,
        met: ratio <= limit,
      });
    };
    cpuAgainstBase('node CPU per request', TARGETS.maxNodeCpuRatio, m.serverCpuUs, base?.serverCpuUs);
    cpuAgainstBase('PostgreSQL CPU per request', TARGETS.maxDatabaseCpuRatio, m.databaseCpuUs, base?.databaseCpuUs);
    if (m.p99 !== undefined) {
      verdicts.push({
        target: `p99 ≤ ${TARGETS.maxP99Ms} ms`,
        subject,
        value: `${m.p99} ms${againstBase(base?.p99)}${single(m.p99Single)}`,
        met: m.p99 <= TARGETS.maxP99Ms,
      });
    }
    if (m.work === 'contacts.first' && m.p50 !== undefined) {
      verdicts.push({
        target: `p50 < ${TARGETS.contactsFirstP50Ms} ms`,
        subject,
        value: `${m.p50} ms${againstBase(base?.p50)}${single(m.p50Single)}`,
        met: m.p50 < TARGETS.contactsFirstP50Ms,
      });
    }
    if (m.work.startsWith('availability') && m.p99Single !== undefined) {
      // The service time of one call, at ONE connection (at 50, latency is queueing: 50 / throughput).
      const limit = m.work === 'availability' ? TARGETS.availabilityP99SingleMs : TARGETS.teamAvailabilityP99SingleMs;
      verdicts.push({
        target: `p99 at 1 connection < ${limit} ms`,
        subject,
        value: `${m.p99Single} ms${base?.p99Single === undefined ? '' : `; baseline ${base.p99Single} ms`}`,
        met: m.p99Single < limit,
      });
    }
    if (m.work === 'availability' && m.serverCpuUs !== undefined) {
      verdicts.push({
        target: `node CPU per call ≤ ${TARGETS.availabilityNodeCpuUs} µs`,
        subject,
        value: `${Math.round(m.serverCpuUs)} µs${base?.serverCpuUs === undefined ? '' : `; baseline ${Math.round(base.serverCpuUs)} µs`}`,
        met: m.serverCpuUs <= TARGETS.availabilityNodeCpuUs,
      });
    }
    if (m.work === 'bookings.deep') {
      const first = measured.find((f) => f.work === 'bookings.first' && f.surface === m.surface);
      if (first?.rps && m.rps !== undefined) {
        const share = m.rps / first.rps;
        verdicts.push({
          target: `deep page ≥ ${TARGETS.deepPageMinShare} × first page throughput`,
          subject: `GET /bookings [${m.surface}]`,
          value: share.toFixed(2),
          met: share >= TARGETS.deepPageMinShare,
        });
      }
    }
    const rest = measured.find((r) => r.work === m.work && r.surface === 'rest');
    if (m.surface === 'mcp' && m.serverCpuUs !== undefined && rest?.serverCpuUs) {
      const ratio = m.serverCpuUs / rest.serverCpuUs;
      verdicts.push({
        target: `node CPU per call ≤ ${TARGETS.mcpMaxCpuRatio} × REST's`,
        subject,
        value: `${ratio.toFixed(2)} (${Math.round(m.serverCpuUs)} vs ${Math.round(rest.serverCpuUs)} µs)`,
        met: ratio <= TARGETS.mcpMaxCpuRatio,
      });
    }
    verdicts.push(...calendarVerdicts(m, measured, subject));
    if (m.work === 'rules.availability' && m.p99Single !== undefined) {
      const twin = measured.find((t) => t.work === 'rules.none' && t.surface === m.surface);
      verdicts.push({
        target: `p99 at 1 connection < ${TARGETS.rulesAvailabilityP99SingleMs} ms`,
        subject,
        value: `${m.p99Single} ms${twin?.p99Single === undefined ? '' : `; without window and limits ${twin.p99Single} ms`}`,
        met: m.p99Single < TARGETS.rulesAvailabilityP99SingleMs,
      });
    }
    if (m.work === 'bookings.create') {
      const conflicts = m.statusCodes?.['409'] ?? 0;
      verdicts.push({ target: 'no 409 when every POST books a distinct slot', subject, value: String(conflicts), met: conflicts === 0 });
    }
  }
  return verdicts;
}

/** The calendar rows' targets: node CPU against the twins without calendars on the same surface, p99 at one connection. */
function calendarVerdicts(m: Measurement, measured: readonly Measurement[], subject: string): TargetVerdict[] {
  const verdicts: TargetVerdict[] = [];
  if (m.work === 'calendars.busy' && m.serverCpuUs !== undefined) {
    for (const twin of CALENDAR_TWINS) {
      const other = measured.find((t) => t.work === twin.work && t.surface === m.surface);
      if (!other?.serverCpuUs) continue;
      const ratio = m.serverCpuUs / other.serverCpuUs;
      verdicts.push({
        target: `node CPU per call ≤ ${TARGETS.calendarsMaxNodeCpuRatio} × ${twin.what}`,
        subject,
        value: `${ratio.toFixed(2)} (${Math.round(m.serverCpuUs)} vs ${Math.round(other.serverCpuUs)} µs)`,
        met: ratio <= TARGETS.calendarsMaxNodeCpuRatio,
      });
    }
  }
  const limit = m.work === 'calendars.busy' ? TARGETS.calendarsP99SingleMs : m.work === 'calendars.rr50' ? TARGETS.calendarsTeamP99SingleMs : undefined;
  if (limit !== undefined && m.p99Single !== undefined) {
    verdicts.push({ target: `p99 at 1 connection < ${limit} ms`, subject, value: `${m.p99Single} ms`, met: m.p99Single < limit });
  }
  return verdicts;
}

/** The calendar sync's target: the service's CPU for one sync of the large feed (PostgreSQL's shown beside it). */
export function calendarSyncVerdicts(figures: { serverCpuMs: number; databaseCpuMs?: number; events: number; series: number }): TargetVerdict[] {
  const database = figures.databaseCpuMs === undefined ? '' : `; PostgreSQL ${Math.round(figures.databaseCpuMs)} ms`;
  return [
    {
      target: `service CPU per sync ≤ ${TARGETS.calendarSyncCpuMs} ms`,
      subject: `calendar sync, ${figures.events.toLocaleString('en-US')} events, ${figures.series} recurring series`,
      value: `${Math.round(figures.serverCpuMs)} ms${database}`,
      met: figures.serverCpuMs <= TARGETS.calendarSyncCpuMs,
    },
  ];
}

/** A feature's cost on POST /bookings (bench/scenarios/booking-pairs.ts): the service's CPU with it / without it. */
export function pairVerdicts(subject: string, figures: { serverCpuRatio: number; without: { serverUsPerBooking: number }; with: { serverUsPerBooking: number } } | { skipped: string } | undefined, limit: number): TargetVerdict[] {
  if (!figures || 'skipped' in figures) return [];
  return [
    {
      target: `node CPU per booking ≤ ${limit} × without`,
      subject,
      value: `${figures.serverCpuRatio.toFixed(3)} (${Math.round(figures.with.serverUsPerBooking)} vs ${Math.round(figures.without.serverUsPerBooking)} µs)`,
      met: figures.serverCpuRatio <= limit,
    },
  ];
}

/** E-mail sending's rate to a local SMTP server. */
export function sendingVerdicts(figures: { messagesPerSecond: number; serverUsPerMessage: number } | undefined): TargetVerdict[] {
  if (!figures) return [];
  return [
    {
      target: `at least ${TARGETS.emailMessagesPerSecond} messages/s`,
      subject: 'e-mail sending, one instance, local SMTP server',
      value: `${Math.round(figures.messagesPerSecond)} (node ${Math.round(figures.serverUsPerMessage)} µs CPU each)`,
      met: figures.messagesPerSecond >= TARGETS.emailMessagesPerSecond,
    },
  ];
}

const integer = (n: number | undefined) => (n === undefined ? '' : Math.round(n).toLocaleString('en-US'));
const ms = (n: number | undefined) => (n === undefined ? '' : String(Math.round(n * 10) / 10));

export function renderTable(rows: string[][], header: string[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i <= 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function measurementTable(measurements: Measurement[]): string {
  const rows = measurements.map((m) => {
    if (m.skipped) return [m.label, m.surface, '', '', '', '', '', '', '', '', `skipped: ${m.skipped}`];
    const failures = (m.non2xx ?? 0) + (m.errors ?? 0);
    const codes = Object.entries(m.statusCodes ?? {})
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, count]) => `${code}×${count}`)
      .join(' ');
    return [
      m.label,
      m.surface,
      integer(m.rps),
      ms(m.p50),
      ms(m.p99),
      failures ? `${failures}${codes ? ` (${codes})` : ''}` : '0',
      m.ratio === undefined ? '' : m.ratio.toFixed(2),
      m.p50Single === undefined ? '' : `${ms(m.p50Single)}/${ms(m.p99Single)}`,
      integer(m.serverCpuUs),
      integer(m.databaseCpuUs),
      m.load === undefined ? '' : m.load.toFixed(1),
    ];
  });
  return renderTable(rows, [
    'endpoint',
    'surface',
    'req/s',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    '×baseline',
    'p50/p99 @1',
    'node µs/req',
    'pg µs/req',
    'load',
  ]);
}

export function verdictTable(verdicts: TargetVerdict[]): string {
  return renderTable(
    verdicts.map((v) => [v.met ? 'met' : 'MISSED', v.target, v.value, v.subject]),
    ['', 'target', 'value', 'endpoint'],
  );
}

/** A markdown table of the same figures, for docs/performance.md. */
export function markdownTable(measurements: Measurement[]): string {
  const lines = [
    '| Endpoint | Surface | req/s | p50 ms | p99 ms | × baseline | p50 / p99 ms, 1 conn. | node CPU µs/req | PostgreSQL CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const m of measurements) {
    if (m.skipped) {
      lines.push(`| ${m.label} | ${m.surface} | skipped: ${m.skipped} | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${m.label} | ${m.surface} | ${integer(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${m.ratio === undefined ? '' : m.ratio.toFixed(2)} | ${m.p50Single === undefined ? '' : `${ms(m.p50Single)} / ${ms(m.p99Single)}`} | ${integer(m.serverCpuUs)} | ${integer(m.databaseCpuUs)} |`,
    );
  }
  return lines.join('\n');
}
