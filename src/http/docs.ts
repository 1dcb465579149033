import { readFileSync } from 'node:fs';
import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { buildOpenApiDocument, GUIDES, guidePath, LICENSE_PATH } from '../router/openapi.ts';
import { ALL_SCOPES } from '../identity/scopes.ts';
import { FAVICON_PATH, renderPage, sendHtml } from '../lib/html-page.ts';

export interface DocsOptions {
  siteUrl: string;
  /** The reference's own public OAuth client (registered by the app at startup) and its redirect path. */
  oauthClient: { clientId: string; redirectPath: string };
}

/** Where the Scalar plugin serves its bundled script (`<prefix>/js/scalar.js`); nothing else under it is public. */
const SCALAR_PREFIX = '/api/docs/scalar';
const SCALAR_SCRIPT = `${SCALAR_PREFIX}/js/scalar.js`;

/** The repository, whose LICENSE and docs/ guides are served as they are (read once, at startup). */
const REPOSITORY_ROOT = new URL('../../', import.meta.url);

/**
 * The reference page loads only this origin's scripts (the Scalar bundle and its start script, no inline script),
 * calls only this origin (the API, the token endpoint) and is never framed. Scalar writes its styles into
 * `<style>` elements and `style` attributes at run time, hence inline styles.
 */
const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" type="image/svg+xml" href="${FAVICON_PATH}">
  <title>Scheduling API reference</title>
</head>
<body>
  <div id="reference"></div>
  <noscript>This reference needs JavaScript; the <a href="/api/docs/openapi.json">OpenAPI document</a> is plain JSON and the
  <a href="${guidePath('quickstart')}">quickstart</a> plain text.</noscript>
  <script src="${SCALAR_SCRIPT}"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`;

/**
 * Scalar's configuration: the document, no fonts or services from elsewhere, and "Authorize" preset to our
 * authorization code flow with PKCE for the reference's own client, every scope selected (the consent screen still
 * lists them), landing on the redirect page; the document's description says how to use a personal access token.
 */
function referenceConfiguration(options: DocsOptions): Record<string, unknown> {
  return {
    url: '/api/docs/openapi.json',
    withDefaultFonts: false,
    hideClientButton: true,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    authentication: {
      preferredSecurityScheme: 'oauth2',
      securitySchemes: {
        oauth2: {
          flows: {
            authorizationCode: {
              'x-scalar-client-id': options.oauthClient.clientId,
              'x-scalar-redirect-uri': `${options.siteUrl}${options.oauthClient.redirectPath}`,
              'x-usePkce': 'SHA-256',
              selectedScopes: [...ALL_SCOPES],
            },
          },
        },
      },
    },
  };
}

/** Shown in the sign-in popup for the moment before the reference reads the code from its address and closes it. */
const REDIRECT_PAGE = renderPage(
  'Signing in to the API reference',
  `<h1>Signing in…</h1>
<p>This window closes by itself once the API reference has picked up the sign-in.</p>
<p class="muted">If it stays open, close it and return to the <a href="/api/docs">API reference</a>.</p>`,
);

function sendReference(reply: FastifyReply, body: string, type: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', REFERENCE_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache')
    .type(type)
    .send(body);
}

function readRepositoryFile(relativePath: string): string {
  return readFileSync(new URL(relativePath, REPOSITORY_ROOT), 'utf8');
}

/**
 * The OpenAPI document, the API reference rendered from it (Scalar, served from this process: no CDN), the page
 * its OAuth sign-in returns to, the license the document names, and the guides the document links to.
 */
export async function registerDocs(app: FastifyInstance, options: DocsOptions): Promise<void> {
  app.get('/api/docs/openapi.json', async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=60').send(buildOpenApiDocument(options.siteUrl)),
  );
  app.get('/api/docs', async (_request, reply) => sendReference(reply, REFERENCE_PAGE, 'text/html; charset=utf-8'));
  const init = `Scalar.createApiReference('#reference', ${JSON.stringify(referenceConfiguration(options))});\n`;
  app.get('/api/docs/init.js', async (_request, reply) => sendReference(reply, init, 'application/javascript; charset=utf-8'));
  app.get(options.oauthClient.redirectPath, async (_request, reply) => sendHtml(reply, 200, REDIRECT_PAGE));

  const license = readRepositoryFile('LICENSE');
  app.get(LICENSE_PATH, async (_request, reply) => sendText(reply, license));
  for (const name of GUIDES) {
    const text = readRepositoryFile(`docs/${name}.md`);
    app.get(guidePath(name), async (_request, reply) => sendText(reply, text));
  }

  await app.register(scalarApiReference, {
    routePrefix: SCALAR_PREFIX,
    configuration: { url: '/api/docs/openapi.json' },
    logLevel: 'warn',
    hooks: {
      // The plugin also serves its own page (with an inline script our CSP refuses): only its script is ours to serve.
      onRequest: async (request, reply) => {
        if (request.url.split('?')[0] !== SCALAR_SCRIPT) return reply.callNotFound();
        reply.header('Cache-Control', 'public, max-age=3600').header('X-Content-Type-Options', 'nosniff');
      },
    },
  });
}

/** Markdown and license text as plain text: readable in any browser, nothing to execute. */
function sendText(reply: FastifyReply, text: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'public, max-age=300')
    .type('text/plain; charset=utf-8')
    .send(text);
}
