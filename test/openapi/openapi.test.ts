import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../src/router/root.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

const run = promisify(execFile);
const SITE_URL = 'https://scheduling.acme.dev';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  operationId: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { name?: string; in?: string; required?: boolean; $ref?: string }[];
  responses: Record<string, { headers?: Record<string, { $ref: string }>; content?: Record<string, { schema: unknown }> }>;
}
interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Partial<Record<(typeof HTTP_METHODS)[number], Operation>>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, Record<string, unknown>> };
}

interface RestMeta {
  scope?: string;
  successStatus?: number;
  idempotent?: boolean;
  openapi?: { method: string; path: string; enabled?: boolean };
}

/** The REST operations straight from the router, independently of the code under test. */
function restProcedures(): { key: string; method: string; path: string; meta: RestMeta }[] {
  return Object.values(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: RestMeta } }>)
    .map((procedure) => procedure._def.meta)
    .filter((meta): meta is RestMeta & { openapi: NonNullable<RestMeta['openapi']> } =>
      Boolean(meta?.openapi && meta.openapi.enabled !== false),
    )
    .map((meta) => {
      const method = meta.openapi.method.toLowerCase();
      const openapiPath = `/${meta.openapi.path.replace(/^\/|\/$/g, '')}`;
      return { key: `${method} ${openapiPath}`, method, path: openapiPath, meta };
    });
}

function operations(doc: Document): { key: string; method: string; path: string; operation: Operation }[] {
  return Object.entries(doc.paths).flatMap(([p, item]) =>
    HTTP_METHODS.flatMap((method) => {
      const operation = item[method];
      return operation ? [{ key: `${method} ${p}`, method, path: p, operation }] : [];
    }),
  );
}

let t: TestApp;
let user: TestUser;
let doc: Document;
let baseUrl: string;
const workDir = path.resolve('test/artifacts', `openapi-${process.pid}-${Date.now()}`);

beforeAll(async () => {
  t = await startTestApp({ env: { SITE_URL } });
  user = await createUserWithToken(t.em(), { name: 'Olive Openapi', timezone: 'Europe/Lisbon' });
  const res = await t.http.get('/api/docs/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Document;
  await t.app.fastify.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.fastify.server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}/api/v2`;
  mkdirSync(workDir, { recursive: true });
});

afterAll(async () => {
  rmSync(workDir, { recursive: true, force: true });
  await t?.close();
});

describe('the served OpenAPI document', () => {
  it('is OpenAPI 3.1 with the API server of SITE_URL', () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers).toEqual([{ url: `${SITE_URL}/api/v2`, description: expect.any(String) }]);
  });

  it('passes redocly lint with no errors', async () => {
    const file = path.join(workDir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const result = await run('npx', ['redocly', 'lint', file, '--format=stylish'], {
      cwd: process.cwd(),
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    }).then(
      (ok) => ({ code: 0, output: ok.stdout + ok.stderr }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code ?? 1,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    expect(result.output).toContain('validating');
    expect(result, result.output).toMatchObject({ code: 0 });
  }, 60_000);

  it('has exactly one operation per procedure with openapi meta', () => {
    const expected = restProcedures().map((p) => p.key).sort();
    expect(expected).toContain('get /me');
    expect(operations(doc).map((o) => o.key).sort()).toEqual(expected);
  });

  it('completes every operation from its meta', () => {
    const byKey = new Map(restProcedures().map((p) => [p.key, p.meta]));
    const ids = new Set<string>();
    for (const { key, path: p, operation } of operations(doc)) {
      const meta = byKey.get(key)!;
      const where = `${key}: `;
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(operation.operationId), `${where}duplicate operationId`).toBe(false);
      ids.add(operation.operationId);

      if (meta.scope) {
        expect(operation.security, where).toEqual([{ bearerAuth: [meta.scope] }, { oauth2: [meta.scope] }]);
        expect(operation.description, where).toContain(`Requires scope \`${meta.scope}\``);
      }

      const statuses = Object.keys(operation.responses).map(Number);
      const success = meta.successStatus ?? 200;
      expect(statuses.filter((s) => s < 400), where).toEqual([success]);
      if (meta.scope) {
        expect(Object.keys(operation.responses[String(success)]!.headers ?? {}), where).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
        expect(statuses, where).toEqual(expect.arrayContaining([401, 403]));
      }
      expect(statuses, where).toEqual(expect.arrayContaining([429, 500, 503]));
      expect(Object.keys(operation.responses['429']!.headers ?? {}), where).toContain('Retry-After');
      for (const status of statuses.filter((s) => s >= 400)) {
        expect(operation.responses[String(status)]!.content, `${where}${status}`).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
      if (p.includes('{')) expect(statuses, where).toContain(404);
      if ((operation.parameters ?? []).length > 0 || p.includes('{')) expect(statuses, where).toContain(400);

      const idempotencyParameter = { $ref: '#/components/parameters/IdempotencyKey' };
      if (meta.idempotent) expect(operation.parameters, where).toContainEqual(idempotencyParameter);
      else expect(operation.parameters ?? [], where).not.toContainEqual(idempotencyParameter);
    }
  });

  it('documents POST /bookings as 201 with 404 and 409, and its Idempotency-Key', () => {
    const create = doc.paths['/bookings']?.post;
    expect(create).toBeDefined();
    expect(Object.keys(create!.responses)).toEqual(expect.arrayContaining(['201', '400', '404', '409', '429']));
    expect(create!.responses['200']).toBeUndefined();
    expect(create!.operationId).toBe('createBooking');
    expect(create!.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(doc.paths['/bookings/{id}']?.delete?.operationId).toBe('cancelBooking');
    expect(doc.paths['/bookings']?.get?.operationId).toBe('listBookings');
  });

  it('carries the rules the service enforces: IANA zones, the Idempotency-Key syntax, cross-field rules', () => {
    const json = (value: unknown) => JSON.stringify(value);
    const parameters = doc.paths['/availability']?.get?.parameters as { name: string; description?: string; schema: Record<string, unknown> }[];
    const tz = parameters.find((parameter) => parameter.name === 'tz')!;
    expect(tz.schema.pattern).toEqual(expect.any(String));
    expect(new RegExp(tz.schema.pattern as string).test('America/Argentina/Buenos_Aires')).toBe(true);
    expect(new RegExp(tz.schema.pattern as string).test('Europe/Berlin; drop')).toBe(false);
    expect(json(tz)).toMatch(/IANA/);
    expect(parameters.find((parameter) => parameter.name === 'to')!.description).toMatch(/after `from`/);

    const idempotencyKey = (doc.components as unknown as { parameters: Record<string, { description: string; schema: Record<string, unknown> }> })
      .parameters.IdempotencyKey!;
    expect(idempotencyKey.schema).toMatchObject({ minLength: 1, maxLength: 255, pattern: '^[!-~]+$' });
    expect(idempotencyKey.description).toMatch(/visible ASCII/);

    const listTo = (doc.paths['/bookings']?.get?.parameters as { name: string; description?: string }[]).find((p) => p.name === 'to');
    expect(json(listTo)).toMatch(/not before `from`/);
    expect(json(doc.components.schemas.TimeInterval)).toMatch(/`start` must be before `end`/);
    const createEventType = json(doc.paths['/event-types']?.post);
    const eventTypeSchemas = json(doc.components.schemas);
    expect(createEventType + eventTypeSchemas).toMatch(/group event types only/);
  });

  it('describes the security schemes with every scope and the one Error schema', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const oauth = doc.components.securitySchemes.oauth2 as {
      flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> } };
    };
    expect(oauth.flows.authorizationCode.authorizationUrl).toBe(`${SITE_URL}/oauth/authorize`);
    expect(oauth.flows.authorizationCode.tokenUrl).toBe(`${SITE_URL}/oauth/token`);
    expect(Object.keys(oauth.flows.authorizationCode.scopes).sort()).toEqual([...ALL_SCOPES].sort());
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(doc.components.schemas.Error).toMatchObject({ required: ['title', 'message'] });
  });
});

describe('a client generated from the document', () => {
  let typesSource: string;

  beforeAll(async () => {
    typesSource = astToString(await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]));
    writeFileSync(path.join(workDir, 'api-types.ts'), typesSource);
  });

  it('has a type for every operation', () => {
    expect(typesSource).toContain('export interface paths');
    for (const { path: p, operation } of operations(doc)) {
      expect(typesSource).toContain(`"${p}"`);
      expect(typesSource).toContain(`${operation.operationId}:`);
    }
  });

  it('typechecks a typed openapi-fetch program and runs it against the service', async () => {
    const program = `import createClient from 'openapi-fetch';
import type { paths } from './api-types.ts';

const client = createClient<paths>({ baseUrl: process.env.API_BASE_URL! });
const headers = { Authorization: \`Bearer \${process.env.API_TOKEN}\` };
const { data, error, response } = await client.GET('/me', { headers });
if (error) throw new Error(\`\${response.status} \${error.title}: \${error.message}\`);
const email: string = data.email;
const name: string | null = data.name;
// @ts-expect-error the document has no such path
void client.GET('/no-such-path');
// @ts-expect-error User has no such field
void data.password;
const bookings = await client.GET('/bookings', { params: { query: { limit: 5, status: 'active' } }, headers });
if (bookings.error) throw new Error(bookings.error.message);
const count: number = bookings.data.data.length;
const nextCursor: string | null = bookings.data.nextCursor;
// @ts-expect-error limit is an integer
void client.GET('/bookings', { params: { query: { limit: 'five' } }, headers });
process.stdout.write(JSON.stringify({ status: response.status, email, name, timezone: data.timezone, limit: response.headers.get('x-ratelimit-limit'), count, nextCursor }));
`;
    const file = path.join(workDir, 'client.ts');
    writeFileSync(file, program);
    const tsc = await run(
      'npx',
      [
        'tsc',
        '--noEmit',
        '--strict',
        '--target',
        'ES2023',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--allowImportingTsExtensions',
        '--skipLibCheck',
        '--types',
        'node',
        file,
      ],
      { cwd: process.cwd() },
    ).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, output: error.stdout ?? '' }),
    );
    expect(tsc, tsc.output).toEqual({ code: 0, output: '' });

    const { stdout } = await run(process.execPath, [file], {
      cwd: workDir,
      env: { ...process.env, API_BASE_URL: baseUrl, API_TOKEN: user.token },
    });
    expect(JSON.parse(stdout)).toEqual({
      status: 200,
      email: user.email,
      name: 'Olive Openapi',
      timezone: 'Europe/Lisbon',
      limit: '600',
      count: 0,
      nextCursor: null,
    });
  }, 120_000);

  it('reads every GET operation without required parameters through openapi-fetch', async () => {
    const client = createClient<Record<string, Record<string, unknown>>>({ baseUrl });
    const gets = operations(doc).filter(
      ({ method, operation }) =>
        method === 'get' &&
        !(operation.parameters ?? []).some((parameter) => parameter.required || parameter.in === 'path'),
    );
    expect(gets.map((g) => g.path)).toContain('/me');
    for (const { path: p } of gets) {
      const { response, data } = await (
        client as unknown as {
          GET(path: string, init: object): Promise<{ response: Response; data?: unknown }>;
        }
      ).GET(p, { headers: Object.fromEntries([bearer(user.token)]) });
      expect(response.status, p).toBe(200);
      expect(response.headers.get('content-type'), p).toMatch(/^application\/json/);
      expect(data, p).toBeTypeOf('object');
    }
  });
});
