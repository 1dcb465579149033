import type { EntityManager } from '@mikro-orm/postgresql';
import { executeOnce, executePrepared } from './prepared-sql.ts';

/**
 * A data-modifying statement that can share one round trip with others: its common table expressions and its
 * final statement, each named through `as` so that two writes of one kind in a batch do not collide. A
 * transaction holding its hosts' locks pays for every round trip, and the writes after a booking are independent.
 */
export interface SqlWrite {
  label: string;
  build(as: (cte: string) => string): { ctes?: ReadonlyArray<readonly [name: string, sql: string]>; statement: string };
  /** In text order: the expressions' parameters, then the statement's. */
  params: readonly unknown[];
}

/**
 * Runs the writes as ONE statement, each as data-modifying expressions of a WITH. They share one snapshot and
 * none sees another's changes, so a batch holds only writes that do not read what another writes.
 */
export async function runWrites(tx: EntityManager, writes: readonly SqlWrite[], { prepare = true } = {}): Promise<void> {
  if (writes.length === 0) return;
  const parts: string[] = [];
  writes.forEach((write, index) => {
    const as = writes.length === 1 ? (cte: string) => cte : (cte: string) => `${cte}_${index}`;
    const { ctes = [], statement } = write.build(as);
    for (const [name, sql] of ctes) parts.push(`${name} as (${sql})`);
    parts.push(writes.length === 1 ? statement : `${as('write')} as (${statement})`);
  });
  // One write keeps its statement last; several each become an expression, and the statement selects nothing.
  const expressions = writes.length === 1 ? parts.slice(0, -1) : parts;
  const last = writes.length === 1 ? parts.at(-1)! : 'select 1';
  const sql = expressions.length === 0 ? last : `with ${expressions.join(',\n')}\n${last}`;
  const params = writes.flatMap((write) => write.params);
  if (!prepare) await executeOnce(tx, sql, params);
  else await executePrepared(tx, writes.map((write) => write.label).join('+'), sql, params);
}

/**
 * Writes gathered in list order, run together by `flush` (MAX_WRITES_PER_STATEMENT a statement). A write equal
 * to one already gathered (the same label and parameters: the invitee's contact, recomputed after each occurrence
 * of a series) is kept once, as two expressions of one statement must not change the same row. `prepare: false` for a batch whose text varies
 * from call to call (one expression per occurrence of a series): see executeOnce.
 */
export class WriteBatch {
  private readonly writes: SqlWrite[] = [];
  private readonly prepare: boolean;

  constructor({ prepare = true } = {}) {
    this.prepare = prepare;
  }

  add(write: SqlWrite | undefined): void {
    if (write && !this.writes.some((kept) => sameWrite(kept, write))) this.writes.push(write);
  }

  async flush(tx: EntityManager): Promise<void> {
    while (this.writes.length > 0) await runWrites(tx, this.writes.splice(0, MAX_WRITES_PER_STATEMENT), { prepare: this.prepare });
  }
}

/**
 * PostgreSQL's planning of one statement grows faster than its expressions: a series' 105 writes (52 occurrences)
 * took 140 ms as one statement, about 10 ms a statement in batches of 24. A booking's few writes stay together.
 */
const MAX_WRITES_PER_STATEMENT = 24;

function sameWrite(a: SqlWrite, b: SqlWrite): boolean {
  return a.label === b.label && a.params.length === b.params.length && a.params.every((param, i) => param === b.params[i]);
}
