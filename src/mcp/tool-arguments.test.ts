import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentProblems } from './tool-arguments.ts';

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  archived: z.coerce.boolean().optional(),
  name: z.string().optional(),
  window: z.object({ days: z.coerce.number().optional() }).optional(),
  sizes: z.array(z.coerce.number()).optional(),
  label: z.coerce.string().optional(),
});

describe('argumentProblems', () => {
  it('admits JSON numbers and booleans where the schema would coerce, and leaves the rest to the schema', () => {
    expect(argumentProblems(Query, {})).toEqual([]);
    expect(argumentProblems(Query, { limit: 10, archived: false, name: '10', window: { days: 1e1 }, sizes: [1, 2], label: 'x' })).toEqual([]);
    // Not an object at all, or a field of the wrong shape: the schema's own errors.
    expect(argumentProblems(Query, 'x')).toEqual([]);
    expect(argumentProblems(Query, { window: 'x', sizes: 3 })).toEqual([]);
    expect(argumentProblems(z.object({ limit: z.number() }), { limit: '10' })).toEqual([]);
  });

  it('refuses what would pass only by coercion, wherever it is, with the path to it', () => {
    const problems = argumentProblems(Query, {
      limit: '0x10',
      archived: 'false',
      window: { days: '1e1' },
      sizes: [1, true],
      label: 5,
    });
    expect(problems.map((problem) => problem.path)).toEqual([['limit'], ['archived'], ['window', 'days'], ['sizes', 1], ['label']]);
    expect(problems.every((problem) => problem.code === 'invalid_type')).toBe(true);
    expect(problems[0]!.message).toMatch(/^must be a number/);
    expect(problems[1]!.message).toMatch(/^must be true or false/);
    for (const limit of [true, '10', '1e1', null]) expect(argumentProblems(Query, { limit })).toHaveLength(1);
  });

  it('refuses names that are not arguments of the tool, unless its schema admits any', () => {
    expect(argumentProblems(Query, { limit: 5, foo: 1, __proto__x: 2 })).toEqual([
      { code: 'unrecognized_keys', path: ['foo'], message: 'is not an argument of this tool' },
      { code: 'unrecognized_keys', path: ['__proto__x'], message: 'is not an argument of this tool' },
    ]);
    // Through refinements and transforms to the object underneath; nested objects are the schema's own business.
    const refined = Query.superRefine(() => {}).transform((query) => query);
    expect(argumentProblems(refined, { foo: 1 }).map((problem) => problem.path)).toEqual([['foo']]);
    expect(argumentProblems(Query, { window: { foo: 1 } })).toEqual([]);
    expect(argumentProblems(z.looseObject({ a: z.string() }), { foo: 1 })).toEqual([]);
    expect(argumentProblems(z.strictObject({ a: z.string() }), { foo: 1 })).toHaveLength(1);
  });
});
