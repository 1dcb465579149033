import type { EntityManager } from '@mikro-orm/postgresql';
import { encodeHexLowerCase } from '@oslojs/encoding';

/**
 * Keys every instance of the service must share (e.g. the HMAC key of paging cursors: a cursor issued by
 * one instance is brought back to another). Each is 32 random bytes in the `server_secret` table, created
 * by whichever instance needs it first; a secret never changes, so each process reads it once.
 */
const SECRET_BYTES = 32;

// Keyed by the connection (one per ORM, shared by its forks), so one process talking to two databases,
// as the tests do, never mixes their secrets.
const cache = new WeakMap<object, Map<string, Promise<Uint8Array>>>();

export function getServerSecret(em: EntityManager, name: string): Promise<Uint8Array> {
  const connection = em.getConnection();
  let byName = cache.get(connection);
  if (!byName) {
    byName = new Map();
    cache.set(connection, byName);
  }
  let secret = byName.get(name);
  if (!secret) {
    const loading = loadOrCreate(em, name);
    byName.set(name, loading);
    // A failed read (database down) must not be remembered: the next request tries again.
    loading.catch(() => byName.delete(name));
    secret = loading;
  }
  return secret;
}

interface SecretRow {
  secret: Uint8Array;
}

async function loadOrCreate(em: EntityManager, name: string): Promise<Uint8Array> {
  // Deliberately outside the caller's transaction (no transaction context): were the caller to roll
  // back, a secret this process had already cached would vanish and another instance would create a
  // different one.
  const connection = em.getConnection();
  const select = () =>
    connection.execute<SecretRow>('select secret from server_secret where name = ?', [name], 'get') as Promise<
      SecretRow | undefined
    >;
  let row = await select();
  if (!row) {
    const candidate = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
    // Two instances starting together both try; the loser's insert does nothing and both read the winner's.
    await connection.execute(
      `insert into server_secret (name, secret) values (?, decode(?, 'hex')) on conflict (name) do nothing`,
      [name, encodeHexLowerCase(candidate)],
      'run',
    );
    row = await select();
  }
  if (!row || row.secret.length !== SECRET_BYTES) {
    throw new Error(`server secret "${name}" is missing or malformed`);
  }
  return new Uint8Array(row.secret);
}
