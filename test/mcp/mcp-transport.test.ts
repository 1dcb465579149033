import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { startListeningApp } from '../oauth/support.ts';
import { connectWithToken, structured } from './support.ts';

const JSON_RPC_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

function initialize(protocolVersion: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
}

describe('MCP transport: protocol revisions, JSON-RPC errors, origins, the shared rate limit', () => {
  let t: TestApp & { siteUrl: string };
  let user: TestUser;
  const post = (token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.siteUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, ...JSON_RPC_HEADERS, ...headers },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    t = await startListeningApp({ apiRateLimitPerMinute: 6, env: { MCP_ALLOWED_ORIGINS: 'https://inspector.example, http://localhost:6274' } });
    user = await createUserWithToken(t.em());
  });
  afterAll(() => t.close());

  it('negotiates the revisions 2025-11-25, 2025-06-18 and 2025-03-26 and accepts each as MCP-Protocol-Version', async () => {
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const someone = await createUserWithToken(t.em());
      const init = await post(someone.token, initialize(version));
      expect(init.status).toBe(200);
      expect(init.headers.get('mcp-session-id')).toBeNull();
      expect((await init.json()).result.protocolVersion).toBe(version);
      const list = await post(someone.token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'MCP-Protocol-Version': version });
      expect(list.status).toBe(200);
      expect((await list.json()).result.tools.length).toBeGreaterThan(10);
    }
  });

  it('answers malformed JSON-RPC with a JSON-RPC error, never a 5xx', async () => {
    const someone = await createUserWithToken(t.em());
    const res = await post(someone.token, { hello: 'world' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
  });

  it("answers each POST as the SDK's stateless Streamable HTTP transport does (JSON answers, no SSE)", async () => {
    // A token per request: the budget here is 6 a minute.
    const answer = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await post((await createUserWithToken(t.em())).token, body, headers);
      const text = await res.text();
      return { status: res.status, contentType: res.headers.get('content-type'), body: text === '' ? undefined : JSON.parse(text) };
    };
    const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });
    const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

    // Notifications (and responses) alone: 202 without a body.
    expect(await answer(initialized)).toEqual({ status: 202, contentType: null, body: undefined });
    expect(await answer([initialized, { jsonrpc: '2.0', id: 7, result: {} }])).toMatchObject({ status: 202, body: undefined });
    // A batch: the responses in the order of its requests, notifications left out; an unknown method is -32601.
    expect(await answer([ping('a'), initialized, { jsonrpc: '2.0', id: 'b', method: 'resources/list' }, ping(3)])).toEqual({
      status: 200,
      contentType: 'application/json',
      body: [
        { jsonrpc: '2.0', id: 'a', result: {} },
        { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'Method not found' } },
        { jsonrpc: '2.0', id: 3, result: {} },
      ],
    });
    expect(await answer(ping(1), { Accept: 'application/json' })).toEqual({
      status: 406,
      contentType: 'application/json',
      body: refusal(-32000, 'Not Acceptable: Client must accept both application/json and text/event-stream'),
    });
    expect(await answer(Array.from({ length: 101 }, (_, i) => ping(i)))).toMatchObject({
      status: 400,
      body: refusal(-32600, 'Invalid Request: Batch must not exceed 100 messages'),
    });
    expect(await answer([initialize('2025-11-25'), ping(2)])).toMatchObject({
      status: 400,
      body: refusal(-32600, 'Invalid Request: Only one initialization request is allowed'),
    });
    expect(await answer(ping(1), { 'MCP-Protocol-Version': '1999-01-01' })).toMatchObject({
      status: 400,
      body: { error: { code: -32000, message: expect.stringMatching(/^Bad Request: Unsupported protocol version: 1999-01-01 \(supported versions: 2025-11-25, /) } },
    });
    // initialize negotiates whatever the header says.
    expect(await answer(initialize('2025-06-18'), { 'MCP-Protocol-Version': '1999-01-01' })).toMatchObject({
      status: 200,
      body: { id: 1, result: { protocolVersion: '2025-06-18' } },
    });
  });

  it('answers broken JSON, an empty batch, and JSON with __proto__ keys with JSON-RPC errors (400), after authentication', async () => {
    const postText = async (token: string, body: string) => {
      const res = await fetch(`${t.siteUrl}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, ...JSON_RPC_HEADERS }, body });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const refusal = (code: number) => ({ jsonrpc: '2.0', id: null, error: { code, message: expect.any(String) } });
    const someone = await createUserWithToken(t.em());
    expect(await postText(someone.token, '{"jsonrpc": "2.0", "id": 1, "method": ')).toEqual({ status: 400, body: refusal(-32700) });
    expect(await postText(someone.token, '')).toEqual({ status: 400, body: refusal(-32700) });
    expect(await postText(someone.token, '[]')).toEqual({ status: 400, body: refusal(-32600) });

    const polluted = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_bookings","arguments":{"__proto__":{"limit":1}}}}';
    expect(await postText(someone.token, polluted)).toEqual({ status: 400, body: refusal(-32600) });
    expect(await postText(someone.token, `{"a":${'['.repeat(500)}${']'.repeat(500)}}`)).toEqual({ status: 400, body: refusal(-32600) });
    // Who may not call at all learns nothing more.
    expect((await postText('pat_nope', '{')).status).toBe(401);
  });

  it('answers JSON that is not a JSON-RPC message, alone or in a batch, with -32600 Invalid Request', async () => {
    const someone = await createUserWithToken(t.em());
    const post = async (body: string) => {
      const res = await fetch(`${t.siteUrl}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${someone.token}`, ...JSON_RPC_HEADERS }, body });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const invalidRequest = { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } } };
    expect(await post('{"hello":"world"}')).toEqual(invalidRequest);
    expect(await post('[{"jsonrpc":"2.0","id":1,"method":"ping"},42]')).toEqual(invalidRequest);
  });

  it('answers tool arguments that are not an object with -32602 Invalid params, the problems listed, alone and in a batch', async () => {
    const call = (id: number, args: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_bookings', arguments: args } });
    const invalidParams = (id: number) => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params: params\.arguments: .*expected record/),
        data: { details: [expect.objectContaining({ path: ['params', 'arguments'] })] },
      },
    });
    const someone = await createUserWithToken(t.em());
    const alone = await post(someone.token, call(1, 'limit=5'));
    expect(alone.status).toBe(200);
    expect(await alone.json()).toEqual(invalidParams(1));
    const batch = await post(someone.token, [call(1, [5]), call(2, {}), call(3, null)]);
    const [first, second, third] = (await batch.json()) as Record<string, unknown>[];
    expect(first).toEqual(invalidParams(1));
    expect(second).toMatchObject({ id: 2, result: { structuredContent: { data: [] } } });
    expect(third).toEqual(invalidParams(3));
  });

  it('answers NUL in tool arguments with a tool error, and refuses numbers that are not JSON numbers and unknown names, as REST does', async () => {
    const callWith = async (args: Record<string, unknown>) => {
      const someone = await createUserWithToken(t.em());
      const res = await post(someone.token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_bookings', arguments: args } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: { isError?: boolean; content: { text: string }[]; structuredContent?: unknown } }).result;
    };
    const nul = await callWith({ cursor: 'a\u0000b' });
    expect(nul.isError).toBe(true);
    expect(JSON.parse(nul.content[0]!.text)).toMatchObject({ title: 'Bad Request', details: [{ path: ['cursor'] }] });
    for (const limit of ['0x10', true, '1e1', '10']) {
      const refused = await callWith({ limit });
      expect(refused.isError, JSON.stringify(limit)).toBe(true);
      expect(JSON.parse(refused.content[0]!.text)).toMatchObject({ title: 'Bad Request', details: [{ code: 'invalid_type', path: ['limit'] }] });
    }
    expect((await callWith({ limit: 10 })).structuredContent).toEqual({ data: [], nextCursor: null });
    const unknown = await callWith({ limit: 10, evil: 1 });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse(unknown.content[0]!.text)).toMatchObject({ details: [{ code: 'unrecognized_keys', path: ['evil'] }] });
  });

  it('refuses a body that is not JSON as the SDK did (415), before reading it as JSON-RPC', async () => {
    const someone = await createUserWithToken(t.em());
    const res = await fetch(`${t.siteUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${someone.token}`, 'Content-Type': 'text/plain', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Unsupported Media Type: Content-Type must be application/json' },
      id: null,
    });
  });

  it('accepts the origins of MCP_ALLOWED_ORIGINS and refuses others', async () => {
    const someone = await createUserWithToken(t.em());
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await post(someone.token, list, { Origin: 'https://inspector.example' })).status).toBe(200);
    expect((await post(someone.token, list, { Origin: 'http://localhost:6274' })).status).toBe(200);
    const refused = await post(someone.token, list, { Origin: 'http://localhost:6275' });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ title: 'Forbidden' });
  });

  it('answers CORS for an allowed browser origin (preflight and response), and never for another', async () => {
    const preflight = (origin: string) =>
      fetch(`${t.siteUrl}/mcp`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
      });
    const allowed = await preflight('http://localhost:6274');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect((await preflight('https://evil.example')).status).toBe(403);

    const unauthenticated = await fetch(`${t.siteUrl}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, Origin: 'http://localhost:6274' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unauthenticated.status).toBe(401);
    // A browser client reads the challenge to find the authorization server.
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(unauthenticated.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
  });

  it('counts every HTTP request to /mcp once against the token budget it shares with /api/v2, then 429', async () => {
    const remaining: string[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      // The SDK also tries GET for a server-initiated stream: 405 before any authentication, so never counted.
      if (init?.method === 'POST') remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
      return res;
    };
    const rest = await t.http.get('/api/v2/me').set(...bearer(user.token));
    expect(rest.headers['x-ratelimit-remaining']).toBe('5');
    // initialize and notifications/initialized: two requests.
    const client = await connectWithToken(`${t.siteUrl}/mcp`, user.token, recording);
    expect(remaining).toEqual(['4', '3']);
    structured(await client.callTool({ name: 'get_me', arguments: {} }));
    expect(remaining).toEqual(['4', '3', '2']);
    const again = await t.http.get('/api/v2/me').set(...bearer(user.token));
    expect(again.headers['x-ratelimit-remaining']).toBe('1');
    structured(await client.callTool({ name: 'list_bookings', arguments: {} }));
    expect(remaining.at(-1)).toBe('0');

    const over = await post(user.token, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'get_me', arguments: {} } });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await over.json()).toMatchObject({ title: 'Too Many Requests' });
    expect((await t.http.get('/api/v2/me').set(...bearer(user.token))).status).toBe(429);
    await client.close();
  });
});

describe('MCP on two instances sharing one database', () => {
  let a: TestApp & { siteUrl: string };
  let b: TestApp & { siteUrl: string };

  beforeAll(async () => {
    a = await startListeningApp();
    b = await startListeningApp({ database: a.database });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('serves a client whose requests alternate between the instances', async () => {
    const user = await createUserWithToken(a.em());
    const served: string[] = [];
    let next = 0;
    const alternating = (input: string | URL | Request, init?: RequestInit) => {
      const target = [a, b][next++ % 2] as TestApp & { siteUrl: string };
      served.push(target.siteUrl);
      return fetch(String(input).replace(a.siteUrl, target.siteUrl), init);
    };
    const client = await connectWithToken(`${a.siteUrl}/mcp`, user.token, alternating);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get_me');
    const me = structured(await client.callTool({ name: 'get_me', arguments: {} }));
    expect(me).toMatchObject({ id: user.id, email: user.email });
    const created = structured(
      await client.callTool({ name: 'create_event_type', arguments: { name: 'Two instances', slug: 'two-instances', durationsMin: [30] } }),
    );
    const listed = structured(await client.callTool({ name: 'list_event_types', arguments: {} }));
    expect((listed.data as { id: string }[]).map((eventType) => eventType.id)).toContain(created.id);
    expect(served.filter((url) => url === a.siteUrl).length).toBeGreaterThanOrEqual(3);
    expect(served.filter((url) => url === b.siteUrl).length).toBeGreaterThanOrEqual(3);
    await client.close();
  });
});

describe('MCP: every call of a POST counts against the token budget', () => {
  let t: TestApp & { siteUrl: string };
  const post = (token: string, body: unknown) =>
    fetch(`${t.siteUrl}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, ...JSON_RPC_HEADERS }, body: JSON.stringify(body) });
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  beforeAll(async () => {
    t = await startListeningApp({ apiRateLimitPerMinute: 150 });
  });
  afterAll(() => t.close());

  it('counts a batch of 100 tool calls as 100, and refuses a batch larger than what is left with 429 before any of it runs', async () => {
    const user = await createUserWithToken(t.em());
    const hundred = await post(user.token, Array.from({ length: 100 }, (_, i) => call(i, 'get_me')));
    expect(hundred.status).toBe(200);
    expect(hundred.headers.get('x-ratelimit-remaining')).toBe('50');
    expect(await hundred.json()).toHaveLength(100);

    const writes = Array.from({ length: 51 }, (_, i) => call(i, 'create_event_type', { name: `Batch ${i}`, durationsMin: [30] }));
    const over = await post(user.token, writes);
    expect(over.status).toBe(429);
    expect(over.headers.get('x-ratelimit-limit')).toBe('150');
    // Refused whole, it runs nothing and uses up nothing: what was left stays for calls that fit.
    expect(over.headers.get('x-ratelimit-remaining')).toBe('50');
    expect(Number(over.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await over.json()).toEqual({ title: 'Too Many Requests', message: expect.stringContaining('counts as 51 calls') });
    const created = await t.em().execute('select count(*)::int as n from event_type where owner_id = ?', [user.id]);
    expect(created).toEqual([{ n: 0 }]);
    const fits = await post(user.token, Array.from({ length: 50 }, (_, i) => call(i, 'get_me')));
    expect(fits.status).toBe(200);
    expect(fits.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts every request of a batch whatever its method, and a POST of notifications alone once', async () => {
    const user = await createUserWithToken(t.em());
    const remaining = async (body: unknown) => Number((await post(user.token, body)).headers.get('x-ratelimit-remaining'));
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(await remaining(initialized)).toBe(149);
    expect(await remaining([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'ping' }, initialized])).toBe(147);
    expect(await remaining(call(3, 'get_me'))).toBe(146);
    // Refused before any message was read: one request.
    expect(await remaining([])).toBe(145);
  });
});
