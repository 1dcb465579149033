/**
 * A `fetch` for CalDAV clients (tsdav takes one) that goes through the outbound guard, as feed fetches do: each
 * host resolved, checked and connected to by that checked address, redirects followed at most
 * CALENDAR_FETCH.maxRedirects times with each target checked again (and the credentials dropped when one leaves
 * the origin), each request within its timeout and each body within CALENDAR_FETCH.maxBytes.
 */
import http from 'node:http';
import https from 'node:https';
import { CALENDAR_FETCH } from '../../config/timeouts.ts';
import { lookupPinnedTo, outboundUrlProblem, resolveSafely } from '../../lib/outbound-guard.ts';

/** Why a request got no answer; the message is meant for the connection's owner and never names the URL. */
export class CalendarFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalendarFetchError';
  }
}

export interface GuardedFetchOptions {
  allowPrivateNetworks: boolean;
  /** The longest one request (its redirects included) may take. */
  timeoutMs: number;
  /** Ends every request in flight (shutdown, or the whole sync's budget). */
  signal?: AbortSignal;
  /** Told every final status, so a caller can tell refused credentials from other failures. */
  onStatus?: (status: number) => void;
}

interface Hop {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

export function guardedFetch(options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : []), ...(init?.signal ? [init.signal] : [])]);
    let url = input instanceof Request ? input.url : String(input);
    let outgoing: Outgoing = { method: (init?.method ?? 'GET').toUpperCase(), headers: headerRecord(init?.headers), body: bodyBuffer(init?.body) };
    try {
      for (let redirects = 0; ; redirects++) {
        const hop = await send(url, outgoing, options.allowPrivateNetworks, signal);
        const location = hop.headers.location;
        if (hop.status >= 300 && hop.status < 400 && location !== undefined && init?.redirect !== 'manual') {
          if (redirects === CALENDAR_FETCH.maxRedirects) throw new CalendarFetchError(`more than ${CALENDAR_FETCH.maxRedirects} redirects`);
          const next = new URL(location, url);
          outgoing = redirected(outgoing, hop.status, new URL(url).origin === next.origin);
          url = next.href;
          continue;
        }
        options.onStatus?.(hop.status);
        return toResponse(hop, url);
      }
    } catch (error) {
      if (error instanceof CalendarFetchError) throw error;
      if (signal.aborted) throw new CalendarFetchError(`no complete answer within ${options.timeoutMs / 1000} seconds`);
      const code = (error as { code?: string }).code;
      throw new CalendarFetchError(code ? `connection failed (${code})` : 'connection failed');
    }
  };
}

/** A 303 turns into a GET without a body; credentials never follow a redirect to another origin. */
function redirected(outgoing: Outgoing, status: number, sameOrigin: boolean): Outgoing {
  const headers = { ...outgoing.headers };
  if (!sameOrigin) delete headers.authorization;
  if (status === 303) {
    delete headers['content-type'];
    return { method: 'GET', headers, body: undefined };
  }
  return { ...outgoing, headers };
}

async function send(rawUrl: string, outgoing: Outgoing, allowPrivate: boolean, signal: AbortSignal): Promise<Hop> {
  const problem = await outboundUrlProblem(rawUrl, allowPrivate);
  if (problem) throw new CalendarFetchError(`the calendar server's address is refused: ${problem}`);
  const url = new URL(rawUrl);
  const resolved = await resolveSafely(url.hostname, allowPrivate);
  if (typeof resolved === 'string') throw new CalendarFetchError(`the calendar server's address is refused: ${resolved}`);
  const headers: Record<string, string> = { 'user-agent': 'scheduling-api-calendars/1', ...outgoing.headers };
  if (outgoing.body) headers['content-length'] = String(outgoing.body.length);
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Hop>((resolve, reject) => {
    const options = { method: outgoing.method, lookup: lookupPinnedTo(resolved[0]!), agent: false, signal, headers };
    const req = request(url, options, (res) => {
      const declared = Number(res.headers['content-length']);
      if (declared > CALENDAR_FETCH.maxBytes) {
        res.destroy();
        reject(new CalendarFetchError(tooLarge()));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CALENDAR_FETCH.maxBytes) {
          res.destroy();
          reject(new CalendarFetchError(tooLarge()));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(outgoing.body);
  });
}

function toResponse(hop: Hop, url: string): Response {
  if (hop.status < 200 || hop.status > 599) throw new CalendarFetchError(`the calendar server answered ${hop.status}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(hop.headers)) {
    for (const one of [value ?? []].flat()) headers.append(name, one);
  }
  const body = NULL_BODY_STATUSES.has(hop.status) ? null : new Uint8Array(hop.body);
  const response = new Response(body, { status: hop.status, statusText: hop.statusText, headers });
  // A constructed Response has an empty `url`; clients read it to resolve relative references.
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

function bodyBuffer(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body);
  throw new TypeError('Only string and byte bodies are sent to calendar servers');
}

function tooLarge(): string {
  return `the calendar server's answer is larger than ${CALENDAR_FETCH.maxBytes / 1024 / 1024} MB`;
}
