import { hash, verify } from '@node-rs/argon2';

// OWASP's Argon2id baseline: 19 MiB memory, 2 passes, 1 lane.
// `algorithm: 2` is Algorithm.Argon2id (a const enum, which erasable-syntax TypeScript cannot import).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
