/**
 * The machine's own latency tail. A server that does no work, measured at one connection, answers in tens of
 * microseconds, except when the machine stalls the client or the server; those stalls hit the service's
 * one-connection passes just as often a second. An answer that takes p50 ms goes past the 5 ms line when a
 * stall of over 5 − p50 ms hits it: at R answers a second, S such stalls a second make S / R of the answers slow,
 * and from 1 % on they set the p99, whatever the service does.
 */
import autocannon from 'autocannon';
import type { Measurement } from '../report/report.ts';

/** The stall lengths counted (ms): an answer of the no-work server slower than one of them. */
const STALL_MS = [1, 2, 3, 4] as const;
const P99_LINE_MS = 5;

export interface MachineFloor {
  seconds: number;
  answersPerSecond: number;
  p50Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Per stall length of STALL_MS: how many answers a second took longer. */
  stallsPerSecond: Record<number, number>;
}

export async function measureMachineFloor(url: string, seconds: number): Promise<MachineFloor> {
  const times: number[] = [];
  const instance = autocannon({ url, connections: 1, duration: seconds });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => times.push(responseTime));
  await instance;
  times.sort((a, b) => a - b);
  const at = (quantile: number) => times[Math.min(times.length - 1, Math.floor(quantile * times.length))] ?? 0;
  return {
    seconds,
    answersPerSecond: times.length / seconds,
    p50Ms: at(0.5),
    p999Ms: at(0.999),
    maxMs: times.at(-1) ?? 0,
    stallsPerSecond: Object.fromEntries(STALL_MS.map((ms) => [ms, times.filter((time) => time > ms).length / seconds])),
  };
}

const ONE_CONNECTION_P99_ROWS = ['availability', 'calendars.busy', 'rules.availability'];

export function floorLines(floors: { start: MachineFloor; end: MachineFloor }, measurements: readonly Measurement[]): string[] {
  const describe = (when: string, f: MachineFloor) =>
    `  ${when}: ${Math.round(f.answersPerSecond).toLocaleString('en-US')} answers a second, p50 ${f.p50Ms.toFixed(2)} ms, ` +
    `p99.9 ${f.p999Ms.toFixed(1)} ms, max ${f.maxMs.toFixed(1)} ms; stalls a second over ` +
    STALL_MS.map((ms) => `${ms} ms: ${f.stallsPerSecond[ms]!.toFixed(1)}`).join(', ');
  const stallsOver = (ms: number) => (floors.start.stallsPerSecond[ms]! + floors.end.stallsPerSecond[ms]!) / 2;
  const rows = measurements
    .filter((m) => ONE_CONNECTION_P99_ROWS.includes(m.work) && m.rpsSingle && m.p99Single !== undefined && m.p50Single !== undefined)
    .map((m) => {
      const stall = Math.min(Math.max(P99_LINE_MS - m.p50Single!, STALL_MS[0]), STALL_MS.at(-1)!);
      return (
        `  ${m.label} [${m.surface}]: p50 ${m.p50Single} ms, p99 ${m.p99Single} ms, ${Math.round(m.rpsSingle!)} answers a second; ` +
        `stalls over ${stall} ms alone: ${((100 * stallsOver(stall)) / m.rpsSingle!).toFixed(1)} % of them`
      );
    });
  return [
    `Machine floor: a server that does no work, at one connection, ${floors.start.seconds} s at the start and at the end of the run:`,
    describe('start', floors.start),
    describe('end', floors.end),
    ...(rows.length ? [`The one-connection p99 targets against it (from 1 %, the machine's stalls alone put the p99 past ${P99_LINE_MS} ms):`, ...rows] : []),
  ];
}
