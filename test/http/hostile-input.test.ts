import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

/**
 * Bad input is the caller's fault: a 4xx in the surface's own error shape, never a 5xx, never a wrong write.
 * One test per kind of hostile input; test/http/fuzz.test.ts throws the same and more at every operation.
 */

const NOW = '2026-06-01T12:00:00.000Z';
const UNSAFE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

let t: TestApp;
let user: TestUser;
let eventType: TestEventType;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW) });
  user = await createUserWithToken(t.em());
  eventType = await createEventType(t.em(), user.id, { name: 'Intro call', slug: 'intro' });
  await t.app.fastify.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.fastify.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

function expectSpecError(res: Response, status: number): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(status === 400 ? ['details', 'message', 'title'] : ['message', 'title']);
}

function detailPaths(res: Response): string[] {
  return (res.body.details as { path: (string | number)[] }[]).map((detail) => detail.path.join('.'));
}

/** Sends bytes as written (no client library normalises them) and returns the raw answer. */
function rawRequest(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      const [head = '', body = ''] = data.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? -1);
      if (length >= 0 && Buffer.byteLength(body) >= length) socket.end();
    });
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
    socket.on('error', reject);
  });
}

const api = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string) =>
  t.http[method](`/api/v2${path}`).set(...bearer(user.token));

async function bookingCount(): Promise<number> {
  const [row] = await t.em().execute<{ count: string }[]>('select count(*) from booking');
  return Number(row!.count);
}

describe('NUL and unpaired surrogates are refused before they reach PostgreSQL', () => {
  it('in query strings: 400 naming the parameter, not a 503 outage', async () => {
    const contacts = await api('get', '/contacts?q=a%00b');
    expectSpecError(contacts, 400);
    expect(contacts.headers['retry-after']).toBeUndefined();
    expect(contacts.body.details).toEqual([{ code: 'invalid_format', path: ['q'], message: UNSAFE }]);

    const availability = await api('get', `/availability?eventTypeId=a%00b&from=2026-06-02T00:00:00Z&to=2026-06-03T00:00:00Z`);
    expectSpecError(availability, 400);
    expect(detailPaths(availability)).toEqual(['eventTypeId']);
  });

  it('in JSON bodies (names, notes, answers, keys), also as a lone surrogate: 400, nothing written', async () => {
    const createEventType = await api('post', '/event-types').send({ name: 'Intro\u0000call', durationsMin: [30] });
    expectSpecError(createEventType, 400);
    expect(detailPaths(createEventType)).toEqual(['name']);

    const valid = {
      eventTypeId: eventType.id,
      start: '2026-06-02T14:00:00Z',
      durationMin: 30,
      invitee: { name: 'Ada', email: 'ada@example.test', timezone: 'Europe/Berlin' },
    };
    const before = await bookingCount();
    for (const [body, path] of [
      [{ ...valid, invitee: { ...valid.invitee, name: 'A\u0000da' } }, 'invitee.name'],
      [{ ...valid, notes: 'x\u0000' }, 'notes'],
      [{ ...valid, locationInput: '\u0000' }, 'locationInput'],
      [{ ...valid, answers: [{ questionId: 'q1', value: 'a\u0000' }] }, 'answers.0.value'],
      [{ ...valid, notes: 'half a pair \uD83D' }, 'notes'],
    ] as const) {
      const res = await api('post', '/bookings').send(body);
      expectSpecError(res, 400);
      expect(detailPaths(res), path).toEqual([path]);
    }
    expect(await bookingCount()).toBe(before);
  });

  it('in the public booking page’s slugs on /trpc: a clean 400', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { userSlug: 'a\u0000b', eventTypeSlug: 'intro' } }));
    const res = await t.http.get(`/trpc/publicBooking.eventType?input=${input}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.json.details).toEqual([{ code: 'invalid_format', path: ['userSlug'], message: UNSAFE }]);
  });

  it('in the booking page’s own URL: a clean 400', async () => {
    const res = await t.http.get('/book/a%00b/intro');
    expectSpecError(res, 400);
    expect(res.body.message).toContain(UNSAFE);
  });

  it('in OAuth parameters (no sign-in needed): the RFC error invalid_request, never temporarily_unavailable', async () => {
    const token = await t.http
      .post('/oauth/token')
      .type('form')
      .send('grant_type=authorization_code&code=x&client_id=oci_a%00b');
    expect(token.status, token.text).toBe(400);
    expect(token.body.error).toBe('invalid_request');

    const revoke = await t.http.post('/oauth/revoke').type('form').send('token=x&client_id=oci_a%00b');
    expect(revoke.status, revoke.text).toBe(400);
    expect(revoke.body.error).toBe('invalid_request');

    const authorize = await t.http.get('/oauth/authorize?response_type=code&client_id=oci_a%00b');
    expect(authorize.status, authorize.text).toBe(400);

    const register = await t.http
      .post('/oauth/register')
      .send({ client_name: 'App\u0000', redirect_uris: ['https://app.example.test/cb'] });
    expect(register.status, register.text).toBe(400);
    expect(register.body.error).toBe('invalid_client_metadata');
  });
});

describe('JSON nesting', () => {
  const deep = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  it('deeper than 400 levels is a 400 on REST, /trpc and OAuth registration', async () => {
    const rest = await api('put', '/schedule').set('Content-Type', 'application/json').send(deep(4200));
    expectSpecError(rest, 400);
    expect(rest.body.message).toBe('The request body nests deeper than 400 levels.');

    // tRPC reads its own bodies; the procedures' input check catches the depth there.
    const trpc = await t.http
      .post('/trpc/schedule.replace')
      .set(...bearer(user.token))
      .set('Content-Type', 'application/json')
      .send(`{"json":${deep(4200)}}`);
    expect(trpc.status, trpc.text).toBe(400);
    expect(trpc.body.error.json.details[0].message).toBe('nests deeper than 400 levels');

    const register = await t.http.post('/oauth/register').set('Content-Type', 'application/json').send(deep(4200));
    expect(register.status, register.text).toBe(400);
    expect(register.body.error).toBe('invalid_client_metadata');
  });

  it('up to 400 levels is parsed and judged by the schema', async () => {
    const res = await api('put', '/schedule').set('Content-Type', 'application/json').send(deep(399));
    expectSpecError(res, 400);
    expect(res.body.message).not.toMatch(/nests deeper/);
  });
});

describe('a 500 raised outside a procedure', () => {
  it.each([
    ['REST', () => api('get', '/me')],
    ['tRPC', () => t.http.get('/trpc/users.me').set(...bearer(user.token))],
  ])('is logged on %s, as its body says', async (_surface, call) => {
    const logged = vi.spyOn(t.app.services.log, 'error');
    const fork = vi.spyOn(t.orm.em, 'fork').mockImplementationOnce(() => {
      throw new Error('context could not be created');
    });
    try {
      const res = await call();
      expect(res.status).toBe(500);
      expect(res.text).toContain('An unexpected error occurred. It has been logged.');
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged.mock.calls[0]![0]).toMatchObject({ err: { message: 'context could not be created' } });
    } finally {
      fork.mockRestore();
      logged.mockRestore();
    }
  });
});

describe('bodies that are not JSON objects', () => {
  it('are a 400 on every operation taking a body; `false` does not mark a no-show', async () => {
    const booking = await createBooking(t.em(), { eventType, startAt: '2026-05-28T09:00:00Z' });
    for (const body of ['false', 'null', '0', 'true', '[]', '"x"']) {
      const res = await api('post', `/bookings/${booking.id}/no-show`).set('Content-Type', 'application/json').send(body);
      expectSpecError(res, 400);
      expect(res.body.details).toEqual([{ code: 'invalid_type', path: [], message: 'The request body must be a JSON object.' }]);
    }
    const [row] = await t.em().execute<{ no_show: boolean }[]>('select no_show from booking where id = ?', [booking.id]);
    expect(row!.no_show).toBe(false);
    expectSpecError(await api('put', '/schedule').set('Content-Type', 'application/json').send('null'), 400);
  });
});

describe('errors raised before the API’s handlers are in the spec’s shape', () => {
  it('invalid percent-encoding in the path (FST_ERR_BAD_URL)', async () => {
    const res = await api('get', '/bookings/%ZZ');
    expectSpecError(res, 400);
    expect(res.text).not.toMatch(/FST_ERR|statusCode/);
  });

  it('headers or URL over 16 KB: 431', async () => {
    const res = await rawRequest(`GET /api/v2/me?q=${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ title: 'Request Header Fields Too Large', message: expect.any(String) });
  });

  it('a request the HTTP parser refuses: 400', async () => {
    const res = await rawRequest('GET /api/v2/me HTTP/1.1\r\nHost x\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ title: 'Bad Request', message: expect.any(String), details: [] });
  });
});

describe('path parameters', () => {
  it('are percent-decoded before lookup', async () => {
    const encoded = eventType.id.replace(/^./, (first) => `%${first.charCodeAt(0).toString(16).toUpperCase()}`);
    const res = await api('patch', `/event-types/${encoded}`).send({ color: '#123456' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(eventType.id);
  });
});

describe('query strings are as strict as bodies', () => {
  it.each([
    ['an empty value', '/bookings?to=', 'to'],
    ['a hexadecimal number', '/bookings?limit=0x10', 'limit'],
    ['an exponent', '/contacts?limit=1e1', 'limit'],
    ['a bracketed name', '/bookings?limit[]=5', 'limit[]'],
    ['invalid UTF-8', '/contacts?q=%FF', 'q'],
    ['a repeated name', '/contacts?q=a&q=b', 'q'],
    ['an unknown name', `/availability?eventTypeId=x&from=2026-06-02T00:00:00Z&to=2026-06-03T00:00:00Z&durationMin=60`, 'durationMin'],
  ])('refuses %s with a 400 naming it', async (_label, path, name) => {
    const res = await api('get', path);
    expectSpecError(res, 400);
    expect(detailPaths(res)).toContain(name);
  });

  it('still reads well-formed parameters', async () => {
    const res = await api('get', '/contacts?limit=5&q=ada%20lovelace');
    expect(res.status, res.text).toBe(200);
  });
});

describe('the order of checks', () => {
  it('is unchanged: authentication and the scope check come before any input error', async () => {
    for (const path of ['/contacts?q=a%00b', '/contacts?limit=0x10&unknown=1']) {
      expectSpecError(await t.http.get(`/api/v2${path}`), 401);
      const narrow = await createUserWithToken(t.em(), { scopes: ['read:leads'] });
      expectSpecError(await t.http.get(`/api/v2${path}`).set(...bearer(narrow.token)), 403);
    }
    const booking = await createBooking(t.em(), { eventType, startAt: '2026-05-28T10:00:00Z' });
    expectSpecError(await t.http.post(`/api/v2/bookings/${booking.id}/no-show`).set('Content-Type', 'application/json').send('false'), 401);
  });
});

describe('wrong methods on /api/v2', () => {
  it.each(['TRACE', 'OPTIONS', 'PROPFIND', 'QUERY'])('%s on an existing path is 405 with Allow', async (method) => {
    const res = await rawRequest(`${method} /api/v2/contacts HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(res.status, res.body).toBe(405);
    expect(res.headers).toMatch(/\r\nallow: GET\r\n/i);
    expect(JSON.parse(res.body)).toEqual({ title: 'Method Not Allowed', message: `${method} is not allowed on /api/v2/contacts; use GET.` });
  });

  it('is 404 on a path no method serves', async () => {
    const res = await rawRequest('PROPFIND /api/v2/nope HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ title: 'Not Found', message: 'No route PROPFIND /api/v2/nope.' });
  });
});
