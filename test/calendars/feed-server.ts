import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FeedHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A local HTTP server whose answer each test sets per path; counts the requests of each path. */
export async function startFeedServer(): Promise<{
  url(path: string): string;
  serve(path: string, handler: FeedHandler): void;
  hits(path: string): number;
  close(): Promise<void>;
}> {
  const handlers = new Map<string, FeedHandler>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const handler = handlers.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    serve: (path, handler) => handlers.set(path, handler),
    hits: (path) => counts.get(path) ?? 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves `body` as text/calendar with an ETag, answering 304 to a matching If-None-Match. */
export function calendarWithEtag(body: string, etag: string): FeedHandler {
  return (req, res) => {
    if (req.headers['if-none-match'] === etag) res.writeHead(304).end();
    else res.writeHead(200, { 'content-type': 'text/calendar', etag }).end(body);
  };
}
