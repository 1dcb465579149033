import { createRequire } from 'node:module';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { buildOpenApiDocument } from '../api/openapi.ts';

const swaggerUiDir = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Scheduling API v2 reference</title>
  <link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <noscript>This reference needs JavaScript; the <a href="/api/docs/openapi.json">OpenAPI document</a> is plain JSON.</noscript>
  <script src="/api/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/api/docs/init.js"></script>
</body>
</html>`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/api/docs/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  persistAuthorization: false,
  oauth2RedirectUrl: window.location.origin + '/api/docs/assets/oauth2-redirect.html',
});
window.ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true });`;

/** The OpenAPI document and a browsable reference rendered from it (Swagger UI, served locally). */
export async function registerDocs(app: FastifyInstance, siteUrl: string): Promise<void> {
  app.get('/api/docs/openapi.json', async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=60').send(buildOpenApiDocument(siteUrl)),
  );
  app.get('/api/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(DOCS_PAGE));
  app.get('/api/docs/init.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(DOCS_INIT),
  );
  await app.register(fastifyStatic, { root: swaggerUiDir, prefix: '/api/docs/assets/', decorateReply: false });
}
