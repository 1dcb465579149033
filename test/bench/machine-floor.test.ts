import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/report/report.ts';
import { floorLines, type MachineFloor } from '../../bench/scenarios/machine-floor.ts';

const floor = (stallsOver: [number, number, number, number]): MachineFloor => ({
  seconds: 10,
  answersPerSecond: 10_000,
  p50Ms: 0.1,
  p999Ms: 1.5,
  maxMs: 12,
  stallsPerSecond: { 1: stallsOver[0], 2: stallsOver[1], 3: stallsOver[2], 4: stallsOver[3] },
});

const row = (work: string, p50Single: number, rpsSingle: number): Measurement => ({
  work,
  label: `label of ${work}`,
  surface: 'rest',
  p50Single,
  p99Single: 5,
  rpsSingle,
});

describe('the machine floor of the one-connection p99', () => {
  it('sets each p99 row against the stalls that alone take its answers past 5 ms, averaged over both ends of the run', () => {
    const lines = floorLines({ start: floor([20, 8, 4, 2]), end: floor([20, 12, 6, 4]) }, [
      row('availability', 1, 600),
      row('calendars.busy', 2, 500),
      row('me', 0, 5_000),
    ]);
    expect(lines[1]).toContain('stalls a second over 1 ms: 20.0, 2 ms: 8.0, 3 ms: 4.0, 4 ms: 2.0');
    // p50 1 ms: stalls over 4 ms, (2 + 4) / 2 = 3 a second of 600 answers.
    expect(lines.find((line) => line.includes('label of availability'))).toContain('stalls over 4 ms alone: 0.5 % of them');
    // p50 2 ms: stalls over 3 ms, (4 + 6) / 2 = 5 a second of 500 answers.
    expect(lines.find((line) => line.includes('label of calendars.busy'))).toContain('stalls over 3 ms alone: 1.0 % of them');
    expect(lines.some((line) => line.includes('label of me'))).toBe(false);
  });
});
