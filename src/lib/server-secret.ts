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

/** Runs one statement with `?` placeholders and returns its rows. */
export type SqlRunner = (sql: string, params: unknown[]) => Promise<unknown[]>;

async function loadOrCreate(em: EntityManager, name: string): Promise<Uint8Array> {
  // Deliberately outside the caller's transaction (no transaction context): were the caller to roll
  // back, a secret this process had already cached would vanish and another instance would create a
  // different one.
  const connection = em.getConnection();
  return readOrCreateServerSecret((sql, params) => connection.execute(sql, params, 'all'), name);
}

/**
 * The named secret, created first if missing, read through `run`. getServerSecret is the way for the service;
 * this is for a migration, which must read it in its own transaction (its batch connection is its only one).
 */
export async function readOrCreateServerSecret(run: SqlRunner, name: string): Promise<Uint8Array> {
  const select = async () =>
    ((await run('select secret from server_secret where name = ?', [name])) as SecretRow[])[0];
  let row = await select();
  if (!row) {
    const candidate = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
    // Two instances starting together both try; the loser's insert does nothing and both read the winner's.
    await run(`insert into server_secret (name, secret) values (?, decode(?, 'hex')) on conflict (name) do nothing`, [
      name,
      encodeHexLowerCase(candidate),
    ]);
    row = await select();
  }
  if (!row || row.secret.length !== SECRET_BYTES) {
    throw new Error(`server secret "${name}" is missing or malformed`);
  }
  return new Uint8Array(row.secret);
}
