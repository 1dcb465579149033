import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { REST_BASE_PATH } from '../http/api-mounts.ts';
import { appRouter } from './root.ts';

/**
 * The OpenAPI 3.1 document of /api/v2, generated from the router. Built once per SITE_URL: the router
 * does not change while the process runs.
 */
const cache = new Map<string, OpenAPIObject>();

export function buildOpenApiDocument(siteUrl: string): OpenAPIObject {
  const cached = cache.get(siteUrl);
  if (cached) return cached;
  const document = generateOpenApiDocument(appRouter, {
    title: 'Scheduling API',
    description: 'Event types, availability, bookings, leads and contacts of the authenticated user.',
    version: '2.0.0',
    baseUrl: `${siteUrl}${REST_BASE_PATH}`,
    license: { name: 'Proprietary', url: `${siteUrl}/terms` },
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'A personal access token (`pat_…`) or an OAuth 2.0 access token.',
      },
    },
  });
  cache.set(siteUrl, document);
  return document;
}
