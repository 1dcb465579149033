import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../../src/db/embedded-postgres.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Variables of this process that must not leak into the service's environment. */
const OWN_VARIABLES = ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'SITE_URL', 'DATA_DIR', 'LOG_LEVEL', 'NODE_ENV', 'TRUST_PROXY', 'DRAIN_TIMEOUT_MS', 'SHUTDOWN_DELAY', 'RATE_LIMIT_INSTANCES'];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The service as operators run it: `npm start` in a child process, listening on a free port of 127.0.0.1. */
export interface ServiceProcess {
  port: number;
  /** npm's process id: signals sent to it reach the service (the start script execs node). */
  pid: number;
  /** The service's own log, one parsed pino line each (lines that are not JSON are kept as `{ msg }`). */
  log: Record<string, unknown>[];
  exited: Promise<Exit>;
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, what: string, timeoutMs?: number): Promise<void>;
  signal(signal: NodeJS.Signals): void;
  /** Ends the process and its service at once (for clean-up after a failed test). */
  kill(): void;
}

export async function startService(
  env: Record<string, string>,
  options: { startTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const port = await findFreePort();
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !OWN_VARIABLES.includes(key)));
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: REPO_ROOT,
    env: { ...inherited, NODE_ENV: 'production', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  const record = (text: string) => {
    for (const raw of text.split('\n').filter(Boolean)) {
      log.push(parseLine(raw));
    }
    for (const waiter of waiters) waiter();
  };
  const buffers = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8');
    child[stream]!.on('data', (chunk: string) => {
      const text = buffers[stream] + chunk;
      const complete = text.lastIndexOf('\n') + 1;
      buffers[stream] = text.slice(complete);
      record(text.slice(0, complete));
    });
  }
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    record(`${buffers.stdout}\n${buffers.stderr}`);
  });

  const waitForLog: ServiceProcess['waitForLog'] = (predicate, what, timeoutMs = 10_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (log.some(predicate)) return done(resolve);
        if (hasExited) return done(() => reject(new Error(`the service exited before ${what}:\n${formatLog(log)}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${what}:\n${formatLog(log)}`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      void exited.then(check);
      check();
    });

  const service: ServiceProcess = {
    port,
    pid: child.pid!,
    log,
    exited,
    waitForLog,
    signal: (signal) => void child.kill(signal),
    kill() {
      const servicePid = log.find((line) => typeof line.pid === 'number')?.pid as number | undefined;
      for (const pid of [child.pid, servicePid]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  try {
    await waitForLog((line) => String(line.msg).startsWith('Scheduling API listening'), 'the service to listen', options.startTimeoutMs ?? 30_000);
  } catch (error) {
    service.kill();
    throw error;
  }
  return service;
}

function parseLine(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
  } catch {
    // not a pino line (npm, console.log, a stack trace)
  }
  return { msg: raw };
}

function formatLog(log: Record<string, unknown>[]): string {
  return log.map((line) => (typeof line.level === 'number' ? JSON.stringify(line) : String(line.msg))).join('\n');
}

export type HttpOutcome =
  | { status: number; headers: http.IncomingHttpHeaders; body: unknown }
  | { status: 'error'; error: string };

/** One request to 127.0.0.1:port; a connection error is an outcome too (its code), never a rejection. */
export function httpRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: unknown; agent?: http.Agent; timeoutMs?: number },
): Promise<HttpOutcome> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        agent: options.agent ?? false,
        headers: { ...options.headers, ...(payload ? { 'Content-Type': 'application/json' } : {}) },
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseBody(text) }));
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 'error', error: error.code ?? error.message }));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 'error', error: error.code ?? error.message }));
    req.end(payload);
  });
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
