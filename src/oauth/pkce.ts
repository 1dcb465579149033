import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/** RFC 7636 §4.1/§4.2: code-verifier and code-challenge are 43*128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The only method we accept; "plain" gives no protection once the authorization request leaks. */
export const CODE_CHALLENGE_METHODS = ['S256'] as const;

export function isValidPkceValue(value: string): boolean {
  return PKCE_VALUE.test(value);
}

/** BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) — RFC 7636 §4.2. */
export function s256Challenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}

/** Whether the verifier matches the stored S256 challenge, compared in constant time. */
export function verifyS256(verifier: string, challenge: string): boolean {
  const expected = new TextEncoder().encode(challenge);
  const actual = new TextEncoder().encode(s256Challenge(verifier));
  return expected.length === actual.length && constantTimeEqual(expected, actual);
}
