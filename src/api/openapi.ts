import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { SCOPE_DESCRIPTIONS } from '../identity/scopes.ts';
import { collectOperations, postProcessOpenApi } from './openapi-postprocess.ts';
import { appRouter } from './root.ts';

/** Where the REST door serves the procedures that have an OpenAPI route. */
export const REST_BASE_PATH = '/api/v2';

/**
 * The OpenAPI 3.1 document of /api/v2: generated from the router by trpc-to-openapi, then completed from each
 * procedure's meta (src/api/openapi-postprocess.ts). Built once per SITE_URL: the router does not change while
 * the process runs.
 */
const cache = new Map<string, OpenAPIObject>();

export function buildOpenApiDocument(siteUrl: string): OpenAPIObject {
  const cached = cache.get(siteUrl);
  if (cached) return cached;
  const generated = generateOpenApiDocument(appRouter, {
    title: 'Scheduling API',
    description: 'Event types, availability, bookings, leads and contacts of the authenticated user.',
    version: '2.0.0',
    baseUrl: `${siteUrl}${REST_BASE_PATH}`,
    license: { name: 'Proprietary', url: `${siteUrl}/terms` },
  });
  const document = postProcessOpenApi(generated, {
    siteUrl,
    basePath: REST_BASE_PATH,
    scopes: SCOPE_DESCRIPTIONS,
    operations: collectOperations(appRouter),
  });
  cache.set(siteUrl, document);
  return document;
}
