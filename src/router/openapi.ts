import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { EXAMPLE } from '../lib/examples.ts';
import { WEBHOOK_EVENT_DATA, webhookEventBodySchema, type WebhookEventType } from '../modules/webhooks/webhooks.schemas.ts';
import { SCOPE_DESCRIPTIONS } from '../identity/scopes.ts';
import { guidePath, LICENSE_PATH } from './openapi-components.ts';
import { collectOperations, postProcessOpenApi } from './openapi-postprocess.ts';
import { appRouter } from './root.ts';

/** Where the REST door serves the procedures that have an OpenAPI route. */
export const REST_BASE_PATH = '/api/v2';

export { GUIDES, guidePath, LICENSE_PATH, SECURITY_SCHEME_BEARER } from './openapi-components.ts';

/**
 * The OpenAPI 3.1 document of /api/v2: generated from the router by trpc-to-openapi, then completed from each
 * procedure's meta (src/router/openapi-postprocess.ts). Built once per SITE_URL: the router does not change while
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
    license: { name: 'Proprietary', url: `${siteUrl}${LICENSE_PATH}` },
  });
  const document = postProcessOpenApi(generated, {
    siteUrl,
    basePath: REST_BASE_PATH,
    scopes: SCOPE_DESCRIPTIONS,
    operations: collectOperations(appRouter),
    guideUrl: (name) => `${siteUrl}${guidePath(name)}`,
  });
  document.webhooks = webhookEvents(document) as OpenAPIObject['webhooks'];
  cache.set(siteUrl, document);
  return document;
}

type Json = Record<string, unknown>;

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id: the same on every attempt, so a receiver can drop duplicates.', EXAMPLE.webhookEventId],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed.', '1795774500'],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated (Standard Webhooks).',
    'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  ],
] as const;

/**
 * The OpenAPI 3.1 `webhooks` section: the body of each event type, from the same zod schemas as the API's
 * resources (a schema with an id becomes a reference to the document's component of that name).
 */
function webhookEvents(document: OpenAPIObject): Json {
  const components = ((document.components ??= {}).schemas ??= {}) as Json;
  const events: Json = {};
  for (const type of Object.keys(WEBHOOK_EVENT_DATA) as WebhookEventType[]) {
    const { $defs, $schema: _dialect, ...schema } = z.toJSONSchema(webhookEventBodySchema(type), { io: 'output' }) as Json & {
      $defs?: Record<string, Json>;
    };
    for (const [name, definition] of Object.entries($defs ?? {})) components[name] ??= toComponentRefs(definition);
    events[type] = {
      post: {
        operationId: `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Event`,
        tags: ['Webhooks'],
        summary: `${type} event`,
        // The service calls the receiver; the signature, not a token, authenticates it.
        security: [],
        description: 'Signed per the Standard Webhooks specification; answer with a 2xx within 10 seconds.',
        parameters: SIGNATURE_HEADERS.map(([name, description, example]) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string' },
          example,
        })),
        requestBody: { required: true, content: { 'application/json': { schema: toComponentRefs(schema) } } },
        responses: { '200': { description: 'Received (any 2xx). Anything else is retried; 410 disables the endpoint.' } },
      },
    };
  }
  return events;
}

function toComponentRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}
