import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead } from '../helpers/booking-factories.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';

/**
 * Property-based fuzzing of /api/v2 from its own OpenAPI document, and of the MCP tools from their input schemas:
 * requests built from each parameter's schema with hostile values mixed in (wrong types, NUL, lone surrogates, bad
 * encodings, huge or deep values, unknown fields, wrong methods). Never a 5xx; every error is the spec's body (a
 * JSON-RPC answer for /mcp). On failure fast-check reports the seed; FUZZ_SEED=<seed> replays it.
 */

const RUNS_PER_OPERATION = 60;
const RUNS_PER_TOOL = 10;
/** FUZZ_SURVEY=1 runs every operation to the end and lists each kind of failure instead of stopping at the first. */
const survey = process.env.FUZZ_SURVEY ? new Map<string, string>() : undefined;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** Ids of the fuzzing user's own event type, booking and lead, so hostile values also reach code past the lookup. */
const existingIds: string[] = [];

/** Strings PostgreSQL, JSON or a URL parser choke on, and plain odd ones. */
const hostileText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uFFFF', '\u202Eevil', '%', '%00', '%FF', '../..', '') },
  { weight: 2, arbitrary: fc.constantFrom("' or 1=1 --", '\\', '"', '{}', '[]', 'null', 'true', '-1', '1e309', '0x10', 'NaN') },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

const unstorableText = fc.constantFrom('\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy');

const deepJson = fc.integer({ min: 401, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));

/** A JSON text for any value, hostile or not; `raw` texts (deep nesting) are spliced in unparsed. */
type Value = unknown;
const RAW = Symbol('raw json');
const rawJson = deepJson.map((text) => ({ [RAW]: text }));

const hostileValue: fc.Arbitrary<Value> = fc.oneof(
  hostileText,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
  rawJson,
);

function toJson(value: Value): string {
  const splices: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && RAW in v) {
      splices.push((v as Record<symbol, string>)[RAW] ?? '');
      return `__RAW_${splices.length - 1}__`;
    }
    return v;
  });
  return (text ?? 'null').replace(/"__RAW_(\d+)__"/g, (_m, i: string) => splices[Number(i)]!);
}

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema {
  if (!schema) return {};
  if (schema.$ref) return resolve(doc, doc.components?.schemas?.[schema.$ref.split('/').at(-1)!]);
  return schema;
}

/** A value that fits the schema, roughly: enough to get past the first check so hostile siblings reach deeper code. */
function plausible(doc: OpenApiDocument, raw: Schema | undefined, depth = 0): fc.Arbitrary<Value> {
  const schema = resolve(doc, raw);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) return fc.oneof(...variants.map((variant) => plausible(doc, variant, depth + 1)));
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? -10, max: schema.maximum ?? 1000 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(plausible(doc, schema.items, depth + 1), { maxLength: 2 });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const entries = Object.entries(schema.properties ?? {}).map(([key, child]) => [key, plausible(doc, child, depth + 1)] as const);
      return fc.record(Object.fromEntries(entries), { requiredKeys: schema.required ?? [] });
    }
    case 'string':
      if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      if (schema.format === 'email') return fc.constant('someone@example.test');
      return fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom(...existingIds));
    default:
      return fc.string({ maxLength: 5 });
  }
}

/** The plausible value with some of its fields (or itself) replaced by hostile values, plus unknown fields. */
function hostileVariant(doc: OpenApiDocument, schema: Schema | undefined): fc.Arbitrary<Value> {
  const resolved = resolve(doc, schema);
  const fields = Object.keys(resolved.properties ?? {});
  return fc.oneof(
    { weight: 1, arbitrary: hostileValue },
    // One string anywhere in an otherwise plausible value, nested ones included, made unstorable.
    { weight: 2, arbitrary: fc.tuple(plausible(doc, resolved), fc.nat(), unstorableText).map(([base, n, text]) => poisonOneString(base, n, text)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          plausible(doc, resolved),
          fc.oneof(fc.subarray(fields, { maxLength: Math.min(1, fields.length) }), fc.subarray(fields)),
          fc.array(hostileValue, { minLength: fields.length, maxLength: fields.length }),
          fc.option(fc.dictionary(fc.constantFrom('unknownField', '__proto__', 'constructor', 'id', 'userId'), hostileValue, { maxKeys: 2 }), {
            nil: {},
            freq: 1,
          }),
        )
        .map(([base, replaced, values, extra]) => {
          if (!base || typeof base !== 'object' || Array.isArray(base)) return base;
          const copy: Record<string, Value> = { ...(base as Record<string, Value>) };
          replaced.forEach((field, i) => (copy[field] = values[i]));
          return Object.assign(copy, extra);
        }),
    },
  );
}

/** The value with its n-th string (modulo how many it has) replaced by `text`. */
function poisonOneString(value: Value, n: number, text: string): Value {
  let count = 0;
  const countStrings = (v: Value): void => {
    if (typeof v === 'string') count++;
    else if (v && typeof v === 'object') Object.values(v).forEach(countStrings);
  };
  countStrings(value);
  if (count === 0) return value;
  let index = n % count;
  const replace = (v: Value): Value => {
    if (typeof v === 'string') return index-- === 0 ? text : v;
    if (Array.isArray(v)) return v.map(replace);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, replace(child)]));
    return v;
  };
  return replace(value);
}

/** Percent-encodes for a URL, keeping lone surrogates (which encodeURIComponent refuses) as invalid UTF-8. */
function encode(text: string): string {
  return text.replace(/[\s\S]/gu, (ch) => {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) return '%ED%A0%80';
    return encodeURIComponent(ch);
  });
}

const rawQueryText = fc.oneof(
  hostileText.map(encode),
  fc.constantFrom('', '%ZZ', '%FF', '%C0%AF', '0x10', '1e3', '+5', '%205', '5%00'),
);

function queryString(doc: OpenApiDocument, parameters: Parameter[]): fc.Arbitrary<string> {
  const query = parameters.filter((p) => p.in === 'query');
  const plausiblePair = (parameter: Parameter) =>
    fc.option(plausible(doc, parameter.schema).map((v) => `${parameter.name}=${encode(String(v))}`), { nil: undefined, freq: 1 });
  const hostilePair = (parameter: Parameter) =>
    fc.oneof(
      rawQueryText.map((text) => `${parameter.name}=${text}`),
      unstorableText.map((text) => `${parameter.name}=${encode(text)}`),
      rawQueryText.map((text) => `${parameter.name}[]=${text}`),
      fc.constant(parameter.name),
    );
  // Everything at once, or one hostile parameter among plausible ones (so it is not hidden by its neighbours' errors).
  const mixed = fc.tuple(
    ...query.map((parameter) =>
      fc.option(fc.oneof({ weight: 3, arbitrary: plausiblePair(parameter) }, hostilePair(parameter)), { nil: undefined, freq: 1 }),
    ),
  );
  const single =
    query.length === 0
      ? fc.constant([])
      : fc.nat(query.length - 1).chain((target) => fc.tuple(...query.map((p, i) => (i === target ? hostilePair(p) : plausiblePair(p)))));
  const unknown = fc.option(
    fc.tuple(fc.constantFrom('durationMin', 'unknown', '__proto__', '%00', '%FF'), rawQueryText).map(([k, v]) => `${k}=${v}`),
    { nil: undefined, freq: 1 },
  );
  return fc.tuple(fc.oneof(mixed, single), unknown).map(([chosen, extra]) => {
    const parts = [...chosen, extra].filter((part): part is string => part !== undefined);
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

function pathFor(doc: OpenApiDocument, operation: Operation): fc.Arbitrary<string> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const values = names.map((name) => {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    return fc.oneof(
      fc.constantFrom(...existingIds),
      plausible(doc, parameter?.schema).map((v) => encode(String(v))),
      rawQueryText.filter((t) => t !== ''),
    );
  });
  return fc.tuple(...values).map((chosen) => {
    let path = operation.path;
    names.forEach((name, i) => (path = path.replace(`{${name}}`, chosen[i]!)));
    return `/api/v2${path}`;
  });
}

function bodyFor(doc: OpenApiDocument, operation: Operation): fc.Arbitrary<string | undefined> {
  if (!operation.body) return fc.constant(undefined);
  return fc.oneof(
    hostileVariant(doc, operation.body).map(toJson),
    fc.constantFrom('false', 'null', '0', 'true', '[]', '"x"', '[{}]'),
    deepJson.map((nested) => `{"a":${nested}}`),
  );
}

function requestFor(doc: OpenApiDocument, operation: Operation): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      path: pathFor(doc, operation),
      query: queryString(doc, operation.parameters),
      body: bodyFor(doc, operation),
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant(operation.method.toUpperCase()) },
        { weight: 1, arbitrary: fc.constantFrom('TRACE', 'OPTIONS', 'PROPFIND', 'QUERY', 'PATCH', 'DELETE') },
      ),
      idempotencyKey: fc.option(hostileText.map(encode), { nil: undefined }),
    })
    .map(({ path, query, body: chosenBody, method, idempotencyKey }) => {
      // HTTP forbids a body on TRACE; Node's parser refuses one before any of our code runs.
      const body = method === 'TRACE' ? undefined : chosenBody;
      const request: HostileRequest = {
        method,
        path: path + query,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey.slice(0, 8000) } : {}),
        },
        body,
      };
      // fast-check prints counterexamples with this; huge strings would bury the seed.
      return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
    });
}

function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      operations.push({
        method,
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

function describeRequest(request: HostileRequest): string {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…(${text.length} chars)` : text);
  const headers = Object.keys(request.headers).length ? ` ${JSON.stringify(request.headers, (_k, v: unknown) => (typeof v === 'string' ? cut(v) : v))}` : '';
  return `${request.method} ${cut(request.path)}${headers}${request.body === undefined ? '' : ` body=${cut(request.body)}`}`;
}

function expectSpecError(request: HostileRequest, answer: Answer): void {
  const where = `${describeRequest(request)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(answer.contentType, where).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  // `details` on every 400; on a 409 only where it names the failing occurrences of a booking series.
  const listed = answer.status === 400 || (answer.status === 409 && 'details' in body);
  expect(Object.keys(body).sort(), where).toEqual(listed ? ['details', 'message', 'title'] : ['message', 'title']);
  expect(typeof body.title === 'string' && typeof body.message === 'string', where).toBe(true);
  if (answer.status === 400) expect(Array.isArray(body.details), where).toBe(true);
}

interface McpTool {
  name: string;
  inputSchema: Schema & { $defs?: Record<string, Schema> };
}

/** A tools/call of `tool` with arguments built from its input schema, hostile ones mixed in, alone or in a batch. */
function toolCallFor(tool: McpTool): fc.Arbitrary<HostileRequest> {
  // The tool's own `$defs` play the part of the document's components for `resolve`.
  const doc: OpenApiDocument = { paths: {}, components: { schemas: tool.inputSchema.$defs ?? {} } };
  const args = fc.oneof(
    { weight: 3, arbitrary: hostileVariant(doc, tool.inputSchema) },
    { weight: 1, arbitrary: plausible(doc, tool.inputSchema) },
  );
  return fc.tuple(args, fc.boolean()).map(([value, inBatch]) => {
    const message = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(tool.name)},"arguments":${toJson(value)}}}`;
    const request: HostileRequest = {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: inBatch ? `[${message}]` : message,
    };
    return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
  });
}

/**
 * An answer of /mcp: JSON-RPC (a response per request; a refused POST is 400 with an error and a null id), each
 * tool error result carrying the spec's error body; the HTTP-level refusals (413 over the body limit, 429) the
 * spec's body.
 */
function expectJsonRpcAnswer(request: HostileRequest, answer: Answer): void {
  const where = `${describeRequest(request)} → ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status === 413 || answer.status === 429) return expectSpecError(request, answer);
  expect([200, 400], where).toContain(answer.status);
  expect(answer.contentType, where).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as unknown;
  for (const response of (Array.isArray(body) ? body : [body]) as Record<string, unknown>[]) {
    expect(response.jsonrpc, where).toBe('2.0');
    if (answer.status === 400 || response.error !== undefined) {
      const error = response.error as { code?: unknown; message?: unknown };
      expect(Number.isInteger(error.code) && typeof error.message === 'string', where).toBe(true);
      if (answer.status === 400) expect(response.id, where).toBeNull();
      continue;
    }
    const result = response.result as { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: unknown };
    expect(result.content[0]?.type, where).toBe('text');
    if (!result.isError) {
      expect(typeof result.structuredContent, where).toBe('object');
      continue;
    }
    const error = JSON.parse(result.content[0]!.text) as Record<string, unknown>;
    expect(typeof error.title === 'string' && typeof error.message === 'string', where).toBe(true);
    expect(Object.keys(error).every((key) => ['title', 'message', 'details'].includes(key)), where).toBe(true);
  }
}

describe('fuzzing /api/v2 from its OpenAPI document', () => {
  let t: TestApp;
  let user: TestUser;
  let port: number;
  const tally = { requests: 0, serverErrors: 0 };

  function send(request: HostileRequest): Promise<Answer> {
    return new Promise((resolvePromise, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          // A fresh connection each time: the server rightly closes one after a request it cannot parse.
          agent: false,
          method: request.method,
          path: request.path,
          headers: { authorization: `Bearer ${user.token}`, ...request.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolvePromise({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
  }

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: 1_000_000 });
    user = await createUserWithToken(t.em());
    const eventType = await createEventType(t.em(), user.id);
    const booking = await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - 86_400_000) });
    const lead = await createLead(t.em(), { eventType });
    existingIds.push(eventType.id, booking.id, lead.id);
    await t.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.fastify.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    console.info(`fuzz: ${tally.requests} hostile requests, ${tally.serverErrors} answered 5xx (seed ${SEED})`);
    await t.close();
  });

  it('answers every hostile request to every operation with a non-5xx, errors in the spec shape', async () => {
    const res = await t.http.get('/api/docs/openapi.json');
    const doc = res.body as OpenApiDocument;
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(10);
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(doc, operation), async (request) => {
          const answer = await send(request);
          tally.requests++;
          if (answer.status >= 500) tally.serverErrors++;
          try {
            expectSpecError(request, answer);
          } catch (error) {
            if (!survey) throw error;
            survey.set(`${operation.method.toUpperCase()} ${operation.path} → ${answer.status}`, `${describeRequest(request)} → ${answer.text.slice(0, 200)}`);
          }
        }),
        { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
      );
    }
    if (survey) expect([...survey].map(([kind, sample]) => `${kind}: ${sample}`)).toEqual([]);
  }, 120_000);

  it('answers every hostile argument object of every MCP tool with JSON-RPC, never a 5xx', async () => {
    const list = await send({
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = (JSON.parse(list.text) as { result: { tools: McpTool[] } }).result.tools;
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) {
      await fc.assert(
        fc.asyncProperty(toolCallFor(tool), async (request) => {
          const answer = await send(request);
          tally.requests++;
          if (answer.status >= 500) tally.serverErrors++;
          try {
            expectJsonRpcAnswer(request, answer);
          } catch (error) {
            if (!survey) throw error;
            survey.set(`${tool.name} → ${answer.status}`, `${describeRequest(request)} → ${answer.text.slice(0, 200)}`);
          }
        }),
        { numRuns: RUNS_PER_TOOL, seed: SEED, endOnFailure: true },
      );
    }
    if (survey) expect([...survey].map(([kind, sample]) => `${kind}: ${sample}`)).toEqual([]);
  }, 60_000);
});

/**
 * The operations whose input is only their path (POST /webhooks/{id}/test, …), which take no request body: fuzzed
 * with every kind of body and media type, on the fuzzing user's own resources so that an accepted request really
 * acts. Never a 5xx, errors in the spec shape, and a body other than none, an empty one or `{}` changes nothing.
 */
describe('fuzzing the operations without a request body', () => {
  let t: TestApp;
  let user: TestUser;
  let port: number;
  const ids: Record<string, string> = {};

  /** Every piece of state one of these operations changes: deliveries queued, signing secrets, private link keys. */
  async function fingerprint(): Promise<string> {
    const [row] = await t.em().execute<{ state: string }[]>(
      `select (select count(*) from webhook_delivery)
              || ':' || (select coalesce(string_agg(secret || coalesce(previous_secret, ''), ',' order by id), '') from webhook_endpoint)
              || ':' || (select coalesce(string_agg(coalesce(private_link_key_hash, '-'), ',' order by id), '') from event_type) as state`,
    );
    return row!.state;
  }

  /** A body these operations must refuse: anything but none, an empty one or a JSON `{}`. */
  function mustBeRefused(request: HostileRequest): boolean {
    if (request.body === undefined || request.body === '') return false;
    try {
      const value: unknown = JSON.parse(request.body);
      return !(request.headers['content-type']?.startsWith('application/json') && isEmptyObject(value));
    } catch {
      return true;
    }
  }

  const isEmptyObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

  const anyBody = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(undefined, '', '{}', ' {} ', '{"evil":1}', '{"id":"x"}', 'false', '[]', '"x"', 'null', '0', '[{}]') },
    { weight: 3, arbitrary: hostileValue.map(toJson) },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: deepJson },
  );
  const anyContentType = fc.constantFrom(undefined, 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml');

  function pathValue(operationPath: string, name: string): fc.Arbitrary<string> {
    const own = name === 'deliveryId' ? ids.deliveryId! : operationPath.startsWith('/webhooks') ? ids.webhookId! : ids.eventTypeId!;
    return fc.oneof({ weight: 8, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: rawQueryText.filter((text) => text !== '') });
  }

  function bodylessRequest(operation: Operation): fc.Arbitrary<HostileRequest> {
    const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    return fc
      .record({ values: fc.tuple(...names.map((name) => pathValue(operation.path, name))), body: anyBody, contentType: anyContentType })
      .map(({ values, body, contentType }) => {
        let path = operation.path;
        names.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
        const request: HostileRequest = {
          method: operation.method.toUpperCase(),
          path: `/api/v2${path}`,
          headers: contentType === undefined ? {} : { 'content-type': contentType },
          body,
        };
        return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
      });
  }

  function send(request: HostileRequest): Promise<Answer> {
    return new Promise((resolvePromise, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, agent: false, method: request.method, path: request.path, headers: { authorization: `Bearer ${user.token}`, ...request.headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolvePromise({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
          );
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
  }

  beforeAll(async () => {
    t = await startTestApp({ apiRateLimitPerMinute: 1_000_000 });
    user = await createUserWithToken(t.em());
    ids.eventTypeId = (await createEventType(t.em(), user.id, { secret: true, privateLinkKey: `fuzz-${SEED}` })).id;
    const webhook = await t.http.post('/api/v2/webhooks').set('Authorization', `Bearer ${user.token}`).send({ url: 'https://93.184.215.14/hooks', events: ['booking.created'] });
    ids.webhookId = webhook.body.id as string;
    const ping = await t.http.post(`/api/v2/webhooks/${ids.webhookId}/test`).set('Authorization', `Bearer ${user.token}`);
    ids.deliveryId = ping.body.id as string;
    await t.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.fastify.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('refuses every body but none, an empty one and {}, in the spec shape, and then changes nothing', async () => {
    expect(Object.values(ids)).toHaveLength(3);
    const doc = (await t.http.get('/api/docs/openapi.json')).body as OpenApiDocument;
    const bodyless = operationsOf(doc).filter((operation) => ['post', 'put', 'patch'].includes(operation.method) && !operation.body);
    expect(bodyless.length).toBeGreaterThanOrEqual(4);
    for (const operation of bodyless) {
      await fc.assert(
        fc.asyncProperty(bodylessRequest(operation), async (request) => {
          const refused = mustBeRefused(request);
          const before = refused ? await fingerprint() : undefined;
          const answer = await send(request);
          expectSpecError(request, answer);
          if (!refused) return;
          const where = `${describeRequest(request)} → ${answer.status} ${answer.text.slice(0, 200)}`;
          expect(answer.status, where).toBeGreaterThanOrEqual(400);
          expect(await fingerprint(), where).toBe(before);
        }),
        { numRuns: RUNS_PER_OPERATION, seed: SEED, endOnFailure: true },
      );
    }
  }, 120_000);
});
