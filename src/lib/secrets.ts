import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

/** 256 random bits in base32: the body of every token. */
const RANDOM_PART_LENGTH = 52;
/** CRC-32 (4 bytes) in base32. */
const CHECKSUM_LENGTH = 7;
const BASE32 = /^[a-z2-7]+$/;

/**
 * A new secret token: a short type prefix (so secret scanners and logs can tell kinds apart), 256 random bits from
 * the platform CSPRNG, base32-encoded, and after a prefix a checksum of both (as GitHub's tokens carry): a mistyped,
 * truncated or made-up token is then refused without a database read (looksLikeToken).
 */
export function generateToken(prefix: string): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  const token = `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
  return prefix ? `${token}${tokenChecksum(token)}` : token;
}

/** The CRC-32 of everything before the checksum, big-endian, in base32 (7 characters). */
function tokenChecksum(body: string): string {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, crc32(body));
  return encodeBase32LowerCaseNoPadding(bytes);
}

/**
 * Only this hash (SHA-256, hex) is stored; a random 256-bit token needs no slow hash, and lookups go by the hash.
 * Every API request hashes its token (the principal cache is keyed by the hash too): Node's native SHA-256 takes
 * a quarter of the time of a JavaScript one.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether `token` has the form generateToken produces for `prefix`, so that any other is refused without a
 * database read. The two forms are told apart by length: 52 characters after the prefix is a token minted before
 * tokens carried a checksum (still accepted: such tokens live in databases and clients), 59 is the current form,
 * whose last 7 characters must be the checksum of the rest.
 */
export function looksLikeToken(prefix: string, token: string): boolean {
  if (!token.startsWith(prefix)) return false;
  const rest = token.slice(prefix.length);
  if (!BASE32.test(rest)) return false;
  if (rest.length === RANDOM_PART_LENGTH) return true;
  if (rest.length !== RANDOM_PART_LENGTH + CHECKSUM_LENGTH) return false;
  return tokenChecksum(token.slice(0, -CHECKSUM_LENGTH)) === token.slice(-CHECKSUM_LENGTH);
}
