/**
 * Completes the thin document trpc-to-openapi generates, in one pure step driven by each procedure's meta:
 * servers, bearer + OAuth 2.0 security with the scope per operation, the real success status, the spec's
 * `Error` body on every error response (replacing the generator's own error components), rate-limit and
 * idempotency headers, operationIds that SDK generators keep, and tag descriptions.
 */

/** What the post-processing needs to know about one REST operation; collected from the router by `collectOperations`. */
export interface OperationFacts {
  /** The tRPC procedure path, e.g. `bookings.cancel`. */
  procedurePath: string;
  /** Lower-case HTTP method, as the document's path items key it. */
  method: string;
  /** The OpenAPI path relative to the server URL, e.g. `/bookings/{id}`. */
  path: string;
  /** The scope a bearer token needs; absent on public operations. */
  scope?: string;
  successStatus?: number;
  idempotent?: boolean;
  /** An operationId the procedure chose itself (meta.openapi.operationId). */
  operationId?: string;
  /** Error statuses to document beyond the ones derived from the operation's shape. */
  errorStatuses?: number[];
}

export interface PostProcessOptions {
  siteUrl: string;
  /** Where the REST API is mounted under the site, e.g. `/api/v2`. */
  basePath: string;
  /** Every OAuth scope with the words shown for it. */
  scopes: Readonly<Record<string, string>>;
  operations: readonly OperationFacts[];
}

type Json = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export const SECURITY_SCHEME_BEARER = 'bearerAuth';
export const SECURITY_SCHEME_OAUTH = 'oauth2';
export const ERROR_SCHEMA = 'Error';

const ref = (kind: string, name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};

const HEADER_COMPONENTS: Record<string, Json> = {
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
};

const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A unique value (e.g. a UUID) chosen by the client: 1 to 255 visible ASCII characters, sent once (400 otherwise). ' +
    'Retrying the request with the same key returns the stored response of the first attempt instead of performing the ' +
    'operation twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
};

const ERROR_SCHEMA_OBJECT: Json = {
  type: 'object',
  description: 'The body of every error response of this API.',
  properties: {
    title: { type: 'string', description: 'The HTTP status text, e.g. `Not Found`.', examples: ['Not Found'] },
    message: { type: 'string', description: 'What went wrong, for a human.', examples: ['Booking not found'] },
    details: {
      type: 'array',
      description: 'Present on 400 responses: one entry per validation issue.',
      items: {
        type: 'object',
        properties: {
          code: { type: 'string', description: 'The kind of issue, e.g. `invalid_type`.' },
          path: {
            type: 'array',
            description: 'Where in the input the issue is.',
            items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          },
          message: { type: 'string' },
        },
      },
    },
  },
  required: ['title', 'message'],
};

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
const ERROR_RESPONSES: Record<number, ErrorResponseSpec> = {
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

const SUCCESS_DESCRIPTIONS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

const TAG_DESCRIPTIONS: Record<string, string> = {
  user: 'The authenticated user.',
  users: 'The authenticated user.',
  me: 'The authenticated user.',
  eventtypes: 'The kinds of meeting the user offers, each with its booking page.',
  availability: 'Bookable time slots computed from schedules, buffers and existing bookings.',
  bookings: 'Meetings booked on the user’s event types: list, create, reschedule, cancel and mark no-shows.',
  leads: 'People who left their details on a booking page, whether or not they went on to book.',
  contacts: 'Clients and leads merged by e-mail address.',
};

const VERBS_ON_ONE = new Set(['get', 'create', 'cancel', 'delete', 'update', 'reschedule', 'confirm', 'mark']);

/** Post-processes a generated document; the input is not modified. */
export function postProcessOpenApi<T extends object>(generated: T, options: PostProcessOptions): T {
  const doc = structuredClone(generated) as Json;
  const apiUrl = `${options.siteUrl}${options.basePath}`;

  doc.info = {
    ...(doc.info as Json),
    description:
      'The public REST API of the scheduling service: the authenticated user, event types, availability, bookings, ' +
      'leads and contacts. Every operation needs a bearer token (a personal access token `pat_…` or an OAuth 2.0 ' +
      'access token) of a Team-plan user carrying the scope the operation names. Each token may make 600 requests per ' +
      'minute; every response tells how many remain in the `X-RateLimit-*` headers.',
    contact: { name: 'Scheduling API support', url: `${options.siteUrl}/api/docs` },
  };
  doc.servers = [{ url: apiUrl, description: 'This deployment' }];

  const components = (doc.components ?? {}) as Json;
  doc.components = components;
  const schemas = { ...((components.schemas ?? {}) as Json) };
  for (const name of Object.keys(schemas)) {
    if (name.startsWith('error.')) delete schemas[name];
  }
  schemas[ERROR_SCHEMA] = ERROR_SCHEMA_OBJECT;
  components.schemas = schemas;
  components.headers = { ...((components.headers ?? {}) as Json), ...HEADER_COMPONENTS };
  components.parameters = { ...((components.parameters ?? {}) as Json), IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER };
  components.securitySchemes = {
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
        `\`${options.siteUrl}/oauth/register\`.`,
      flows: {
        authorizationCode: {
          authorizationUrl: `${options.siteUrl}/oauth/authorize`,
          tokenUrl: `${options.siteUrl}/oauth/token`,
          refreshUrl: `${options.siteUrl}/oauth/token`,
          scopes: { ...options.scopes },
        },
      },
    },
  };

  const facts = new Map(options.operations.map((op) => [operationKey(op.method, normalizePath(op.path)), op]));
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  const usedOperationIds = new Set<string>();
  const usedTags: string[] = [];

  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const fact = facts.get(operationKey(method, path)) ?? { procedurePath: '', method, path };
      completeOperation(operation, fact, path, schemas);
      operation.operationId = uniqueOperationId(fact, operation, usedOperationIds);
      for (const tag of (operation.tags as string[] | undefined) ?? []) {
        if (!usedTags.includes(tag)) usedTags.push(tag);
      }
    }
  }

  pruneUnreferenced(doc, components, 'headers', Object.keys(HEADER_COMPONENTS));
  pruneUnreferenced(doc, components, 'parameters', ['IdempotencyKey']);

  const existingTags = new Map(((doc.tags ?? []) as Json[]).map((tag) => [String(tag.name), tag]));
  doc.tags = usedTags.map((name) => ({
    name,
    description:
      (existingTags.get(name)?.description as string | undefined) ??
      TAG_DESCRIPTIONS[name.toLowerCase().replace(/[^a-z]/g, '')] ??
      `Operations on ${name.toLowerCase()}.`,
  }));
  return doc as T;
}

function completeOperation(operation: Json, fact: OperationFacts, path: string, schemas: Json): void {
  const scoped = fact.scope !== undefined;
  const hasBody = operation.requestBody !== undefined;
  const parameters = [...((operation.parameters ?? []) as Json[])];
  const hasInput = hasBody || parameters.length > 0 || path.includes('{');

  if (scoped) {
    operation.security = [{ [SECURITY_SCHEME_BEARER]: [fact.scope] }, { [SECURITY_SCHEME_OAUTH]: [fact.scope] }];
    const requirement = `Requires scope \`${fact.scope}\`.`;
    const description = typeof operation.description === 'string' ? operation.description.trim() : '';
    operation.description = description ? `${description}\n\n${requirement}` : requirement;
  } else {
    operation.security = [];
  }

  if (fact.idempotent) {
    if (!parameters.some((p) => p.$ref === '#/components/parameters/IdempotencyKey')) {
      parameters.push(ref('parameters', 'IdempotencyKey'));
    }
  }
  if (parameters.length > 0) operation.parameters = parameters;

  const generated = (operation.responses ?? {}) as Record<string, Json>;
  const success = generated['200'] ?? generated['201'] ?? { description: 'OK' };
  const successStatus = fact.successStatus ?? 200;
  const successHeaders: Json = { ...((success.headers ?? {}) as Json) };
  if (scoped) Object.assign(successHeaders, RATE_LIMIT_HEADERS);
  if (fact.idempotent) successHeaders['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
  const successDescription =
    typeof success.description === 'string' && success.description !== 'Successful response'
      ? success.description
      : (SUCCESS_DESCRIPTIONS[successStatus] ?? 'Success');
  const responses: Record<string, Json> = {
    [String(successStatus)]: {
      ...success,
      description: successDescription,
      ...(Object.keys(successHeaders).length > 0 ? { headers: successHeaders } : {}),
    },
  };

  const statuses = new Set<number>([429, 500, 503]);
  if (scoped) {
    statuses.add(401);
    statuses.add(403);
  }
  if (hasInput) statuses.add(400);
  if (hasBody) {
    statuses.add(413);
    statuses.add(415);
  }
  if (path.includes('{') || takesResourceId(parameters, operation.requestBody as Json | undefined, schemas)) {
    statuses.add(404);
  }
  if (fact.method === 'post') statuses.add(409);
  for (const status of fact.errorStatuses ?? []) statuses.add(status);

  for (const status of [...statuses].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse(status, scoped);
  }
  operation.responses = responses;
}

function errorResponse(status: number, scoped: boolean): Json {
  const spec = ERROR_RESPONSES[status] ?? { description: 'Error.', rateLimited: true };
  const headers: Json = {};
  if (scoped && spec.rateLimited) Object.assign(headers, RATE_LIMIT_HEADERS);
  for (const name of spec.headers ?? []) {
    // A public operation has no token to challenge or to count.
    if (!scoped && name === 'WWW-Authenticate') continue;
    headers[name] = ref('headers', name);
  }
  return {
    description: spec.description,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/json': { schema: ref('schemas', ERROR_SCHEMA) } },
  };
}

/** Drops the components this step added that no operation refers to (a linter flags unused components). */
function pruneUnreferenced(doc: Json, components: Json, kind: string, names: string[]): void {
  const text = JSON.stringify(doc.paths ?? {});
  const section = components[kind] as Json;
  for (const name of names) {
    if (!text.includes(`"#/components/${kind}/${name}"`)) delete section[name];
  }
  if (Object.keys(section).length === 0) delete components[kind];
}

/** Whether an operation names a resource by identifier (an `id` or `…Id` input), so it can answer 404. */
function takesResourceId(parameters: Json[], requestBody: Json | undefined, schemas: Json): boolean {
  const isIdName = (name: string) => name === 'id' || /Id$/.test(name);
  if (parameters.some((p) => typeof p.name === 'string' && isIdName(p.name))) return true;
  const content = (requestBody?.content ?? {}) as Record<string, Json>;
  for (const media of Object.values(content)) {
    const schema = resolve(media.schema as Json | undefined, schemas);
    const properties = (schema?.properties ?? {}) as Json;
    if (Object.keys(properties).some(isIdName)) return true;
  }
  return false;
}

function resolve(schema: Json | undefined, schemas: Json): Json | undefined {
  const target = typeof schema?.$ref === 'string' ? schema.$ref.match(/^#\/components\/schemas\/(.+)$/)?.[1] : undefined;
  return target ? (schemas[target] as Json | undefined) : schema;
}

function uniqueOperationId(fact: OperationFacts, operation: Json, used: Set<string>): string {
  const candidates = [
    fact.operationId,
    fact.procedurePath ? deriveOperationId(fact.procedurePath, fact.method) : undefined,
    fact.procedurePath ? camelCase(fact.procedurePath.split('.')) : undefined,
    typeof operation.operationId === 'string' ? camelCase(operation.operationId.split(/[^A-Za-z0-9]+/)) : undefined,
  ].filter((id): id is string => Boolean(id));
  const base = candidates.find((id) => !used.has(id)) ?? `${candidates[0] ?? 'operation'}${used.size}`;
  used.add(base);
  return base;
}

/**
 * `bookings.list` → `listBookings`, `bookings.cancel` → `cancelBooking`, `eventTypes.list` → `listEventTypes`,
 * `availability.slots` → `getAvailabilitySlots`: verb first, as SDK generators name methods after it.
 */
export function deriveOperationId(procedurePath: string, method: string): string {
  const segments = procedurePath.split('.').filter(Boolean);
  const last = segments.at(-1) ?? 'operation';
  const nouns = segments.slice(0, -1);
  if (nouns.length > 0 && last === 'list') return camelCase(['list', ...nouns]);
  if (nouns.length > 0 && VERBS_ON_ONE.has(last)) {
    const singular = [...nouns.slice(0, -1), singularize(nouns.at(-1)!)];
    return camelCase([last, ...singular]);
  }
  const verb = { get: 'get', post: 'create', put: 'replace', patch: 'update', delete: 'delete' }[method] ?? method;
  if (/^[a-z]+[A-Z]/.test(last) && /^(get|list|create|cancel|delete|update|search|find)/.test(last)) {
    return camelCase([last]);
  }
  return camelCase([verb, ...segments]);
}

function singularize(word: string): string {
  if (/ies$/.test(word)) return word.replace(/ies$/, 'y');
  if (/(ss|us|is)$/.test(word)) return word;
  if (/(sses|xes|ches|shes)$/.test(word)) return word.replace(/es$/, '');
  return word.replace(/s$/, '');
}

function camelCase(parts: string[]): string {
  const words = parts.flatMap((part) => part.split(/[^A-Za-z0-9]+/)).filter(Boolean);
  return words
    .map((word, index) => (index === 0 ? word[0]!.toLowerCase() + word.slice(1) : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}

function operationKey(method: string, path: string): string {
  return `${method.toLowerCase()} ${path}`;
}

/** The same normalization trpc-to-openapi applies to meta paths. */
export function normalizePath(path: string): string {
  return `/${path.replace(/^\/|\/$/g, '')}`;
}

interface ProcedureLike {
  _def: { meta?: unknown; type?: string };
}

interface ProcedureMetaLike {
  scope?: string;
  successStatus?: number;
  idempotent?: boolean;
  errorStatuses?: number[];
  openapi?: { enabled?: boolean; method: string; path: string; operationId?: string };
}

/** Every procedure with REST (openapi) meta, as the post-processing needs it. */
export function collectOperations(router: { _def: { procedures: object } }): OperationFacts[] {
  const operations: OperationFacts[] = [];
  for (const [procedurePath, procedure] of Object.entries(router._def.procedures as Record<string, ProcedureLike>)) {
    const meta = procedure._def.meta as ProcedureMetaLike | undefined;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    operations.push({
      procedurePath,
      method: meta.openapi.method.toLowerCase(),
      path: normalizePath(meta.openapi.path),
      ...(meta.scope !== undefined ? { scope: meta.scope } : {}),
      ...(meta.successStatus !== undefined ? { successStatus: meta.successStatus } : {}),
      ...(meta.idempotent !== undefined ? { idempotent: meta.idempotent } : {}),
      ...(meta.openapi.operationId !== undefined ? { operationId: meta.openapi.operationId } : {}),
      ...(meta.errorStatuses !== undefined ? { errorStatuses: meta.errorStatuses } : {}),
    });
  }
  return operations;
}
