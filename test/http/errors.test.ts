import pg from 'pg';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/router/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/**
 * Every error on /api/v2 has the spec's body: exactly `{title, message}`, plus `details` (an array) on 400.
 * The JSON-body cases need an operation that takes a JSON body: POST /bookings when it exists, else the first
 * such operation the OpenAPI document lists (the API has no test-only routes).
 */

interface BodyOperation {
  method: 'post' | 'put' | 'patch';
  path: string;
  required: string[];
}

function jsonBodyOperation(): BodyOperation {
  const doc = buildOpenApiDocument('http://localhost') as unknown as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
    components: { schemas: Record<string, Schema> };
  };
  type Schema = { $ref?: string; required?: string[] };
  const candidates: BodyOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const schema = item[method]?.requestBody?.content?.['application/json']?.schema;
      if (!schema || path.includes('{')) continue;
      const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)!] : schema;
      if (resolved?.required?.length) candidates.push({ method, path, required: resolved.required });
    }
  }
  const operation = candidates.find((c) => c.method === 'post' && c.path === '/bookings') ?? candidates[0];
  if (!operation) throw new Error('the API has no operation with a JSON body to test body errors against');
  return operation;
}

function expectErrorBody(res: Response, status: number, title: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const keys = Object.keys(res.body).sort();
  expect(keys).toEqual(status === 400 ? ['details', 'message', 'title'] : ['message', 'title']);
  expect(res.body.title).toBe(title);
  expect(res.body.message).toEqual(expect.any(String));
  expect(res.body.message.length).toBeGreaterThan(0);
  if (status === 400) expect(Array.isArray(res.body.details)).toBe(true);
}

describe('error responses on /api/v2', () => {
  let t: TestApp;
  let user: TestUser;
  const target = jsonBodyOperation();
  const send = (body: string, contentType = 'application/json') =>
    t.http[target.method](`/api/v2${target.path}`).set(...bearer(user.token)).set('Content-Type', contentType).send(body);

  beforeAll(async () => {
    t = await startTestApp();
    user = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  it('answers an unknown route with 404', async () => {
    const res = await t.http.get('/api/v2/nope').set(...bearer(user.token));
    expectErrorBody(res, 404, 'Not Found');
    expect(res.body.message).toBe('No route GET /api/v2/nope.');
    expectErrorBody(await t.http.get('/api/v2/nope?x=1'), 404, 'Not Found');
    expectErrorBody(await t.http.post('/api/v2/nope/deeper').send({}), 404, 'Not Found');
  });

  it('answers a wrong method on an existing path with 405 and Allow', async () => {
    for (const method of ['delete', 'post', 'put', 'patch'] as const) {
      const res = await t.http[method]('/api/v2/contacts').set(...bearer(user.token)).send({});
      expectErrorBody(res, 405, 'Method Not Allowed');
      expect(res.headers.allow).toBe('GET');
      expect(res.body.message).toBe(`${method.toUpperCase()} is not allowed on /api/v2/contacts; use GET.`);
    }
  });

  it('answers malformed JSON with 400', async () => {
    const res = await send('{bad');
    expectErrorBody(res, 400, 'Bad Request');
    expect(res.body.details).toEqual([]);
    expect(res.body.message).not.toMatch(/Unexpected token|position|SyntaxError/);
  });

  it('answers an empty JSON body with 400', async () => {
    expectErrorBody(await send(''), 400, 'Bad Request');
  });

  it('answers a body that is not JSON with 415, whatever the content type', async () => {
    for (const contentType of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      const res = await send('hello=world', contentType);
      expectErrorBody(res, 415, 'Unsupported Media Type');
      expect(res.body.message, contentType).toBe('Unsupported Content-Type: send the body as application/json.');
    }
  });

  it('answers a body over 100 KiB with 413', async () => {
    const res = await send(JSON.stringify({ padding: 'x'.repeat(101 * 1024) }));
    expectErrorBody(res, 413, 'Payload Too Large');
  });

  it('answers a schema violation with 400 and one detail per issue, each with path and message', async () => {
    const res = await send('{}');
    expectErrorBody(res, 400, 'Bad Request');
    expect(res.body.details.length).toBeGreaterThan(0);
    for (const detail of res.body.details) {
      expect(detail).toEqual({ code: expect.any(String), path: expect.any(Array), message: expect.any(String) });
    }
    const paths = res.body.details.map((d: { path: string[] }) => d.path.join('.'));
    expect(paths).toContain(target.required[0]);
    expect(res.body.message).toMatch(/^Invalid request: /);
    expect(res.body.message).toContain(target.required[0]);
  });

  it('answers invalid query parameters with 400 and details naming them', async () => {
    const res = await t.http.get('/api/v2/bookings?limit=500&status=lost').set(...bearer(user.token));
    expectErrorBody(res, 400, 'Bad Request');
    const paths = res.body.details.map((d: { path: string[] }) => d.path.join('.')).sort();
    expect(paths).toEqual(['limit', 'status']);
    for (const detail of res.body.details) expect(detail.message).toEqual(expect.any(String));
  });

  it('answers an unauthenticated and a forbidden request with the same body shape', async () => {
    expectErrorBody(await t.http.get('/api/v2/me'), 401, 'Unauthorized');
    const narrow = await createUserWithToken(t.em(), { scopes: ['read:leads'] });
    expectErrorBody(await t.http.get('/api/v2/me').set(...bearer(narrow.token)), 403, 'Forbidden');
  });

  it('says nothing internal in a 500', async () => {
    // A real failure inside a procedure: a column its query needs is gone for a moment (the profile's, not the
    // token's: the token may be served from the principal cache).
    const admin = new pg.Client({ connectionString: t.database.url });
    await admin.connect();
    await admin.query('alter table app_user rename column timezone to timezone_gone');
    let res: Response;
    try {
      res = await t.http.get('/api/v2/me').set(...bearer(user.token));
    } finally {
      await admin.query('alter table app_user rename column timezone_gone to timezone');
      await admin.end();
    }
    expectErrorBody(res, 500, 'Internal Server Error');
    expect(res.body.message).toBe('An unexpected error occurred. It has been logged.');
    expect(res.text).not.toMatch(/timezone|column|select|app_user|stack|\n\s+at /i);
    // And the API is fine again once the schema is back.
    expect((await t.http.get('/api/v2/me').set(...bearer(user.token))).status).toBe(200);
  });
});
