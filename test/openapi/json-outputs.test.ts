import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../../src/router/root.ts';

interface ProcedureLike {
  _def: { output?: unknown };
}

/**
 * /trpc sends outputs as plain JSON in superjson's envelope (src/api/trpc.ts), which is lossless only while every
 * output schema is JSON: zod refuses to describe a Date, Map, Set, BigInt or undefined value in JSON Schema.
 * A void output (no body, e.g. a DELETE's 204) is the one exception: `{json: undefined}` deserializes to undefined too.
 */
describe('procedure outputs', () => {
  const procedures = Object.entries((appRouter._def as unknown as { procedures: Record<string, ProcedureLike> }).procedures);

  it('are found', () => {
    expect(procedures.filter(([, p]) => p._def.output).length).toBeGreaterThan(20);
  });

  const isVoid = (schema: unknown) => (schema as z.ZodType)._zod.def.type === 'void';

  it.each(procedures.filter(([, p]) => p._def.output && !isVoid(p._def.output)))('%s has a JSON-only output schema', (_path, procedure) => {
    expect(() => z.toJSONSchema(procedure._def.output as z.ZodType, { io: 'output', unrepresentable: 'throw' })).not.toThrow();
  });
});
