import { describe, expect, it } from 'vitest';
import { findUnsafeInput, jsonNestsDeeperThan, MAX_INPUT_DEPTH } from './unsafe-text.ts';

describe('findUnsafeInput', () => {
  it('accepts ordinary text, emoji (surrogate pairs) included', () => {
    expect(findUnsafeInput({ name: 'Zoë 😀 日本', tags: ['a', 'b'], n: 1, ok: true, none: null })).toBeUndefined();
  });

  it.each([
    ['NUL', { a: { b: ['x', 'y\u0000'] } }, ['a', 'b', 1]],
    ['a lone high surrogate', { notes: 'half \uD83D' }, ['notes']],
    ['a lone low surrogate', ['\uDE00x'], [0]],
    ['a NUL in a key', { outer: { 'k\u0000': 1 } }, ['outer']],
  ])('finds %s with its path', (_label, value, path) => {
    expect(findUnsafeInput(value)).toMatchObject({ code: 'invalid_format', path });
  });

  it('stops at nesting deeper than the limit instead of overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(findUnsafeInput(deep)).toMatchObject({ code: 'too_big' });
  });
});

describe('jsonNestsDeeperThan', () => {
  const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

  it('counts arrays and objects, not brackets inside strings', () => {
    expect(jsonNestsDeeperThan(nested(MAX_INPUT_DEPTH), MAX_INPUT_DEPTH)).toBe(false);
    expect(jsonNestsDeeperThan(nested(MAX_INPUT_DEPTH + 1), MAX_INPUT_DEPTH)).toBe(true);
    expect(jsonNestsDeeperThan(`{"a":{"b":[1]}}`, 2)).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '[[[[{{{{' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: 'quote \\" then [[[[' }), 1)).toBe(false);
  });
});
