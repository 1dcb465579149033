/**
 * Completes the thin document trpc-to-openapi generates, in one pure step driven by each procedure's meta:
 * servers, bearer + OAuth 2.0 security with the scope per operation, the real success status, the spec's
 * `Error` body on every error response (replacing the generator's own error components), rate-limit and
 * idempotency headers and tag descriptions. The fixed parts (headers, parameters, error responses, security
 * schemes, wording) are in src/router/openapi-components.ts.
 */
import {
  ERROR_RESPONSES,
  ERROR_SCHEMA,
  ERROR_SCHEMA_OBJECT,
  type Guide,
  HEADER_COMPONENTS,
  IDEMPOTENCY_KEY_PARAMETER,
  type Json,
  RATE_LIMIT_HEADERS,
  ref,
  SECURITY_SCHEME_BEARER,
  SECURITY_SCHEME_OAUTH,
  securitySchemes,
  SUCCESS_DESCRIPTIONS,
  TAG_DESCRIPTIONS,
} from './openapi-components.ts';

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
  /** The name SDK generators give the operation's method (meta.openapi.operationId, required). */
  operationId: string;
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
  /** Where a guide of docs/ is served, for the links in `info.description` and `externalDocs`. */
  guideUrl: (name: Guide) => string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

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
      'minute; every response tells how many remain in the `X-RateLimit-*` headers.\n\n' +
      `New here? The [quickstart](${options.guideUrl('quickstart')}) goes from an account to a first call, paging, ` +
      `errors and rate limits. Guides: [OAuth apps](${options.guideUrl('oauth-apps')}), ` +
      `[MCP](${options.guideUrl('mcp')}), [webhooks](${options.guideUrl('webhooks')}).\n\n` +
      '**Trying an operation**: "Authorize" signs in with OAuth (authorization code + PKCE) for this reference alone. ' +
      'To use a personal access token (`pat_…`) instead, choose *bearerAuth* and paste it. Create one in the developer ' +
      `settings (${options.siteUrl}/app/settings/developer) or, on the server, ` +
      'with `npm run -s cli -- pat create --email <your e-mail> --scopes all`. The ticked parameters are sent: untick ' +
      'an optional one to leave it out.\n\n' +
      `AI assistants can call every operation as a tool (named after its operationId in snake_case) of the MCP ` +
      `server at \`${options.siteUrl}/mcp\`: the same tokens, scopes and rate limit, with OAuth access tokens issued ` +
      `for \`${options.siteUrl}/mcp\` (or the whole site) rather than for this API.`,
    contact: { name: 'Scheduling API support', url: `${options.siteUrl}/api/docs` },
  };
  doc.servers = [{ url: apiUrl, description: 'This deployment' }];
  doc.externalDocs = { description: 'Quickstart: from an account to a first call', url: options.guideUrl('quickstart') };

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
  components.securitySchemes = securitySchemes(options.siteUrl, options.scopes);

  const facts = new Map(options.operations.map((op) => [operationKey(op.method, normalizePath(op.path)), op]));
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  const usedOperationIds = new Set<string>();
  const usedTags: string[] = [];

  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const fact = facts.get(operationKey(method, path));
      if (!fact) throw new Error(`${method.toUpperCase()} ${path}: no procedure declares this operation`);
      completeOperation(operation, fact, path, schemas);
      if (usedOperationIds.has(fact.operationId)) throw new Error(`operationId ${fact.operationId} is used twice`);
      usedOperationIds.add(fact.operationId);
      operation.operationId = fact.operationId;
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
  const parameters = ((operation.parameters ?? []) as Json[]).map((parameter) => documentedParameter(parameter, schemas));
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
  if (successStatus === 201) successHeaders.Location = ref('headers', 'Location');
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

/**
 * A parameter with the description and example of its zod schema on the parameter itself, where readers and
 * reference renderers look for them (the generator leaves them in the schema for optional parameters).
 */
function documentedParameter(parameter: Json, schemas: Json): Json {
  if (parameter.$ref !== undefined) return parameter;
  const schema = (parameter.schema ?? {}) as Json;
  const target = resolve(schema, schemas) ?? {};
  const description = parameter.description ?? schema.description ?? target.description;
  const examples = (schema.examples ?? target.examples) as unknown[] | undefined;
  return {
    ...parameter,
    ...(description !== undefined ? { description } : {}),
    ...(parameter.example === undefined && examples?.length ? { example: examples[0] } : {}),
  };
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
  openapi?: { enabled?: boolean; method: string; path: string; operationId: string };
}

/** Every procedure with REST (openapi) meta, as the post-processing needs it. */
export function collectOperations(router: { _def: { procedures: object } }): OperationFacts[] {
  const operations: OperationFacts[] = [];
  for (const [procedurePath, procedure] of Object.entries(router._def.procedures as Record<string, ProcedureLike>)) {
    const meta = procedure._def.meta as ProcedureMetaLike | undefined;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    if (!meta.openapi.operationId) throw new Error(`${procedurePath}: a REST procedure needs meta.openapi.operationId`);
    operations.push({
      procedurePath,
      method: meta.openapi.method.toLowerCase(),
      path: normalizePath(meta.openapi.path),
      ...(meta.scope !== undefined ? { scope: meta.scope } : {}),
      ...(meta.successStatus !== undefined ? { successStatus: meta.successStatus } : {}),
      ...(meta.idempotent !== undefined ? { idempotent: meta.idempotent } : {}),
      operationId: meta.openapi.operationId,
      ...(meta.errorStatuses !== undefined ? { errorStatuses: meta.errorStatuses } : {}),
    });
  }
  return operations;
}
