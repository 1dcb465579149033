import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyInstance, type FastifyRequest, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../src/router/root.ts';
import { MAX_TRPC_BATCH, trpcHandlerOptions } from '../../src/http/trpc/trpc-mount.ts';
import { registerSecurityHeaders } from '../../src/http/security-headers.ts';
import { planTrpcRequest } from '../../src/http/trpc/trpc-door.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';

/**
 * The /trpc door (src/http/trpc/trpc-door.ts) answers what first-party clients send without tRPC's Fetch-based
 * handler; every answer must be the one tRPC's own Fastify plugin gives for the same request, on the same
 * services and database.
 */
describe('the /trpc door answers as tRPC itself does', () => {
  let t: TestApp;
  let stock: FastifyInstance;
  let user: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    user = await createUserWithToken(t.em());
    stock = Fastify({ routerOptions: { maxParamLength: 5000 } });
    // The headers the service puts on every answer, whichever door answers.
    registerSecurityHeaders(stock, t.app.services.env.SITE_URL);
    await stock.register(fastifyTRPCPlugin, { prefix: '/trpc', trpcOptions: trpcHandlerOptions(t.app.services, t.orm) });
    await stock.ready();
  });
  afterAll(async () => {
    await stock.close();
    await t.close();
  });

  const input = (value: unknown) => encodeURIComponent(JSON.stringify({ json: value }));
  const weekly = { monday: [{ start: '09:00', end: '17:00' }] };

  interface Case {
    name: string;
    method: 'GET' | 'POST' | 'HEAD';
    url: string;
    body?: string;
    headers?: Record<string, string>;
    /** Whether the door answers it (false: it is tRPC's handler's, in both apps). */
    door: boolean;
    anonymous?: boolean;
  }

  const cases: Case[] = [
    { name: 'a query without input', method: 'GET', url: '/trpc/users.me', door: true },
    { name: 'a query without credentials (401 with its challenge)', method: 'GET', url: '/trpc/users.me', door: true, anonymous: true },
    { name: 'a query with input', method: 'GET', url: `/trpc/bookings.list?input=${input({ limit: 5 })}`, door: true },
    { name: 'a query whose input the schema refuses', method: 'GET', url: `/trpc/bookings.list?input=${input({ limit: -1 })}`, door: true },
    { name: 'a query whose input is not JSON', method: 'GET', url: '/trpc/bookings.list?input=%7Bnope', door: true },
    { name: 'a query whose input is empty', method: 'GET', url: '/trpc/bookings.list?input=', door: true },
    { name: 'an unknown procedure', method: 'GET', url: '/trpc/users.nope', door: true },
    { name: 'a percent-encoded path', method: 'GET', url: '/trpc/users%252Eme', door: true },
    { name: 'a mutation by GET (405 with Allow)', method: 'GET', url: '/trpc/schedule.replace', door: true },
    { name: 'a query by POST (405 with Allow)', method: 'POST', url: '/trpc/users.me', body: '', door: true },
    { name: 'a mutation', method: 'POST', url: '/trpc/schedule.replace', body: JSON.stringify({ json: { weekly } }), door: true },
    { name: 'a mutation the schema refuses', method: 'POST', url: '/trpc/schedule.replace', body: JSON.stringify({ json: { weekly: 1 } }), door: true },
    { name: 'a mutation with an empty body', method: 'POST', url: '/trpc/schedule.replace', body: '', door: true },
    { name: 'a mutation whose body is not JSON', method: 'POST', url: '/trpc/schedule.replace', body: '{"json":', door: true },
    { name: 'a mutation whose domain rule refuses it', method: 'POST', url: '/trpc/bookings.cancel', body: JSON.stringify({ json: { id: 'bkg_nope' } }), door: true },
    {
      name: 'a batch of queries',
      method: 'GET',
      url: `/trpc/users.me,bookings.list,eventTypes.list?batch=1&input=${encodeURIComponent(JSON.stringify({ 1: { json: { limit: 2 } } }))}`,
      door: true,
    },
    { name: 'a batch with one failing call (207)', method: 'GET', url: '/trpc/users.me,users.nope?batch=1', door: true },
    { name: 'a batch whose input is not an object', method: 'GET', url: '/trpc/users.me,bookings.list?batch=1&input=%5B1%5D', door: true },
    {
      name: 'a batch of mutations',
      method: 'POST',
      url: '/trpc/schedule.replace,bookings.cancel?batch=1',
      body: JSON.stringify({ 0: { json: { weekly } }, 1: { json: { id: 'bkg_nope' } } }),
      door: true,
    },
    { name: 'a batch of one without credentials', method: 'GET', url: '/trpc/users.me?batch=1', door: true, anonymous: true },
    { name: 'a streamed batch', method: 'GET', url: '/trpc/users.me?batch=1', headers: { 'trpc-accept': 'application/jsonl' }, door: false },
    { name: 'HEAD', method: 'HEAD', url: '/trpc/users.me', door: false },
  ];

  it.each(cases)('$name', async (testCase) => {
    const headers: Record<string, string> = {
      ...(testCase.anonymous ? {} : { authorization: `Bearer ${user.token}` }),
      ...(testCase.method === 'POST' ? { 'content-type': 'application/json' } : {}),
      ...testCase.headers,
    };
    const request = { method: testCase.method, url: testCase.url, headers, payload: testCase.body };
    const viaDoor = await t.app.fastify.inject(request);
    const viaTrpc = await stock.inject(request);
    expect(comparable(viaDoor)).toEqual(comparable(viaTrpc));
    expect(viaDoor.statusCode).toBeGreaterThanOrEqual(200);

    const path = decodeURIComponent(new URL(testCase.url, 'http://x').pathname.slice('/trpc/'.length));
    const fastifyRequest = { method: testCase.method, url: testCase.url, headers, body: testCase.body } as unknown as FastifyRequest;
    expect(planTrpcRequest(appRouter, fastifyRequest, path, MAX_TRPC_BATCH) !== undefined).toBe(testCase.door);
  });

  // Where tRPC's own handler answers text/plain, or fails (a 500 on form data), the door answers JSON.
  it.each([
    ['form data', 'multipart/form-data; boundary=x', '--x--', 'Unsupported content-type "multipart/form-data; boundary=x": send JSON.'],
    ['binary', 'application/octet-stream', 'abc', 'Unsupported content-type "application/octet-stream": send JSON.'],
    ['text', 'text/plain', '{"json":{}}', 'Unsupported content-type "text/plain": send JSON.'],
    ['a form', 'application/x-www-form-urlencoded', 'a=1', 'Unsupported content-type "application/x-www-form-urlencoded": send JSON.'],
    ['no media type', undefined, '{"json":{}}', 'Missing content-type header'],
  ])('a POST of %s is a 415 in tRPC\'s shape', async (_name, contentType, payload, message) => {
    const res = await t.app.fastify.inject({
      method: 'POST',
      url: '/trpc/schedule.replace',
      headers: { authorization: `Bearer ${user.token}`, ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });
    expect(res.statusCode).toBe(415);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().error.json).toMatchObject({ message, code: -32015, data: { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415 } });
  });

  it.each([
    ['a batch mixing queries and mutations', '/trpc/users.me,schedule.replace?batch=1', 'Cannot mix procedure types in call: query, mutation'],
    ['a path that is not URL-encoding', '/trpc/users%25E0me', 'Invalid URL-encoding in path "users%E0me"'],
    ['a batch of too many calls', `/trpc/${Array(MAX_TRPC_BATCH + 1).fill('users.me').join(',')}?batch=1`, 'Batch call exceeds maximum size'],
  ])('%s is a 400 in tRPC\'s shape, as JSON', async (_name, url, message) => {
    const res = await t.app.fastify.inject({ method: 'GET', url, headers: { authorization: `Bearer ${user.token}` } });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json().error.json).toMatchObject({ message, code: -32600, data: { code: 'BAD_REQUEST', httpStatus: 400 } });
    const viaTrpc = await stock.inject({ method: 'GET', url, headers: { authorization: `Bearer ${user.token}` } });
    expect(viaTrpc.statusCode).toBe(400);
    expect(JSON.parse(viaTrpc.body)).toEqual(res.json());
  });
});

/** What a client can observe of an answer, without what differs between two answers of the same request. */
function comparable(response: LightMyRequestResponse) {
  const headers = Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name))
      // The two answers were counted one after the other against the same budget.
      .map(([name, value]) => [name, name.startsWith('x-ratelimit-') && name !== 'x-ratelimit-limit' ? 'counted' : value]),
  );
  return { status: response.statusCode, headers, body: parsed(response.body) };
}

function parsed(body: string): unknown {
  try {
    return withoutTimes(JSON.parse(body));
  } catch {
    return body;
  }
}

/** `updatedAt` is the moment each of the two mutations ran. */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'updatedAt' ? 'a time' : withoutTimes(inner)]));
}
