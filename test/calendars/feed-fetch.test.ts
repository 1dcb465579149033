import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchFeed } from '../../src/modules/calendars/feed-fetch.ts';
import { calendarWithEtag, startFeedServer } from './feed-server.ts';

const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n';
const NONE = { etag: null, lastModified: null };
const LOCAL = { allowPrivateNetworks: true };

describe('fetching a calendar feed', () => {
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  beforeAll(async () => {
    server = await startFeedServer();
  });
  afterAll(() => server.close());

  it('returns the body and its validators, then 304 when the ETag still matches', async () => {
    server.serve('/etag.ics', calendarWithEtag(ICS, '"v1"'));
    const first = await fetchFeed(server.url('/etag.ics'), NONE, LOCAL);
    expect(first).toEqual({ kind: 'fetched', body: ICS, validators: { etag: '"v1"', lastModified: null } });
    expect(await fetchFeed(server.url('/etag.ics'), { etag: '"v1"', lastModified: null }, LOCAL)).toEqual({ kind: 'not_modified' });
  });

  it('sends If-Modified-Since from a stored Last-Modified', async () => {
    const stamp = 'Wed, 25 Nov 2026 10:00:00 GMT';
    server.serve('/modified.ics', (req, res) => {
      if (req.headers['if-modified-since'] === stamp) res.writeHead(304).end();
      else res.writeHead(200, { 'last-modified': stamp }).end(ICS);
    });
    const first = await fetchFeed(server.url('/modified.ics'), NONE, LOCAL);
    expect(first).toMatchObject({ kind: 'fetched', validators: { lastModified: stamp } });
    expect(await fetchFeed(server.url('/modified.ics'), { etag: null, lastModified: stamp }, LOCAL)).toEqual({ kind: 'not_modified' });
  });

  it('follows at most 3 redirects', async () => {
    for (let i = 0; i < 4; i++) server.serve(`/hop${i}`, (_req, res) => res.writeHead(302, { location: `/hop${i + 1}` }).end());
    server.serve('/hop4', (_req, res) => res.writeHead(200).end(ICS));
    expect(await fetchFeed(server.url('/hop1'), NONE, LOCAL)).toMatchObject({ kind: 'fetched', body: ICS });
    expect(await fetchFeed(server.url('/hop0'), NONE, LOCAL)).toEqual({ kind: 'failed', error: 'more than 3 redirects' });
  });

  it('refuses http and private addresses unless allowed, also behind a redirect', async () => {
    const refused = await fetchFeed(server.url('/etag.ics'), NONE, { allowPrivateNetworks: false });
    expect(refused).toMatchObject({ kind: 'failed', error: expect.stringContaining('https://') });
    expect(await fetchFeed('https://127.0.0.1:1/x.ics', NONE, { allowPrivateNetworks: false })).toMatchObject({
      kind: 'failed',
      error: expect.stringContaining('private, loopback'),
    });
  });

  it('fails on an error status, an oversized body and a server that hangs, without naming the URL', async () => {
    server.serve('/gone.ics', (_req, res) => res.writeHead(500).end());
    expect(await fetchFeed(server.url('/gone.ics'), NONE, LOCAL)).toEqual({ kind: 'failed', error: 'the calendar server answered 500' });
    server.serve('/huge.ics', (_req, res) => res.writeHead(200, { 'content-length': String(11 * 1024 * 1024) }).end());
    expect(await fetchFeed(server.url('/huge.ics'), NONE, LOCAL)).toEqual({ kind: 'failed', error: "the calendar server's answer is larger than 10 MB" });
    // Without a Content-Length, the read stops once the body passes the limit.
    server.serve('/streamed.ics', (_req, res) => {
      res.writeHead(200);
      const megabyte = Buffer.alloc(1024 * 1024, 'x');
      const more = (left: number) => (left === 0 ? res.end() : res.write(megabyte, () => more(left - 1)));
      res.on('error', () => undefined);
      more(11);
    });
    expect(await fetchFeed(server.url('/streamed.ics'), NONE, LOCAL)).toEqual({ kind: 'failed', error: "the calendar server's answer is larger than 10 MB" });
    server.serve('/hang.ics', () => undefined);
    const hung = await fetchFeed(server.url('/hang.ics'), NONE, { ...LOCAL, timeoutMs: 200 });
    expect(hung).toEqual({ kind: 'failed', error: 'no complete answer within 0.2 seconds' });
  });
});
