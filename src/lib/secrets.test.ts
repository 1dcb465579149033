import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { describe, expect, it } from 'vitest';
import { generateToken, looksLikeToken } from './secrets.ts';

/** A token as minted before tokens carried a checksum: the prefix and 52 base32 characters. */
const legacyToken = (prefix: string) => `${prefix}${encodeBase32LowerCaseNoPadding(randomBytes(32))}`;

describe('tokens with a checksum', () => {
  it('mints prefixed tokens of 52 random and 7 checksum characters that pass the check', () => {
    const token = generateToken('pat_');
    expect(token).toMatch(/^pat_[a-z2-7]{59}$/);
    expect(looksLikeToken('pat_', token)).toBe(true);
    expect(generateToken('pat_')).not.toBe(token);
  });

  it('refuses a token whose checksum does not match, whichever character is wrong', () => {
    const token = generateToken('oat_');
    for (const position of [4, 30, token.length - 8, token.length - 1]) {
      const wrong = token.slice(0, position) + (token[position] === 'a' ? 'b' : 'a') + token.slice(position + 1);
      expect(looksLikeToken('oat_', wrong), wrong).toBe(false);
    }
    expect(looksLikeToken('oat_', `oat_${'a'.repeat(59)}`)).toBe(false);
  });

  it('refuses another prefix, a truncated or lengthened token, and characters outside base32', () => {
    const token = generateToken('pat_');
    expect(looksLikeToken('oat_', token)).toBe(false);
    expect(looksLikeToken('pat_', token.slice(0, -1))).toBe(false);
    expect(looksLikeToken('pat_', `${token}a`)).toBe(false);
    expect(looksLikeToken('pat_', token.toUpperCase().replace('PAT_', 'pat_'))).toBe(false);
  });

  it('still accepts the older form without a checksum (52 characters after the prefix)', () => {
    expect(looksLikeToken('pat_', legacyToken('pat_'))).toBe(true);
    expect(looksLikeToken('pat_', legacyToken('pat_').slice(0, -1))).toBe(false);
  });

  it('leaves unprefixed secrets (link keys) as 52 random characters', () => {
    expect(generateToken('')).toMatch(/^[a-z2-7]{52}$/);
  });
});
