import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyProblems, canonicalPath, queryStringProblems, type RestOperation, unexpectedBodyProblems } from './rest-input.ts';

const operation: RestOperation = {
  query: new Map([
    ['q', 'string'],
    ['limit', 'integer'],
  ]),
  takesBody: false,
};
const paths = (query: string) => queryStringProblems(query, operation).map((problem) => problem.path.join('.'));

describe('queryStringProblems', () => {
  it('accepts well-formed parameters, "+" as a space and an empty pair', () => {
    expect(paths('q=ada+lovelace&limit=5&')).toEqual([]);
    expect(paths('q=%C3%A9t%C3%A9')).toEqual([]);
  });

  it('names each bad parameter once', () => {
    expect(paths('q=&limit=0x10')).toEqual(['q', 'limit']);
    expect(paths('limit[]=5&durationMin=60')).toEqual(['limit[]', 'durationMin']);
    expect(paths('q=%FF')).toEqual(['q']);
    expect(paths('q=%ZZ')).toEqual(['q']);
    expect(paths('q=a&q=b')).toEqual(['q']);
    expect(paths('limit')).toEqual(['limit']);
  });
});

describe('canonicalPath', () => {
  it('decodes what need not be encoded and keeps encoded what must stay so', () => {
    expect(canonicalPath('/api/v2/bookings/%38ab-c')).toBe('/api/v2/bookings/8ab-c');
    expect(canonicalPath('/api/v2/bookings/a%2Fb')).toBe('/api/v2/bookings/a%2Fb');
    expect(canonicalPath('/api/v2/bookings/%00')).toBe('/api/v2/bookings/%00');
    expect(canonicalPath('/api/v2/bookings/a+b')).toBe('/api/v2/bookings/a+b');
    expect(canonicalPath('/api/v2/bookings/a%2Bb%3A')).toBe('/api/v2/bookings/a+b:');
    expect(canonicalPath('/api/v2/bookings/%E2%82%AC%20x')).toBe('/api/v2/bookings/%E2%82%AC%20x');
  });
});

describe('canonicalPath on a path it takes as it is', () => {
  it('gives what decoding and re-encoding each segment gives', () => {
    const slow = (path: string) => canonicalPath(`${path}%41`).slice(0, -1);
    const text = fc.string({ unit: fc.constantFrom(...'aZ09-_.~!*\'()+:@$&=,;/ "#<>[]\\^`{|}é'), maxLength: 12 });
    fc.assert(fc.property(text, (path) => {
        expect(canonicalPath(path)).toBe(slow(path));
      }), { numRuns: 3000 });
  });
});

describe('bodyProblems', () => {
  it('refuses a body that is not an object, and a path parameter given again in the body', () => {
    expect(bodyProblems([], ['id'])).toEqual([{ code: 'invalid_type', path: [], message: 'The request body must be a JSON object.' }]);
    expect(bodyProblems({ id: 'other', name: 'x' }, ['id']).map((problem) => problem.path)).toEqual([['id']]);
    expect(bodyProblems({ name: 'x' }, ['id'])).toEqual([]);
  });
});

describe('unexpectedBodyProblems', () => {
  it('accepts {} alone and names every key of any other object', () => {
    expect(unexpectedBodyProblems({})).toEqual([]);
    expect(unexpectedBodyProblems({ evil: 1, id: 'x' }).map((problem) => problem.path)).toEqual([['evil'], ['id']]);
  });

  it.each([false, null, 0, 'x', [], [{}]])('refuses %j as a whole', (body) => {
    expect(unexpectedBodyProblems(body)).toEqual([{ code: 'invalid_type', path: [], message: expect.stringContaining('takes no request body') }]);
  });
});
