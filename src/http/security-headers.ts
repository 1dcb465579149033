import type { FastifyInstance } from 'fastify';

/** Two years, as HSTS preload lists ask; subdomains included, since every one of them is served over https too. */
const STRICT_TRANSPORT_SECURITY = 'max-age=63072000; includeSubDomains';

/**
 * Headers on every answer (the API's, MCP's, OAuth's and the pages'): `X-Content-Type-Options: nosniff`, so a
 * browser never reads a JSON or text answer as script or HTML; and, when the site is served over https,
 * `Strict-Transport-Security`, so a browser that has seen it once never speaks plain http to it again.
 * Set before the handlers run, so the handlers that write their answer themselves (MCP) carry them too.
 */
export function registerSecurityHeaders(app: FastifyInstance, siteUrl: string): void {
  const headers: Record<string, string> = {
    'X-Content-Type-Options': 'nosniff',
    ...(new URL(siteUrl).protocol === 'https:' ? { 'Strict-Transport-Security': STRICT_TRANSPORT_SECURITY } : {}),
  };
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
