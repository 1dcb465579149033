import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarFetchError, guardedFetch } from '../../src/modules/calendars/guarded-fetch.ts';
import { startFeedServer } from './feed-server.ts';

const LOCAL = { allowPrivateNetworks: true, timeoutMs: 2_000 };

describe('the guarded fetch CalDAV requests go through', () => {
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  let other: Awaited<ReturnType<typeof startFeedServer>>;
  beforeAll(async () => {
    server = await startFeedServer();
    other = await startFeedServer();
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });

  it('sends the method, headers and body, and answers a Response with status, headers, body and URL', async () => {
    server.serve('/dav/', (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => res.writeHead(207, { 'content-type': 'application/xml', 'x-echo': `${req.method} ${req.headers.depth} ${body}` }).end('<ok/>'));
    });
    const response = await guardedFetch(LOCAL)(server.url('/dav/'), { method: 'PROPFIND', headers: { depth: '1' }, body: '<propfind/>' });
    expect(response.status).toBe(207);
    expect(response.headers.get('x-echo')).toBe('PROPFIND 1 <propfind/>');
    expect(await response.text()).toBe('<ok/>');
    expect(response.url).toBe(server.url('/dav/'));
  });

  it('follows at most 3 redirects, keeping the method, and drops the credentials when one leaves the origin', async () => {
    for (let i = 0; i < 4; i++) server.serve(`/hop${i}`, (_req, res) => res.writeHead(307, { location: `/hop${i + 1}` }).end());
    server.serve('/hop4', (req, res) => res.writeHead(200).end(`${req.method} ${req.headers.authorization}`));
    const fetch = guardedFetch(LOCAL);
    const init = { method: 'REPORT', headers: { authorization: 'Basic c2VjcmV0' } };
    expect(await (await fetch(server.url('/hop1'), init)).text()).toBe('REPORT Basic c2VjcmV0');
    await expect(fetch(server.url('/hop0'), init)).rejects.toThrow('more than 3 redirects');

    other.serve('/elsewhere', (req, res) => res.writeHead(200).end(`${req.headers.authorization ?? 'none'}`));
    server.serve('/away', (_req, res) => res.writeHead(302, { location: other.url('/elsewhere') }).end());
    expect(await (await fetch(server.url('/away'), init)).text()).toBe('none');
    // `redirect: 'manual'` (tsdav's discovery) answers the redirect itself.
    expect((await fetch(server.url('/away'), { ...init, redirect: 'manual' })).status).toBe(302);
  });

  it('refuses http and private addresses unless allowed, fails on a hung server, an oversized body and a refused connection', async () => {
    const strict = guardedFetch({ allowPrivateNetworks: false, timeoutMs: 2_000 });
    await expect(strict(server.url('/dav/'))).rejects.toThrow(/address is refused: must be an https/);
    await expect(strict('https://127.0.0.1:1/')).rejects.toThrow(/private, loopback/);
    server.serve('/hang', () => undefined);
    await expect(guardedFetch({ ...LOCAL, timeoutMs: 200 })(server.url('/hang'))).rejects.toThrow('no complete answer within 0.2 seconds');
    server.serve('/huge', (_req, res) => res.writeHead(200, { 'content-length': String(11 * 1024 * 1024) }).end());
    await expect(guardedFetch(LOCAL)(server.url('/huge'))).rejects.toThrow('larger than 10 MB');
    const refused = guardedFetch(LOCAL)('http://127.0.0.1:9/');
    await expect(refused).rejects.toBeInstanceOf(CalendarFetchError);
    await expect(refused).rejects.toThrow(/^connection failed \(ECONNREFUSED\)$/);
  });
});
