import { describe, expect, it } from 'vitest';
import { isValidPkceValue, s256Challenge, verifyS256 } from './pkce.ts';

describe('PKCE S256', () => {
  it('computes the RFC 7636 Appendix B challenge', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(s256Challenge(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifyS256(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it('refuses a verifier that does not hash to the challenge', () => {
    expect(verifyS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXK', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(
      false,
    );
    expect(verifyS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'short')).toBe(false);
  });

  it('accepts 43 to 128 unreserved characters and nothing else', () => {
    expect(isValidPkceValue('a'.repeat(43))).toBe(true);
    expect(isValidPkceValue(`${'A1-._~'.repeat(21)}xy`)).toBe(true);
    expect(isValidPkceValue('a'.repeat(42))).toBe(false);
    expect(isValidPkceValue('a'.repeat(129))).toBe(false);
    expect(isValidPkceValue(`${'a'.repeat(42)}+`)).toBe(false);
    expect(isValidPkceValue(`${'a'.repeat(42)}=`)).toBe(false);
    expect(isValidPkceValue(`${'a'.repeat(42)}é`)).toBe(false);
  });
});
