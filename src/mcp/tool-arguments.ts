import type { z } from 'zod';
import type { ErrorDetail } from '../lib/errors.ts';

type Def = {
  type: string;
  coerce?: boolean;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
};

/** The JSON type a coercing field's argument must already have, and how to say so. */
const EXPECTED: Record<string, { type: string; message: string }> = {
  number: { type: 'number', message: 'must be a number (a JSON number, not a string or a boolean)' },
  boolean: { type: 'boolean', message: 'must be true or false (a JSON boolean)' },
  string: { type: 'string', message: 'must be a string' },
};

/**
 * What a tool's arguments get wrong that its procedure's schema would let through, where REST refuses it: names
 * that are not arguments of the tool (REST refuses unknown query parameters and body fields), and values that
 * would pass only by coercion (see coercedArgumentProblems).
 */
export function argumentProblems(schema: z.ZodType, args: unknown): ErrorDetail[] {
  return [...unknownArgumentProblems(schema, args), ...coercedArgumentProblems(schema, args)];
}

/** The top-level names of `args` that `schema`'s object does not declare (unless it admits any). */
function unknownArgumentProblems(schema: z.ZodType, args: unknown): ErrorDetail[] {
  let def = defOf(schema);
  while (def.type !== 'object' && (def.innerType ?? def.in)) def = defOf((def.innerType ?? def.in)!);
  const admitsAny = def.catchall !== undefined && defOf(def.catchall).type !== 'never';
  if (def.type !== 'object' || !def.shape || admitsAny || !isPlainObject(args)) return [];
  const shape = def.shape;
  return Object.keys(args)
    .filter((name) => !Object.hasOwn(shape, name))
    .map((name) => ({ code: 'unrecognized_keys', path: [name], message: 'is not an argument of this tool' }));
}

/**
 * Where `value` would pass `schema` only by coercion. The REST adapter makes the number and boolean fields of a
 * query operation's input coerce strings (a query string has nothing else; REST's own check admits decimal digits
 * only), and the schema is shared with the tools. Tool arguments are JSON, which writes numbers and booleans as
 * such: `"0x10"`, `"1e1"` or `true` for a number is refused here, where zod would read it as 16, 10 or 1.
 */
function coercedArgumentProblems(schema: z.ZodType, value: unknown, path: (string | number)[] = []): ErrorDetail[] {
  if (value === undefined) return [];
  const def = defOf(schema);
  if (def.coerce === true) {
    const expected = EXPECTED[def.type];
    return expected && typeof value !== expected.type ? [{ code: 'invalid_type', path, message: expected.message }] : [];
  }
  if (def.type === 'object' && def.shape && isPlainObject(value)) {
    return Object.entries(def.shape).flatMap(([key, child]) => coercedArgumentProblems(child, value[key], [...path, key]));
  }
  if (def.type === 'array' && def.element && Array.isArray(value)) {
    const element = def.element;
    return value.flatMap((item, index) => coercedArgumentProblems(element, item, [...path, index]));
  }
  const inner = def.innerType ?? def.in;
  return inner ? coercedArgumentProblems(inner, value, path) : [];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
