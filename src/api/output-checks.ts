import { isDeepStrictEqual } from 'node:util';
import { TRPCError } from '@trpc/server';
import type { AnyRouter } from '@trpc/server';
import type { z } from 'zod';

/**
 * Where a response is held to its declared output schema: `strict` in tests and development (a response the parse
 * would change, such as an undeclared field, is a 500, so the tests prove no stray key reaches a client); `off` in
 * production, where the parse finds nothing the tests did not and costs much (docs/performance.md, "Output checks").
 * tRPC's own `.output()` check strips silently and would hide a leaking mapper, so it is replaced here on every
 * procedure; the schema stays on the procedure for the OpenAPI document, the MCP tools and the types.
 */
export type OutputChecks = 'strict' | 'off';

type Middleware = ((opts: { next: () => Promise<MiddlewareResult> }) => Promise<MiddlewareResult>) & { _type?: string };
type MiddlewareResult = { ok: true; data: unknown } | { ok: false };
interface ProcedureDef {
  output?: z.ZodType;
  middlewares: Middleware[];
}

/** tRPC's marker on the middleware `.output()` adds (also what trpc-to-openapi relies on to find output schemas). */
const TRPC_OUTPUT_MIDDLEWARE = 'output';

/** Where each procedure's output check sits in its middleware list, found on the first call (a later call may switch modes). */
const outputSlots = new WeakMap<ProcedureDef, { index: number; present: boolean }>();

/** Sets `mode` on every procedure of `router`; the process's one router is shared by every door (and every app a test builds). */
export function applyOutputChecks(router: AnyRouter, mode: OutputChecks): void {
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, { _def: ProcedureDef }>)) {
    const def = procedure._def;
    if (!def.output) continue;
    const slot = outputSlots.get(def) ?? findOutputSlot(path, def);
    outputSlots.set(def, slot);
    if (slot.present) def.middlewares.splice(slot.index, 1);
    if (mode === 'strict') def.middlewares.splice(slot.index, 0, strictOutputCheck(path, def.output));
    slot.present = mode === 'strict';
  }
}

function findOutputSlot(path: string, def: ProcedureDef): { index: number; present: boolean } {
  const index = def.middlewares.findIndex((middleware) => middleware._type === TRPC_OUTPUT_MIDDLEWARE);
  if (index === -1) throw new Error(`${path}: no output middleware found; has tRPC changed how .output() works?`);
  return { index, present: true };
}

function strictOutputCheck(path: string, schema: z.ZodType): Middleware {
  const check: Middleware = async ({ next }) => {
    const result = await next();
    if (!result.ok) return result;
    const parsed = await schema.safeParseAsync(result.data);
    const problem = !parsed.success
      ? parsed.error.message
      : isDeepStrictEqual(parsed.data, result.data)
        ? undefined
        : `the schema would change it: ${JSON.stringify(firstDifference(result.data, parsed.data))}`;
    if (problem === undefined) return result;
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: `Output of ${path} does not match its schema: ${problem}` });
  };
  check._type = TRPC_OUTPUT_MIDDLEWARE;
  return check;
}

/** Where two JSON-like values first differ (path and both sides), for a failure message a developer can act on. */
export function firstDifference(actual: unknown, declared: unknown, path: string[] = []): object | undefined {
  if (isDeepStrictEqual(actual, declared)) return undefined;
  if (isRecord(actual) && isRecord(declared)) {
    for (const key of new Set([...Object.keys(actual), ...Object.keys(declared)])) {
      if (!(key in declared)) return { path: [...path, key], undeclared: true };
      const difference = firstDifference(actual[key], declared[key], [...path, key]);
      if (difference) return difference;
    }
  }
  return { path, returned: actual, declared };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
