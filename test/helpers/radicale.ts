import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Test files whose name holds this start Radicale; the global setup installs it for them when it is missing. */
export const RADICALE_TEST_MARKER = 'caldav';

/** One account on the server, with the calls tests arrange its calendars with (straight to Radicale). */
export interface RadicaleAccount {
  username: string;
  password: string;
  /** Creates a calendar collection in the account's home; returns its path (`/user/name/`). */
  makeCalendar(name: string, displayName?: string): Promise<string>;
  /** PUTs one calendar object (a whole VCALENDAR) into a calendar, as `<name>.ics`. */
  putObject(calendarPath: string, name: string, ics: string): Promise<void>;
  deleteObject(calendarPath: string, name: string): Promise<void>;
  /** One calendar object's text (`<name>.ics`), as a host's calendar app reads it before changing it. */
  objectText(calendarPath: string, name: string): Promise<string>;
  /** The whole calendar as one iCalendar text (Radicale answers GET on a collection so). */
  calendarText(calendarPath: string): Promise<string>;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  body: string;
}

export interface CannedAnswer {
  status: number;
  body: string;
}

export interface Radicale {
  /** The server as the service reaches it: through a proxy that records every request. */
  url: string;
  /** Every request the proxy received, in order. */
  requests: ProxiedRequest[];
  /** The REPORTs sent to a path, in order: their kind (`sync-collection`, `calendar-query`...) and the hrefs asked for. */
  reports(path: string): { kind: string; hrefs: string[] }[];
  /** Makes the proxy answer `status` itself (to `methods` only, when given) instead of passing requests on; null heals it. */
  failWith(status: number | null, methods?: string[]): void;
  /** Lets `answer` answer a request itself (undefined: pass it on), as a server unlike Radicale would; null heals it. */
  intercept(answer: ((request: ProxiedRequest) => CannedAnswer | undefined) | null): void;
  /** Account `index` (0 to accounts - 1), so that tests of one file keep to calendars of their own. */
  account(index: number): RadicaleAccount;
  close(): Promise<void>;
}

/**
 * The Debian `radicale` package's server on a free port, with a storage folder of its own and htpasswd
 * authentication (plain: Radicale 3.1's bcrypt and md5 need passlib, which the package only recommends).
 */
export async function startRadicale(accounts = 8): Promise<Radicale> {
  const folder = mkdtempSync(path.join(tmpdir(), 'radicale-'));
  const port = await freePort();
  const users = Array.from({ length: accounts }, (_, index) => ({ username: `user${index}`, password: `app-password-${index}` }));
  writeFileSync(path.join(folder, 'users'), users.map((user) => `${user.username}:${user.password}\n`).join(''));
  writeFileSync(
    path.join(folder, 'config'),
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${path.join(folder, 'users')}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[storage]',
      `filesystem_folder = ${path.join(folder, 'collections')}`,
      '[rights]',
      'type = owner_only',
      '[web]',
      'type = none',
      '[logging]',
      'level = warning',
      '',
    ].join('\n'),
  );
  const child = spawn('radicale', ['--config', path.join(folder, 'config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const upstream = `http://127.0.0.1:${port}`;
  try {
    await waitForAnswer(upstream, child, () => stderr);
  } catch (error) {
    child.kill();
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const requests: Radicale['requests'] = [];
  const failure: Failure = { status: null, answer: null };
  const proxy = await startRecordingProxy(port, requests, failure);
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`,
    requests,
    reports: (reportPath) =>
      requests
        .filter((request) => request.method === 'REPORT' && request.path === reportPath)
        .map((request) => ({
          kind: /<(?:[\w-]+:)?([\w-]+)/.exec(request.body.replace(/<\?xml[^>]*>/, ''))?.[1] ?? '',
          hrefs: [...request.body.matchAll(/<(?:[\w-]+:)?href>([^<]*)</g)].map((match) => match[1]!),
        })),
    failWith(status, methods) {
      failure.status = status;
      failure.methods = methods;
    },
    intercept(answer) {
      failure.answer = answer;
    },
    account: (index) => accountOn(upstream, users[index]!),
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await stop(child);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function accountOn(upstream: string, user: { username: string; password: string }): RadicaleAccount {
  const auth = `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`;
  const call = async (method: string, pathname: string, body?: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${upstream}${pathname}`, { method, body, headers: { authorization: auth, ...headers } });
    const text = await response.text();
    if (!response.ok) throw new Error(`Radicale answered ${response.status} to ${method} ${pathname}: ${text}`);
    return text;
  };
  return {
    ...user,
    async makeCalendar(name, displayName = name) {
      const calendarPath = `/${user.username}/${name}/`;
      // The first authenticated request creates the account's home.
      await call('PROPFIND', `/${user.username}/`, undefined, { depth: '0' });
      await call(
        'MKCALENDAR',
        calendarPath,
        `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:displayname>${displayName}</D:displayname><C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set></D:prop></D:set></C:mkcalendar>`,
        { 'content-type': 'application/xml' },
      );
      return calendarPath;
    },
    async putObject(calendarPath, name, ics) {
      await call('PUT', `${calendarPath}${name}.ics`, ics, { 'content-type': 'text/calendar; charset=utf-8' });
    },
    async deleteObject(calendarPath, name) {
      await call('DELETE', `${calendarPath}${name}.ics`);
    },
    objectText: (calendarPath, name) => call('GET', `${calendarPath}${name}.ics`),
    calendarText: (calendarPath) => call('GET', calendarPath),
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForAnswer(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`radicale exited with ${child.exitCode}: ${log()}`);
    try {
      await fetch(`${url}/.well-known/caldav`, { redirect: 'manual' });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`radicale did not answer within 15 s: ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

interface Failure {
  status: number | null;
  methods?: string[];
  answer: ((request: ProxiedRequest) => CannedAnswer | undefined) | null;
}

/** Passes every request on to Radicale unchanged (unless told to fail or answer) and records it, body included. */
async function startRecordingProxy(port: number, requests: Radicale['requests'], failure: Failure): Promise<http.Server> {
  const proxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const request = { method: req.method ?? '', path: new URL(req.url ?? '/', 'http://x').pathname, body: body.toString('utf8') };
    requests.push(request);
    if (failure.status !== null && (!failure.methods || failure.methods.includes(request.method))) {
      res.writeHead(failure.status, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    const canned = failure.answer?.(request);
    if (canned) {
      res.writeHead(canned.status, { 'content-type': 'application/xml; charset=utf-8' }).end(canned.body);
      return;
    }
    const forward = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.writeHead(502).end());
    forward.end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
