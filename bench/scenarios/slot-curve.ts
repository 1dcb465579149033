/**
 * `npm run bench -- --curve`: what one availability call costs as teams grow, in-process (no HTTP, no auth):
 * the service's own getAvailabilityFor (one statement for hosts, schedules and busy time, the slot engine,
 * the written slots) called back to back for 31 days, round robin and collective, against the number of
 * hosts (100 bookings each) and against the bookings per host (10 hosts). Node CPU from process.cpuUsage,
 * PostgreSQL CPU from /proc, both per call.
 */
import { performance } from 'node:perf_hooks';
import { initOrm } from '../../src/db/orm.ts';
import { findEventType, getAvailabilityFor } from '../../src/modules/availability/availability.service.ts';
import type { BenchFixture } from '../dataset/fixture.ts';
import { TEAM_BOOKINGS, TEAM_SIZES, type TeamKind, teamEventTypeId } from '../dataset/teams.ts';

interface Point {
  kind: TeamKind;
  hosts: number;
  bookings: number;
}

const CURVE_BOOKINGS = 100;
const CURVE_HOSTS = 10;

export async function slotCurve(
  dbUrl: string,
  fixture: BenchFixture,
  databaseCpu: () => number | undefined,
  secondsPerPoint: number,
): Promise<string> {
  const points: Point[] = (['round_robin', 'collective'] as const).flatMap((kind) => [
    ...TEAM_SIZES.map((hosts) => ({ kind, hosts, bookings: CURVE_BOOKINGS })),
    ...TEAM_BOOKINGS.filter((bookings) => bookings !== CURVE_BOOKINGS).map((bookings) => ({ kind, hosts: CURVE_HOSTS, bookings })),
  ]);
  const orm = await initOrm(dbUrl, { poolMax: 2 });
  const lines = [
    '| Kind | Hosts | Bookings per host | Slots | Calls | p50 ms | p99 ms | node CPU µs/call | PostgreSQL CPU µs/call |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  try {
    for (const point of points) {
      const eventType = await findEventType(orm.em.fork(), teamEventTypeId(point.kind, point.hosts, point.bookings));
      if (!eventType) throw new Error(`bench teams: no event type for ${JSON.stringify(point)}`);
      const input = { eventTypeId: eventType.id, from: fixture.availability.windowFrom, to: fixture.availability.windowTo };
      const call = () => getAvailabilityFor(orm.em.fork(), eventType, input, new Date());
      for (let i = 0; i < 10; i++) await call();
      const times: number[] = [];
      let slots = 0;
      const cpu = process.cpuUsage();
      const database = databaseCpu();
      const end = performance.now() + secondsPerPoint * 1000;
      while (performance.now() < end) {
        const t0 = performance.now();
        slots = (await call()).data.length;
        times.push(performance.now() - t0);
      }
      const used = process.cpuUsage(cpu);
      const databaseAfter = databaseCpu();
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
      const pg = database === undefined || databaseAfter === undefined ? '' : Math.round((databaseAfter - database) / times.length);
      lines.push(
        `| ${point.kind === 'round_robin' ? 'round robin' : 'collective'} | ${point.hosts} | ${point.bookings} | ${slots} | ${times.length} | ${at(0.5)} | ${at(0.99)} | ${Math.round((used.user + used.system) / times.length)} | ${pg} |`,
      );
    }
  } finally {
    await orm.close();
  }
  return lines.join('\n');
}
