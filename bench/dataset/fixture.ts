/** What a built data set hands the scenarios (ids and tokens of its users), and its deterministic ids. */
import { createHash } from 'node:crypto';

export interface BenchUser {
  id: string;
  token: string;
  eventTypeIds: string[];
}

export interface BenchFixture {
  version: string;
  builtAt: string;
  buildSeconds: number;
  heavy: BenchUser;
  availability: BenchUser & { timezone: string; windowFrom: string; windowTo: string };
  booker: BenchUser & { timezone: string; durationMin: number; firstStart: string };
  counts: Record<string, number>;
}

export const userIdOf = (seq: number): string => md5Uuid(`bench-user-${seq}`);
export const eventTypeIdOf = (seq: number, n: number): string => md5Uuid(`bench-et-${seq}-${n}`);

/** The same value as PostgreSQL's md5(text)::uuid::text. */
function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
