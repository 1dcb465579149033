import { describe, expect, it } from 'vitest';
import { attachRatios, calendarSyncVerdicts, evaluateTargets, type Measurement, median, medianOfRounds } from '../../bench/report/report.ts';

const measured = (work: string, surface: Measurement['surface'], rps: number, p50: number, p99: number): Measurement => ({
  work,
  label: `label of ${work}`,
  surface,
  rps,
  p50,
  p99,
});

describe('bench report', () => {
  it('takes the median of each figure over the rounds and sums the counts', () => {
    const round = (rps: number, cpu: number, p99Single: number, conflicts: number): Measurement[] => [
      { ...measured('me', 'baseline', 1000, 5, 20), serverCpuUs: 100 },
      {
        ...measured('me', 'rest', rps, 7, 30),
        serverCpuUs: cpu,
        p99Single,
        ok: 10,
        non2xx: conflicts,
        statusCodes: { '200': 10, '409': conflicts },
      },
    ];
    const [base, rest] = medianOfRounds([round(900, 150, 9, 0), round(300, 400, 3, 1), round(800, 160, 4, 0)]);
    expect(base).toMatchObject({ rps: 1000, serverCpuUs: 100, rounds: 3 });
    expect(rest).toMatchObject({ rps: 800, serverCpuUs: 160, p99Single: 4, ok: 30, non2xx: 1, statusCodes: { '200': 30, '409': 1 } });
  });

  it('reports a surface skipped in any round as skipped', () => {
    const skipped: Measurement = { work: 'me', label: 'label of me', surface: 'mcp', skipped: 'probe failed' };
    const [combined] = medianOfRounds([[measured('me', 'mcp', 100, 1, 2)], [skipped]]);
    expect(combined).toEqual(skipped);
  });

  it('takes the mean of the two middle values for an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('divides each surface by the baseline of the same work, and only that', () => {
    const ms = [
      measured('me', 'baseline', 1000, 5, 20),
      measured('me', 'rest', 700, 7, 30),
      measured('leads', 'rest', 300, 10, 40),
    ];
    attachRatios(ms);
    expect(ms[1]!.ratio).toBeCloseTo(0.7);
    expect(ms[0]!.ratio).toBeUndefined();
    expect(ms[2]!.ratio).toBeUndefined();
  });

  it('judges the targets: ratio, p99, contacts p50, deep pages, 409s', () => {
    const ms = [
      measured('me', 'baseline', 1000, 5, 20),
      measured('me', 'rest', 500, 9, 120),
      measured('contacts.first', 'rest', 400, 49, 90),
      measured('bookings.first', 'rest', 400, 10, 50),
      measured('bookings.deep', 'rest', 350, 11, 60),
      { ...measured('bookings.create', 'rest', 100, 30, 80), statusCodes: { '201': 900, '409': 2 } },
    ];
    attachRatios(ms);
    const missed = evaluateTargets(ms)
      .filter((v) => !v.met)
      .map((v) => `${v.target} | ${v.subject}`);
    expect(missed).toEqual([
      'throughput ≥ 0.8 × baseline | label of me [rest]',
      'p99 ≤ 100 ms | label of me [rest]',
      'deep page ≥ 0.9 × first page throughput | GET /bookings [rest]',
      'no 409 when every POST books a distinct slot | label of bookings.create [rest]',
    ]);
  });

  it('judges an MCP tools/call by its node CPU against the same REST call (at most 1.3 times)', () => {
    const ms = [
      { ...measured('me', 'rest', 700, 7, 30), serverCpuUs: 400 },
      { ...measured('me', 'mcp', 600, 8, 30), serverCpuUs: 480 },
      { ...measured('bookings.first', 'rest', 400, 10, 50), serverCpuUs: 1000 },
      { ...measured('bookings.first', 'mcp', 300, 12, 60), serverCpuUs: 1400 },
    ];
    const verdicts = evaluateTargets(ms).filter((v) => v.target.startsWith('node CPU'));
    expect(verdicts.map((v) => [v.subject, v.value, v.met])).toEqual([
      ['label of me [mcp]', '1.20 (480 vs 400 µs)', true],
      ['label of bookings.first [mcp]', '1.40 (1400 vs 1000 µs)', false],
    ]);
  });

  it('judges node CPU (at most 1.5 times) and PostgreSQL CPU (at most 1.2 times) per request against the baseline', () => {
    const ms = [
      { ...measured('me', 'baseline', 1000, 5, 20), serverCpuUs: 200, databaseCpuUs: 300 },
      { ...measured('me', 'rest', 900, 6, 25), serverCpuUs: 290, databaseCpuUs: 370 },
      { ...measured('me', 'trpc', 800, 7, 30), serverCpuUs: 310, databaseCpuUs: 360 },
      { ...measured('leads', 'rest', 300, 10, 40), serverCpuUs: 5000, databaseCpuUs: 5000 },
    ];
    attachRatios(ms);
    const verdicts = evaluateTargets(ms).filter((v) => v.target.includes('CPU per request'));
    expect(verdicts.map((v) => [v.target, v.subject, v.value, v.met])).toEqual([
      ['node CPU per request ≤ 1.5 × baseline', 'label of me [rest]', '1.45 (290 vs 200 µs)', true],
      ['PostgreSQL CPU per request ≤ 1.2 × baseline', 'label of me [rest]', '1.23 (370 vs 300 µs)', false],
      ['node CPU per request ≤ 1.5 × baseline', 'label of me [trpc]', '1.55 (310 vs 200 µs)', false],
      ['PostgreSQL CPU per request ≤ 1.2 × baseline', 'label of me [trpc]', '1.20 (360 vs 300 µs)', true],
    ]);
  });

  it('judges a host with calendars against the same host without, surface by surface, and its p99 at one connection', () => {
    const ms = [
      { ...measured('calendars.bare', 'rest', 900, 2, 4), serverCpuUs: 1000 },
      { ...measured('calendars.booked', 'rest', 900, 2, 4), serverCpuUs: 800 },
      { ...measured('calendars.busy', 'rest', 850, 2, 4), serverCpuUs: 1000, p99Single: 4.5 },
      { ...measured('calendars.booked', 'trpc', 900, 2, 4), serverCpuUs: 800 },
      { ...measured('calendars.busy', 'trpc', 850, 2, 4), serverCpuUs: 900, p99Single: 5 },
      { ...measured('calendars.rr50', 'rest', 200, 10, 30), p99Single: 49 },
    ];
    const verdicts = evaluateTargets(ms).filter((v) => v.subject.includes('calendars.') && !v.target.startsWith('p99 ≤'));
    expect(verdicts.map((v) => [v.target, v.subject, v.value, v.met])).toEqual([
      [
        'node CPU per call ≤ 1.2 × the same host without calendars (same busy time, as bookings)',
        'label of calendars.busy [rest]',
        '1.25 (1000 vs 800 µs)',
        false,
      ],
      ['node CPU per call ≤ 1.2 × the same host without calendars or bookings', 'label of calendars.busy [rest]', '1.00 (1000 vs 1000 µs)', true],
      ['p99 at 1 connection < 5 ms', 'label of calendars.busy [rest]', '4.5 ms', true],
      [
        'node CPU per call ≤ 1.2 × the same host without calendars (same busy time, as bookings)',
        'label of calendars.busy [trpc]',
        '1.13 (900 vs 800 µs)',
        true,
      ],
      ['p99 at 1 connection < 5 ms', 'label of calendars.busy [trpc]', '5 ms', false],
      ['p99 at 1 connection < 50 ms', 'label of calendars.rr50 [rest]', '49 ms', true],
    ]);
  });

  it("judges a calendar sync by the service's CPU, at most 1 s, and shows PostgreSQL's beside it", () => {
    const judged = (serverCpuMs: number, databaseCpuMs?: number) =>
      calendarSyncVerdicts({ serverCpuMs, ...(databaseCpuMs === undefined ? {} : { databaseCpuMs }), events: 5000, series: 200 });
    expect(judged(640, 120)).toEqual([
      { target: 'service CPU per sync ≤ 1000 ms', subject: 'calendar sync, 5,000 events, 200 recurring series', value: '640 ms; PostgreSQL 120 ms', met: true },
    ]);
    expect(judged(1001)[0]).toMatchObject({ value: '1001 ms', met: false });
  });
});
