import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorResponse } from '../lib/error-response.ts';
import { sendErrorResponse } from './error-responses.ts';

/** Where `npm run build:web` (run by `npm ci` through `prepare`) writes the first-party web app. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** Where the built bundle's hashed files are served; the web app's Vite `base` is `/app/`. */
const ASSETS_PREFIX = '/app/assets/';

/**
 * The pages are one static bundle: only same-origin scripts, styles and calls; never framed (the settings
 * page shows secrets); no referrer, so a secret event type's `?key=` never leaves in a Referer header.
 */
const PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/**
 * The first-party web app (Vite + React, built into dist/web): the developer settings at /app/… and the
 * public booking page at /book/:userSlug/:eventTypeSlug, both one single-page app that talks to /trpc.
 */
export async function registerWebApp(app: FastifyInstance, webRoot: string = DEFAULT_WEB_ROOT): Promise<void> {
  const indexFile = path.join(webRoot, 'index.html');
  const indexHtml = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;
  if (!indexHtml) {
    app.log.warn({ webRoot }, 'the web app is not built (run `npm run build:web`); /app and /book answer 503');
  }

  const sendPage = async (_request: unknown, reply: FastifyReply) => {
    if (!indexHtml) {
      return sendErrorResponse(reply, errorResponse('unavailable', 'The web app has not been built. Run `npm run build:web`.'));
    }
    return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(indexHtml);
  };
  app.get('/app', sendPage);
  app.get('/app/*', sendPage);
  app.get('/book/:userSlug/:eventTypeSlug', sendPage);

  const faviconFile = path.join(webRoot, 'favicon.svg');
  if (existsSync(faviconFile)) {
    const favicon = readFileSync(faviconFile);
    app.get('/app/favicon.svg', async (_request, reply) =>
      reply.header('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(favicon),
    );
  }

  const assetsDir = path.join(webRoot, 'assets');
  if (existsSync(assetsDir)) {
    // File names carry a content hash, so they never change: cache them for good.
    await app.register(fastifyStatic, {
      root: assetsDir,
      prefix: ASSETS_PREFIX,
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (reply) => void reply.header('X-Content-Type-Options', 'nosniff'),
    });
  }
}
