import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { portableSchema } from './portable-schema.ts';

const ANY_VALUE = { anyOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })) };

describe('portableSchema', () => {
  it('splits a type list into anyOf branches of one type each, keeping the other keywords beside them', () => {
    expect(portableSchema({ type: ['string', 'null'], format: 'date-time', description: 'When.' })).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
      format: 'date-time',
      description: 'When.',
    });
    expect(portableSchema({ type: ['integer'] })).toEqual({ type: 'integer' });
    expect(portableSchema({ type: ['string', 'null'], anyOf: [{ minLength: 2 }, { const: null }] })).toEqual({
      anyOf: [{ minLength: 2 }, { const: null }],
      allOf: [{ anyOf: [{ type: 'string' }, { type: 'null' }] }],
    });
  });

  it('spells out "any value" where a schema constrains nothing, and true where a boolean is idiomatic', () => {
    expect(portableSchema({ type: 'object', properties: { data: {}, note: { description: 'Free text.' } } })).toEqual({
      type: 'object',
      properties: { data: ANY_VALUE, note: { description: 'Free text.', ...ANY_VALUE } },
    });
    expect(portableSchema({ type: 'object', additionalProperties: {} })).toEqual({ type: 'object', additionalProperties: true });
    expect(portableSchema({ not: {} })).toEqual({ not: {} });
  });

  it('replaces a bare true or false schema, but not additionalProperties: false', () => {
    expect(portableSchema({ type: 'object', properties: { a: true, b: false }, additionalProperties: false })).toEqual({
      type: 'object',
      properties: { a: ANY_VALUE, b: { not: {} } },
      additionalProperties: false,
    });
  });

  it('rewrites at every depth: items, $defs, unions', () => {
    const raw = z.toJSONSchema(
      z.object({ tags: z.array(z.string().nullable()), extra: z.record(z.string(), z.unknown()), pick: z.union([z.int(), z.null()]) }),
    ) as Record<string, unknown>;
    expect(JSON.stringify(portableSchema(raw))).not.toMatch(/"type":\[|:\{\}/);
  });

  it('leaves its input unchanged', () => {
    const input = { type: 'object', properties: { a: { type: ['string', 'null'] } } };
    const copy = structuredClone(input);
    portableSchema(input);
    expect(input).toEqual(copy);
  });

  it('accepts exactly the values the original accepts', () => {
    const validator = new AjvJsonSchemaValidator();
    const schemas: Record<string, unknown>[] = [
      { type: ['string', 'null'], minLength: 2 },
      { type: ['integer', 'null'], minimum: 0 },
      { type: 'array', items: { type: ['number', 'string'] } },
      { type: 'object', properties: { a: {}, b: true }, additionalProperties: {} },
      { type: 'object', properties: { a: { type: ['boolean', 'null'] } }, required: ['a'], additionalProperties: false },
      {},
    ];
    for (const schema of schemas) {
      const original = validator.getValidator(schema);
      const portable = validator.getValidator(portableSchema(schema));
      fc.assert(
        fc.property(fc.jsonValue(), (value) => original(value).valid === portable(value).valid),
        { examples: [[null], ['ab'], [3], [-1], [[1, 'x', null]], [{ a: null }], [{ a: true, b: 1 }], [{ c: 1 }]] },
      );
    }
  });
});
