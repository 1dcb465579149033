/**
 * What the service asks of a CalDAV account, through tsdav with a fetch that goes through the outbound guard
 * (guarded-fetch.ts): discovery (principal, then calendar home), the home's calendars with their ctag and
 * sync-token (one PROPFIND), a calendar's events over a window (one time-range calendar-query REPORT), what changed
 * in a calendar since a sync token (RFC 6578 sync-collection REPORT) and those objects (calendar-multiget REPORTs),
 * and the conditional PUT, GET and DELETE of one event. Failures are CaldavError with a message for the connection's
 * owner: never a URL, the credentials or what the server said.
 */
import { calendarQuery, createAccount, davRequest, deleteObject, propfind, syncCollection, updateObject } from 'tsdav';
import { CalendarFetchError, guardedFetch } from './guarded-fetch.ts';

export interface CaldavCredentials {
  serverUrl: string;
  username: string;
  password: string;
}

export interface RemoteCalendar {
  url: string;
  name: string;
  ctag: string | null;
  syncToken: string | null;
}

/** A PUT's condition: create only, replace only the copy with this ETag, or none. */
export type PutCondition = { ifNoneMatch: '*' } | { ifMatch: string } | null;

export type PutOutcome = { etag: string | null } | 'precondition-failed' | 'not-found';

/** A calendar object as a REPORT returned it; `href` as the server wrote it. */
export interface CalendarObject {
  href: string;
  ics: string;
}

/**
 * What changed in a calendar since a sync token: the objects changed or added and those removed (hrefs as the server
 * wrote them), and the token of this state; 'full-read' when the server cannot say (no sync-collection support,
 * an expired token, a truncated answer), so the calendar must be read whole.
 */
export type CalendarChanges = { syncToken: string; changed: string[]; removed: string[] } | 'full-read';

/** Objects per calendar-multiget REPORT: each answer stays far below the size cap. */
const MULTIGET_CHUNK = 100;

export interface RemoteEvent {
  ics: string;
  etag: string | null;
}

export const CREDENTIALS_REFUSED = 'credentials refused: the CalDAV server did not accept this user name and password';

export class CaldavError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaldavError';
  }
}

export interface CaldavClientOptions {
  allowPrivateNetworks: boolean;
  /** The longest one request may take. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** `20261201T090000Z`, as a CalDAV time-range takes it. */
function davTime(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/** A property's text as tsdav parses it: a string, a number (it converts numeric text), or `{_cdata}`. */
function text(value: unknown): string | null {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  const cdata = (value as { _cdata?: unknown } | undefined)?._cdata;
  return typeof cdata === 'string' ? cdata : null;
}

export class CaldavClient {
  private refused = false;
  private readonly credentials: CaldavCredentials;
  private readonly fetch: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(credentials: CaldavCredentials, options: CaldavClientOptions) {
    this.credentials = credentials;
    this.fetch = guardedFetch({
      ...options,
      onStatus: (status) => {
        if (status === 401 || status === 403) this.refused = true;
      },
    });
    const basic = Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64');
    this.headers = { authorization: `Basic ${basic}` };
  }

  /** The account's calendar home: `.well-known/caldav`, the current user's principal, its calendar-home-set. */
  async discoverHome(): Promise<string> {
    const account = await this.call(
      () => createAccount({ account: { serverUrl: this.credentials.serverUrl, accountType: 'caldav' }, headers: this.headers, fetch: this.fetch }),
      'no CalDAV calendar home was found at this address',
    );
    if (!account.homeUrl) throw new CaldavError('no CalDAV calendar home was found at this address');
    return account.homeUrl;
  }

  /** The calendars of a home that hold events; undefined when the home is gone (404), so it can be discovered again. */
  async listCalendars(homeUrl: string): Promise<RemoteCalendar[] | undefined> {
    const responses = await this.call(
      () =>
        propfind({
          url: homeUrl,
          depth: '1',
          props: {
            'd:displayname': {},
            'd:resourcetype': {},
            'd:sync-token': {},
            'cs:getctag': {},
            'c:supported-calendar-component-set': {},
          },
          headers: this.headers,
          fetch: this.fetch,
        }),
      'the calendar home could not be listed',
    );
    if (responses.length === 1 && responses[0]!.status === 404 && !responses[0]!.props) return undefined;
    const failed = responses.find((response) => response.status >= 300 && !response.props);
    if (failed) throw this.refusedOr(`the calendar home could not be listed (the server answered ${failed.status})`);
    return responses.filter((response) => response.href && isEventCalendar(response.props)).map((response) => ({
      url: new URL(response.href!, homeUrl).href,
      name: text(response.props?.displayname)?.trim() || lastSegment(response.href!),
      ctag: text(response.props?.getctag),
      syncToken: text(response.props?.syncToken),
    }));
  }

  /** The calendar objects of a calendar with an event in the window, in one REPORT. */
  async eventsIn(calendarUrl: string, window: { start: Date; end: Date }): Promise<CalendarObject[]> {
    const responses = await this.call(
      () =>
        calendarQuery({
          url: calendarUrl,
          depth: '1',
          props: { 'd:getetag': {}, 'c:calendar-data': {} },
          filters: {
            'comp-filter': {
              _attributes: { name: 'VCALENDAR' },
              'comp-filter': { _attributes: { name: 'VEVENT' }, 'time-range': { _attributes: { start: davTime(window.start), end: davTime(window.end) } } },
            },
          },
          headers: this.headers,
          fetch: this.fetch,
        }),
      'the calendar could not be read',
    );
    return objectsOf(responses);
  }

  /** What changed in a calendar since `syncToken` (RFC 6578, sync-level 1), or 'full-read' when the server cannot say. */
  async changesSince(calendarUrl: string, syncToken: string): Promise<CalendarChanges> {
    const refusedBefore = this.refused;
    const responses = await this.call(
      () =>
        syncCollection({
          url: calendarUrl,
          props: { 'd:getetag': {} },
          syncLevel: 1,
          syncToken,
          // RFC 6578 3.2: the report is defined for Depth 0 only.
          headers: { ...this.headers, depth: '0' },
          fetch: this.fetch,
        }),
      'the calendar could not be read',
    );
    const token = text((responses[0]?.raw as { multistatus?: { syncToken?: unknown } } | undefined)?.multistatus?.syncToken);
    // A refusal (403 supported-report or valid-sync-token, 409, 501...) or a 507 (truncated): read it whole instead.
    if (token === null || responses.some((response) => response.status === 507)) {
      // A 403 here says nothing about the credentials, which the listing just proved.
      this.refused = refusedBefore;
      return 'full-read';
    }
    const self = objectPath(calendarUrl, calendarUrl);
    // An answer without changes parses to one entry without an href.
    const members = responses.filter((response) => response.href && objectPath(response.href, calendarUrl) !== self);
    return {
      syncToken: token,
      changed: members.filter((response) => response.status < 300).map((response) => response.href!),
      removed: members.filter((response) => response.status === 404 || response.status === 410).map((response) => response.href!),
    };
  }

  /** The objects at these hrefs (calendar-multiget, in chunks); one gone since is simply not returned. */
  async objectsAt(calendarUrl: string, hrefs: readonly string[]): Promise<CalendarObject[]> {
    const objects: CalendarObject[] = [];
    for (let i = 0; i < hrefs.length; i += MULTIGET_CHUNK) {
      const chunk = hrefs.slice(i, i + MULTIGET_CHUNK);
      // davRequest, not tsdav's calendarMultiGet: that throws on the 404 of an object deleted in between.
      const responses = await this.call(
        () =>
          davRequest({
            url: calendarUrl,
            init: {
              method: 'REPORT',
              namespace: 'c',
              headers: { ...this.headers, depth: '1' },
              body: {
                'calendar-multiget': {
                  _attributes: { 'xmlns:d': 'DAV:', 'xmlns:c': 'urn:ietf:params:xml:ns:caldav' },
                  'd:prop': { 'd:getetag': {}, 'c:calendar-data': {} },
                  'd:href': chunk,
                },
              },
            },
            fetch: this.fetch,
          }),
        'the calendar could not be read',
      );
      const failed = responses.find((response) => response.status >= 300 && response.status !== 404 && response.status !== 410);
      if (failed) throw this.refusedOr(`the calendar could not be read (the server answered ${failed.status})`);
      objects.push(...objectsOf(responses));
    }
    return objects;
  }

  /**
   * PUTs the event at `url` under a condition (RFC 7232): `{ ifNoneMatch: '*' }` creates it only if nothing is
   * there, `{ ifMatch }` replaces only the copy with that ETag, null replaces whatever is there. A failed
   * condition (412) or a missing target (404) is an answer, not an error: the caller reads the event and decides.
   */
  async putEvent(url: string, ics: string, condition: PutCondition): Promise<PutOutcome> {
    const headers = { ...this.headers, 'content-type': 'text/calendar; charset=utf-8', ...conditionHeaders(condition) };
    const response = await this.call(() => updateObject({ url, data: ics, headers, fetch: this.fetch }), 'the event could not be written');
    if (response.status === 412) return 'precondition-failed';
    if (response.status === 404 || response.status === 410) return 'not-found';
    if (!response.ok) throw this.refusedOr(`the event could not be written (the server answered ${response.status})`);
    // A server that changed what it stored gives no ETag (RFC 4791 5.3.4): then the next write finds it out.
    return { etag: response.headers.get('etag') };
  }

  /** The event at `url` as the server holds it now, with its ETag; undefined when there is none. */
  async getEvent(url: string): Promise<RemoteEvent | undefined> {
    const response = await this.call(() => this.fetch(url, { method: 'GET', headers: this.headers }), 'the event could not be read');
    if (response.status === 404 || response.status === 410) return undefined;
    if (!response.ok) throw this.refusedOr(`the event could not be read (the server answered ${response.status})`);
    return { ics: await response.text(), etag: response.headers.get('etag') };
  }

  /** Deletes the event at `url`, only the copy with `etag` when given; one already gone is fine. */
  async deleteEvent(url: string, etag: string | null): Promise<'deleted' | 'precondition-failed'> {
    const response = await this.call(
      () => deleteObject({ url, headers: { ...this.headers, ...conditionHeaders(etag === null ? null : { ifMatch: etag }) }, fetch: this.fetch }),
      'the event could not be deleted',
    );
    if (response.status === 412) return 'precondition-failed';
    if (!response.ok && response.status !== 404 && response.status !== 410) {
      throw this.refusedOr(`the event could not be deleted (the server answered ${response.status})`);
    }
    return 'deleted';
  }

  /** Runs a tsdav call; its own errors (which may quote the server) become `fallback`, or "credentials refused". */
  private async call<T>(work: () => Promise<T>, fallback: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (this.refused) throw new CaldavError(CREDENTIALS_REFUSED);
      if (error instanceof CalendarFetchError || error instanceof CaldavError) throw new CaldavError(error.message);
      throw new CaldavError(fallback);
    }
  }

  private refusedOr(message: string): CaldavError {
    return new CaldavError(this.refused ? CREDENTIALS_REFUSED : message);
  }
}

function conditionHeaders(condition: PutCondition): Record<string, string> {
  if (condition === null) return {};
  return 'ifMatch' in condition ? { 'if-match': condition.ifMatch } : { 'if-none-match': condition.ifNoneMatch };
}

/** An object's path, decoded: the same object whether a server writes its href as a path, a URL or escaped. */
export function objectPath(href: string, calendarUrl: string): string {
  const path = new URL(href, calendarUrl).pathname;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function objectsOf(responses: { href?: string; props?: Record<string, unknown> }[]): CalendarObject[] {
  return responses.flatMap((response) => {
    const ics = text(response.props?.calendarData);
    return response.href && ics !== null && ics.trim() !== '' ? [{ href: response.href, ics }] : [];
  });
}

function isEventCalendar(props: Record<string, unknown> | undefined): boolean {
  const types = props?.resourcetype;
  if (!types || typeof types !== 'object' || !('calendar' in types)) return false;
  const declared = (props?.supportedCalendarComponentSet as { comp?: unknown } | undefined)?.comp;
  const names = [declared ?? []].flat().map((comp) => (comp as { _attributes?: { name?: string } })._attributes?.name?.toUpperCase());
  // A server that declares no components (against RFC 4791) is taken to hold events.
  return names.length === 0 || names.includes('VEVENT');
}

function lastSegment(href: string): string {
  return decodeURIComponent(href.replace(/\/+$/, '').split('/').pop() ?? '') || 'Calendar';
}
