import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getServerSecret } from './server-secret.ts';

/**
 * Secrets the service must read back in clear (webhook signing keys, calendar credentials) are sealed with
 * AES-256-GCM under a key derived by HKDF-SHA-256 from the server secret and the purpose, so a value sealed for one
 * purpose never opens as another's. `v1.<iv>.<ciphertext and tag>` (base64url): the version names the root secret,
 * so a new one can come without a flag day.
 */
export type SealingPurpose = 'webhook-signing-secret' | 'calendar-credentials' | 'booking-manage-link' | 'password-reset-link';

/** The `server_secret` row the v1 keys are derived from. */
export const SEALING_ROOT_SECRET = 'sealed-secrets-v1';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value that cannot be opened: altered, truncated, or sealed under another server secret. Says nothing of the value. */
export class SealedSecretError extends Error {
  constructor(purpose: SealingPurpose, why: string) {
    super(`A sealed ${purpose} cannot be opened: ${why}`);
    this.name = 'SealedSecretError';
  }
}

// Per root secret (getServerSecret hands out the same array each time), the key of each purpose.
const derivedKeys = new WeakMap<Uint8Array, Map<SealingPurpose, KeyObject>>();

function purposeKey(root: Uint8Array, purpose: SealingPurpose): KeyObject {
  let byPurpose = derivedKeys.get(root);
  if (!byPurpose) {
    byPurpose = new Map();
    derivedKeys.set(root, byPurpose);
  }
  let key = byPurpose.get(purpose);
  if (!key) {
    key = createSecretKey(Buffer.from(hkdfSync('sha256', root, new Uint8Array(0), `sealed-secrets/${VERSION}/${purpose}`, 32)));
    byPurpose.set(purpose, key);
  }
  return key;
}

/** Seals `plaintext` under the key derived from `root` (the SEALING_ROOT_SECRET server secret) for `purpose`. */
export function sealWithRoot(root: Uint8Array, purpose: SealingPurpose, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', purposeKey(root, purpose), iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** The plaintext of a value sealWithRoot made with the same root and purpose; SealedSecretError otherwise. */
export function openWithRoot(root: Uint8Array, purpose: SealingPurpose, sealed: string): string {
  const [version, ivText, bodyText, ...rest] = sealed.split('.');
  if (version !== VERSION || ivText === undefined || bodyText === undefined || rest.length > 0) {
    throw new SealedSecretError(purpose, 'it is not a sealed value of a known version');
  }
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new SealedSecretError(purpose, 'it is truncated');
  const decipher = createDecipheriv('aes-256-gcm', purposeKey(root, purpose), iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedSecretError(purpose, 'it was altered, or sealed under another server secret');
  }
}

/** Seals a secret for storage, under this database's root secret. */
export async function sealSecret(em: EntityManager, purpose: SealingPurpose, plaintext: string): Promise<string> {
  return sealWithRoot(await getServerSecret(em, SEALING_ROOT_SECRET), purpose, plaintext);
}

/** Opens a secret sealSecret stored; SealedSecretError when it cannot. */
export async function openSecret(em: EntityManager, purpose: SealingPurpose, sealed: string): Promise<string> {
  return openWithRoot(await getServerSecret(em, SEALING_ROOT_SECRET), purpose, sealed);
}
