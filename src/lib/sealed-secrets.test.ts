import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openWithRoot, SealedSecretError, type SealingPurpose, sealWithRoot } from './sealed-secrets.ts';

const ROOT = new Uint8Array(randomBytes(32));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3wC7Hc8qYzE=';
const PURPOSE: SealingPurpose = 'webhook-signing-secret';

/** The error `open` throws, checked to say nothing of the value it was given. */
function openingError(root: Uint8Array, purpose: SealingPurpose, sealed: string): SealedSecretError {
  try {
    openWithRoot(root, purpose, sealed);
  } catch (error) {
    expect(error).toBeInstanceOf(SealedSecretError);
    expect((error as Error).message).not.toContain(SECRET);
    expect((error as Error).message).not.toContain(sealed);
    return error as SealedSecretError;
  }
  throw new Error('it opened');
}

describe('sealed secrets', () => {
  it('opens what it sealed, and seals the same secret differently each time', () => {
    const first = sealWithRoot(ROOT, PURPOSE, SECRET);
    const second = sealWithRoot(ROOT, PURPOSE, SECRET);
    expect(first).toMatch(/^v1\.[\w-]{16}\.[\w-]+$/);
    expect(first).not.toContain('whsec_');
    expect(first).not.toBe(second);
    expect(openWithRoot(ROOT, PURPOSE, first)).toBe(SECRET);
    expect(openWithRoot(ROOT, PURPOSE, second)).toBe(SECRET);
  });

  it('refuses a value sealed under another root secret or for another purpose', () => {
    const sealed = sealWithRoot(ROOT, PURPOSE, SECRET);
    expect(openingError(new Uint8Array(randomBytes(32)), PURPOSE, sealed).message).toMatch(/another server secret/);
    expect(openingError(ROOT, 'calendar-credential' as SealingPurpose, sealed).message).toMatch(/cannot be opened/);
  });

  it('refuses an altered, truncated, clear or unknown-version value', () => {
    const sealed = sealWithRoot(ROOT, PURPOSE, SECRET);
    const [version, iv, body] = sealed.split('.') as [string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0]! ^= 1;
    expect(openingError(ROOT, PURPOSE, `${version}.${iv}.${flipped.toString('base64url')}`).message).toMatch(/altered/);
    expect(openingError(ROOT, PURPOSE, `${version}.${iv}.${body.slice(0, 8)}`).message).toMatch(/truncated/);
    expect(openingError(ROOT, PURPOSE, SECRET).message).toMatch(/not a sealed value/);
    expect(openingError(ROOT, PURPOSE, `v2.${iv}.${body}`).message).toMatch(/not a sealed value/);
  });
});
