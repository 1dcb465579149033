import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonStringLiteral } from './json-string-literal.ts';

const literal = (value: unknown) => jsonStringLiteral(Buffer.from(JSON.stringify(value))).toString();

describe('jsonStringLiteral', () => {
  it('writes what JSON.stringify writes for the JSON text of any value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        expect(literal(value)).toBe(JSON.stringify(JSON.stringify(value)));
        // Any string, lone surrogates and control characters included, once JSON.stringify has written it.
        expect(literal(text)).toBe(JSON.stringify(JSON.stringify(text)));
      }),
      { numRuns: 500 },
    );
  });

  it('escapes quotes and backslashes and leaves the rest, multi-byte characters included', () => {
    expect(literal({ a: 'say "hi" \\ ☃ \u2028 \ud800 \n' })).toBe(String.raw`"{\"a\":\"say \\\"hi\\\" \\\\ ☃ ` + '\u2028' + String.raw` \\ud800 \\n\"}"`);
    expect(JSON.parse(literal({ a: '"' }))).toBe('{"a":"\\""}');
  });
});
