import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorResponse, toErrorResponse } from '../lib/error-response.ts';
import { FAVICON_PATH } from '../lib/html-page.ts';
import { EMBED_SCRIPT } from './embed-script.ts';
import { sendErrorResponse } from './error-responses.ts';

/** Where `npm run build:web` (run by `npm ci` through `prepare`) writes the first-party web app. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web', import.meta.url));

/** The site's icon in the web app's source (its public assets). */
const FAVICON_SOURCE = fileURLToPath(new URL('../../web/public/favicon.svg', import.meta.url));

/** Where the built bundle's hashed files are served; the web app's Vite `base` is `/app/`. */
const ASSETS_PREFIX = '/app/assets/';

/**
 * The pages are one static bundle: only same-origin scripts, styles and calls; no referrer, so a secret event
 * type's `?key=` or a manage link's secret never leaves in a Referer header. The app's pages (/app: secrets,
 * the session) are never framed; the booking pages (/book/…) may be, by the sites BOOKING_FRAME_ANCESTORS names.
 */
const CONTENT_SECURITY_POLICY = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
].join('; ');

function pageHeaders(frameAncestors: string, extraPolicy = ''): Record<string, string> {
  return {
    'Content-Security-Policy': `${CONTENT_SECURITY_POLICY}${extraPolicy}; frame-ancestors ${frameAncestors}`,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
}

/**
 * The dashboard shows a booking's e-mail as it goes out, in a sandboxed frame that inherits this policy: e-mail
 * HTML is styled with style attributes, which only the app's pages allow (never a <style> element or a script).
 */
const APP_PAGE_HEADERS = { ...pageHeaders("'none'", "; style-src-attr 'unsafe-inline'"), 'X-Frame-Options': 'DENY' };

export interface WebAppOptions {
  webRoot?: string;
  /** The `frame-ancestors` sources of the booking pages (BOOKING_FRAME_ANCESTORS). */
  bookingFrameAncestors: string;
  /** The .ics file of the booking a manage link secret opens (a DomainError, e.g. 404, otherwise). */
  calendarFileOf: (token: string) => Promise<string>;
  /** The current slug of the user who had this old booking-page slug; null for any other slug. */
  currentSlugAfter: (userSlug: string) => Promise<string | null>;
}

/**
 * The first-party web app (Vite + React, built into dist/web): the developer settings at /app/…, the public
 * booking page at /book/:userSlug/:eventTypeSlug and the invitee's manage page at /book/manage/:token, one
 * single-page app that talks to /trpc; plus the manage page's .ics download and /embed.js.
 */
export async function registerWebApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT;
  const indexFile = path.join(webRoot, 'index.html');
  const indexHtml = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;
  if (!indexHtml) {
    app.log.warn({ webRoot }, 'the web app is not built (run `npm run build:web`); /app and /book answer 503');
  }

  const pageWith = (headers: Record<string, string>) => async (_request: unknown, reply: FastifyReply) => {
    if (!indexHtml) {
      return sendErrorResponse(reply, errorResponse('unavailable', 'The web app has not been built. Run `npm run build:web`.'));
    }
    return reply.headers(headers).type('text/html; charset=utf-8').send(indexHtml);
  };
  const sendAppPage = pageWith(APP_PAGE_HEADERS);
  const sendBookingPage = pageWith(pageHeaders(options.bookingFrameAncestors));
  app.get('/app', sendAppPage);
  app.get('/app/*', sendAppPage);
  app.get<{ Params: BookingPageParams }>('/book/:userSlug/:eventTypeSlug', async (request, reply) => {
    const moved = await movedBookingPage(request, options.currentSlugAfter);
    if (moved) return reply.headers({ 'Cache-Control': 'no-cache', 'Referrer-Policy': 'no-referrer' }).redirect(moved, 301);
    return sendBookingPage(request, reply);
  });
  app.get('/book/manage/:token', sendBookingPage);
  app.get<{ Params: { token: string } }>('/book/manage/:token/event.ics', async (request, reply) => {
    try {
      const file = await options.calendarFileOf(request.params.token);
      return reply
        .headers({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' })
        .header('Content-Disposition', 'attachment; filename="booking.ics"')
        .type('text/calendar; charset=utf-8')
        .send(file);
    } catch (error) {
      return sendErrorResponse(reply, toErrorResponse(error));
    }
  });
  app.get('/embed.js', async (_request, reply) =>
    reply
      .headers({ 'Cache-Control': 'public, max-age=300', 'X-Content-Type-Options': 'nosniff' })
      .type('text/javascript; charset=utf-8')
      .send(EMBED_SCRIPT),
  );

  // The server's own pages (sign-in, the API reference) link the icon too, so it is served even when the web
  // app is not built: from its source, which the build copies as it is.
  const faviconFile = [path.join(webRoot, 'favicon.svg'), FAVICON_SOURCE].find((file) => existsSync(file));
  if (faviconFile) {
    const favicon = readFileSync(faviconFile);
    app.get(FAVICON_PATH, async (_request, reply) =>
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

interface BookingPageParams {
  userSlug: string;
  eventTypeSlug: string;
}

/**
 * Where a booking page addressed by an old user slug lives now (path and query string kept), or null. The
 * redirect is permanent but not cached (`no-cache`), since a user may take an old slug of theirs back. If the
 * lookup fails the page is served as it is: its own calls report the outage.
 */
async function movedBookingPage(
  request: { params: BookingPageParams; url: string; log: FastifyInstance['log'] },
  currentSlugAfter: WebAppOptions['currentSlugAfter'],
): Promise<string | null> {
  let current: string | null;
  try {
    current = await currentSlugAfter(request.params.userSlug);
  } catch (error) {
    request.log.warn({ err: error }, 'booking page: the old-slug lookup failed; serving the page');
    return null;
  }
  if (current === null) return null;
  const query = request.url.indexOf('?');
  const search = query >= 0 ? request.url.slice(query) : '';
  return `/book/${encodeURIComponent(current)}/${encodeURIComponent(request.params.eventTypeSlug)}${search}`;
}
