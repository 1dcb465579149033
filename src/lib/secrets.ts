import { createHash } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

/**
 * A new secret token: a short type prefix (so secret scanners and logs can tell kinds apart) and
 * 256 random bits from the platform CSPRNG, base32-encoded.
 */
export function generateToken(prefix: string): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/**
 * Only this hash (SHA-256, hex) is stored; a random 256-bit token needs no slow hash, and lookups go by the hash.
 * Every API request hashes its token (the principal cache is keyed by the hash too): Node's native SHA-256 takes
 * a quarter of the time of a JavaScript one.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The form generateToken produces: lets malformed tokens be refused without a database read. */
export function looksLikeToken(prefix: string, token: string): boolean {
  return token.startsWith(prefix) && /^[a-z2-7]{52}$/.test(token.slice(prefix.length));
}
