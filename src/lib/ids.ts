import { randomUUID } from 'node:crypto';

/** Resource identifiers: random UUIDs, opaque to clients. */
export function newId(): string {
  return randomUUID();
}
