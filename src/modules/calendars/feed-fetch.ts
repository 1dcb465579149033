import { CALENDAR_FETCH } from '../../config/timeouts.ts';
import { CalendarFetchError, guardedFetch } from './guarded-fetch.ts';

/** What the last good fetch said, sent back so an unchanged feed answers 304. */
export interface FeedValidators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedFetchOutcome =
  | { kind: 'not_modified' }
  | { kind: 'fetched'; body: string; validators: FeedValidators }
  | { kind: 'failed'; error: string };

/**
 * GETs a calendar feed through the guarded fetch (guarded-fetch.ts: the outbound guard on every hop, at most
 * CALENDAR_FETCH.maxRedirects redirects, the whole exchange within CALENDAR_FETCH.requestMs and the body within
 * CALENDAR_FETCH.maxBytes) with the last good fetch's validators. Never throws; a failure's message is meant for
 * the connection's owner and never includes the URL (it is a secret).
 */
export async function fetchFeed(
  rawUrl: string,
  validators: FeedValidators,
  options: { allowPrivateNetworks: boolean; signal?: AbortSignal; timeoutMs?: number },
): Promise<FeedFetchOutcome> {
  const fetch = guardedFetch({
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs ?? CALENDAR_FETCH.requestMs,
    signal: options.signal,
  });
  const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5' };
  if (validators.etag) headers['if-none-match'] = validators.etag;
  if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
  try {
    const response = await fetch(rawUrl, { headers });
    if (response.status === 304) return { kind: 'not_modified' };
    if (!response.ok) return { kind: 'failed', error: `the calendar server answered ${response.status}` };
    const fetched = { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
    return { kind: 'fetched', body: await response.text(), validators: fetched };
  } catch (error) {
    return { kind: 'failed', error: error instanceof CalendarFetchError ? error.message : 'connection failed' };
  }
}
