import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { describe, expect, it } from 'vitest';
import { type CursorBinding, decodeCursor, encodeCursor } from './cursor.ts';
import { DomainError } from './errors.ts';

const secret = new Uint8Array(32).fill(7);
const otherSecret = new Uint8Array(32).fill(8);
const binding: CursorBinding = {
  resource: 'bookings',
  userId: 'user-1',
  filter: { status: 'active', from: '2026-01-01T00:00:00.000Z', to: undefined },
};
const position = { key: '2026-03-01T09:00:00.123456Z', id: '6f1c2a7e-0000-4000-8000-000000000001' };

function expectInvalid(run: () => unknown): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DomainError);
  const error = caught as DomainError;
  expect(error.code).toBe('invalid_request');
  expect(error.details).toEqual([{ code: 'invalid_cursor', path: ['cursor'], message: expect.any(String) }]);
}

describe('paging cursors', () => {
  it('round-trips the position for the same binding', () => {
    const cursor = encodeCursor(secret, binding, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(secret, binding, cursor)).toEqual(position);
  });

  it('does not depend on the order in which filters are listed, nor on unset ones', () => {
    const cursor = encodeCursor(secret, binding, position);
    const reordered: CursorBinding = {
      resource: 'bookings',
      userId: 'user-1',
      filter: { from: '2026-01-01T00:00:00.000Z', status: 'active', to: null, extra: undefined },
    };
    expect(decodeCursor(secret, reordered, cursor)).toEqual(position);
  });

  it('is opaque: the id is not readable in the cursor text', () => {
    const cursor = encodeCursor(secret, binding, position);
    expect(cursor).not.toContain(position.id);
  });

  it('rejects a cursor issued to another user', () => {
    const cursor = encodeCursor(secret, binding, position);
    expectInvalid(() => decodeCursor(secret, { ...binding, userId: 'user-2' }, cursor));
  });

  it('rejects a cursor reused with a different filter, an added filter or a removed one', () => {
    const cursor = encodeCursor(secret, binding, position);
    expectInvalid(() => decodeCursor(secret, { ...binding, filter: { ...binding.filter, status: 'canceled' } }, cursor));
    expectInvalid(() =>
      decodeCursor(secret, { ...binding, filter: { ...binding.filter, to: '2026-02-01T00:00:00.000Z' } }, cursor),
    );
    expectInvalid(() => decodeCursor(secret, { ...binding, filter: { status: 'active' } }, cursor));
  });

  it('rejects a cursor of another list', () => {
    const cursor = encodeCursor(secret, binding, position);
    expectInvalid(() => decodeCursor(secret, { ...binding, resource: 'leads' }, cursor));
  });

  it('rejects a cursor signed with another secret', () => {
    const cursor = encodeCursor(otherSecret, binding, position);
    expectInvalid(() => decodeCursor(secret, binding, cursor));
  });

  it('rejects every single-byte change of the payload or the tag', () => {
    const cursor = encodeCursor(secret, binding, position);
    const bytes = decodeBase64urlIgnorePadding(cursor);
    for (let i = 0; i < bytes.length; i++) {
      const tampered = new Uint8Array(bytes);
      tampered[i] = (tampered[i] ?? 0) ^ 0x01;
      expectInvalid(() => decodeCursor(secret, binding, encodeBase64urlNoPadding(tampered)));
    }
  });

  it('rejects a forged payload carrying the original tag', () => {
    const cursor = encodeCursor(secret, binding, position);
    const bytes = decodeBase64urlIgnorePadding(cursor);
    const tag = bytes.subarray(bytes.length - 32);
    const forgedPayload = new TextEncoder().encode(JSON.stringify(['2000-01-01T00:00:00.000000Z', position.id]));
    const forged = new Uint8Array(1 + forgedPayload.length + 32);
    forged[0] = 1;
    forged.set(forgedPayload, 1);
    forged.set(tag, 1 + forgedPayload.length);
    expectInvalid(() => decodeCursor(secret, binding, encodeBase64urlNoPadding(forged)));
  });

  it('rejects changed text, truncation, extra characters, padding and other alphabets', () => {
    const cursor = encodeCursor(secret, binding, position);
    const last = cursor.at(-1);
    for (const replacement of ['A', 'B', 'g', 'Q', 'w']) {
      if (replacement === last) continue;
      expectInvalid(() => decodeCursor(secret, binding, `${cursor.slice(0, -1)}${replacement}`));
    }
    expectInvalid(() => decodeCursor(secret, binding, cursor.slice(0, -1)));
    expectInvalid(() => decodeCursor(secret, binding, cursor.slice(0, -4)));
    expectInvalid(() => decodeCursor(secret, binding, `${cursor}A`));
    expectInvalid(() => decodeCursor(secret, binding, `${cursor}=`));
    expectInvalid(() => decodeCursor(secret, binding, `${cursor.replaceAll('-', '+').replaceAll('_', '/')}+/`));
    expectInvalid(() => decodeCursor(secret, binding, 'not a cursor!'));
    expectInvalid(() => decodeCursor(secret, binding, ''));
    expectInvalid(() => decodeCursor(secret, binding, 'AQ'));
  });

  it('keeps positions whose id or key contain unusual characters intact', () => {
    const odd = { key: '1999-12-31T23:59:59.999999Z', id: 'ïd "quoted" \\ ✓' };
    expect(decodeCursor(secret, binding, encodeCursor(secret, binding, odd))).toEqual(odd);
  });
});
