import http from 'node:http';
import https from 'node:https';
import { CALENDAR_FETCH } from '../../config/timeouts.ts';
import { lookupPinnedTo, outboundUrlProblem, resolveSafely } from '../../lib/outbound-guard.ts';

/** What the last good fetch said, sent back so an unchanged feed answers 304. */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedFetchOutcome =
  | { kind: 'not_modified' }
  | { kind: 'fetched'; body: string; validators: FeedValidators }
  | { kind: 'failed'; error: string };

interface Hop {
  status: number;
  location: string | undefined;
  body: string;
  validators: FeedValidators;
}

class FetchFailure extends Error {}

/**
 * GETs a calendar feed through the outbound guard: `https://` (and http or private addresses only with
 * `allowPrivateNetworks`), each host resolved, checked and connected to by that checked address (no DNS
 * rebinding), redirects followed at most CALENDAR_FETCH.maxRedirects times with each target checked again, the
 * whole exchange within CALENDAR_FETCH.requestMs and the body within CALENDAR_FETCH.maxBytes. Never throws; a
 * failure's message is meant for the connection's owner and never includes the URL (it is a secret).
 */
export async function fetchFeed(
  rawUrl: string,
  validators: FeedValidators,
  options: { allowPrivateNetworks: boolean; signal?: AbortSignal; timeoutMs?: number },
): Promise<FeedFetchOutcome> {
  const timeoutMs = options.timeoutMs ?? CALENDAR_FETCH.requestMs;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(options.signal ? [options.signal] : [])]);
  try {
    let url = rawUrl;
    for (let redirects = 0; ; redirects++) {
      const problem = await outboundUrlProblem(url, options.allowPrivateNetworks);
      if (problem) return { kind: 'failed', error: `the feed's address is refused: ${problem}` };
      const hop = await get(new URL(url), validators, options.allowPrivateNetworks, signal);
      if (hop.status === 304) return { kind: 'not_modified' };
      if (hop.status >= 300 && hop.status < 400 && hop.location !== undefined) {
        if (redirects === CALENDAR_FETCH.maxRedirects) return { kind: 'failed', error: `more than ${CALENDAR_FETCH.maxRedirects} redirects` };
        url = new URL(hop.location, url).href;
        continue;
      }
      if (hop.status < 200 || hop.status >= 300) return { kind: 'failed', error: `the calendar server answered ${hop.status}` };
      return { kind: 'fetched', body: hop.body, validators: hop.validators };
    }
  } catch (error) {
    if (signal.aborted) return { kind: 'failed', error: `no complete answer within ${timeoutMs / 1000} seconds` };
    if (error instanceof FetchFailure) return { kind: 'failed', error: error.message };
    const code = (error as { code?: string }).code;
    return { kind: 'failed', error: code ? `connection failed (${code})` : 'connection failed' };
  }
}

async function get(url: URL, validators: FeedValidators, allowPrivate: boolean, signal: AbortSignal): Promise<Hop> {
  const resolved = await resolveSafely(url.hostname, allowPrivate);
  if (typeof resolved === 'string') throw new FetchFailure(`the feed's address is refused: ${resolved}`);
  const lookup = lookupPinnedTo(resolved[0]!);
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5', 'user-agent': 'scheduling-api-calendars/1' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Hop>((resolve, reject) => {
    const req = request(url, { method: 'GET', lookup, agent: false, signal, headers }, (res) => {
      const status = res.statusCode ?? 0;
      const hop = {
        status,
        location: res.headers.location,
        validators: { etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null },
      };
      if (status < 200 || status >= 300) {
        res.destroy();
        resolve({ ...hop, body: '' });
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (declared > CALENDAR_FETCH.maxBytes) {
        res.destroy();
        reject(new FetchFailure(tooLarge()));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CALENDAR_FETCH.maxBytes) {
          res.destroy();
          reject(new FetchFailure(tooLarge()));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ ...hop, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function tooLarge(): string {
  return `the feed is larger than ${CALENDAR_FETCH.maxBytes / 1024 / 1024} MB`;
}
