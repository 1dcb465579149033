/**
 * The fixed vocabulary of the OpenAPI document that src/router/openapi-postprocess.ts applies to each operation:
 * reusable headers and parameters, the error responses and which headers each carries, the security schemes,
 * and the wording of descriptions.
 */
import { z } from 'zod';
import { ErrorBodySchema } from '../lib/errors.ts';

export type Json = Record<string, unknown>;

/** The guides of the repository's docs/ that the site serves (as plain text) and the document links to. */
export const GUIDES = ['quickstart', 'oauth-apps', 'mcp', 'webhooks'] as const;
export type Guide = (typeof GUIDES)[number];
export const guidePath = (name: Guide): string => `/docs/${name}.md`;
/** Where the site serves the repository's LICENSE, which the document's `info.license` names. */
export const LICENSE_PATH = '/api/docs/license';

export const SECURITY_SCHEME_BEARER = 'bearerAuth';
export const SECURITY_SCHEME_OAUTH = 'oauth2';
export const ERROR_SCHEMA = 'Error';

export const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};

export const HEADER_COMPONENTS: Record<string, Json> = {
  'X-RateLimit-Limit': {
    description: 'Requests this token may make per minute.',
    schema: { type: 'integer', minimum: 1, examples: [600] },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left for this token in the current window.',
    schema: { type: 'integer', minimum: 0, examples: [599] },
  },
  'X-RateLimit-Reset': {
    description: 'Unix epoch seconds at which the current window ends and the budget refills.',
    schema: { type: 'integer', minimum: 0, examples: [1798761600] },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying.',
    required: true,
    schema: { type: 'integer', minimum: 1, examples: [30] },
  },
  'WWW-Authenticate': {
    description:
      'A `Bearer` challenge naming the error and, via `resource_metadata`, where to discover the authorization server (RFC 9728).',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: 'Present and `true` when this response is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: {
    description: 'The absolute URL of the created resource (`GET` it to read it again).',
    schema: { type: 'string', format: 'uri' },
  },
};

export const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A unique value (e.g. a UUID) chosen by the client: 1 to 255 visible ASCII characters, sent once (400 otherwise). ' +
    'Retrying the request with the same key returns the stored response of the first attempt instead of performing the ' +
    'operation twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
  example: '7c4a2f9e-1b3d-4e6a-8f0c-5d2b9e7a1c43',
};

/** The `Error` component: the error body's own zod schema (src/lib/errors.ts), as JSON Schema. */
export const ERROR_SCHEMA_OBJECT: Json = (() => {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(ErrorBodySchema, { io: 'input' });
  return schema;
})();

interface ErrorResponseSpec {
  description: string;
  /** Whether the response passes the token's rate limiter first, so it carries the X-RateLimit-* headers. */
  rateLimited: boolean;
  headers?: string[];
}

/**
 * Which statuses carry which headers follows the middleware order of a scoped procedure: authentication
 * (401, 503 when the database is gone) runs before the rate limiter; the scope check (403), input
 * validation (400) and the service (404, 409) run after it. 413 and 415 come from body parsing, first of all.
 */
export const ERROR_RESPONSES: Record<number, ErrorResponseSpec> = {
  400: { description: 'The request is invalid; `details` lists the validation issues.', rateLimited: true },
  401: {
    description: 'The bearer token is missing, invalid, expired or revoked, or its user is not on the Team plan.',
    rateLimited: false,
    headers: ['WWW-Authenticate'],
  },
  403: { description: 'The token lacks the scope this operation requires.', rateLimited: true, headers: ['WWW-Authenticate'] },
  404: { description: 'The resource does not exist or the caller does not own it.', rateLimited: true },
  409: { description: 'The request conflicts with the current state of the resource.', rateLimited: true },
  413: { description: 'The request body exceeds 100 KiB.', rateLimited: false },
  415: { description: 'The request body is not `application/json`.', rateLimited: false },
  422: { description: 'The request is well-formed but cannot be processed.', rateLimited: true },
  429: { description: 'The token exceeded its request rate.', rateLimited: true, headers: ['Retry-After'] },
  500: { description: 'An unexpected error; it has been logged. The body says nothing internal.', rateLimited: false },
  503: {
    description: 'A backing service (the database) is unavailable; retry after the given delay.',
    rateLimited: false,
    headers: ['Retry-After'],
  },
};

export const SUCCESS_DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

export const TAG_DESCRIPTIONS: Record<string, string> = {
  user: 'The authenticated user.',
  users: 'The authenticated user.',
  me: 'The authenticated user.',
  eventtypes: 'The kinds of meeting the user offers, each with its booking page.',
  availability: 'Bookable time slots computed from schedules, buffers and existing bookings.',
  bookings: 'Meetings booked on the user’s event types: list, create, reschedule, cancel and mark no-shows.',
  leads: 'People who left their details on a booking page, whether or not they went on to book.',
  contacts: 'Clients and leads merged by e-mail address.',
  slotholds: 'A slot kept for you for a few minutes while an invitee decides, then booked with `holdId` or let go.',
};


export function securitySchemes(siteUrl: string, scopes: Readonly<Record<string, string>>): Json {
  return {
    [SECURITY_SCHEME_BEARER]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'A personal access token (`pat_…`, created in the developer settings) or an OAuth 2.0 access token, sent as ' +
        '`Authorization: Bearer <token>`. Only tokens of Team-plan users authenticate.',
    },
    [SECURITY_SCHEME_OAUTH]: {
      type: 'oauth2',
      description:
        'OAuth 2.0 Authorization Code flow with PKCE (S256). Public clients may register themselves at ' +
        `\`${siteUrl}/oauth/register\`.`,
      flows: {
        authorizationCode: {
          authorizationUrl: `${siteUrl}/oauth/authorize`,
          tokenUrl: `${siteUrl}/oauth/token`,
          refreshUrl: `${siteUrl}/oauth/token`,
          scopes: { ...scopes },
        },
      },
    },
  };
}
