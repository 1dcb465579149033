import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { type JsonRpcPost, StatelessJsonTransport, UnreadableJson } from './stateless-transport.ts';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {} } });

/** A server whose one tool waits until `release` is called, reporting whether its signal was aborted. */
async function connected() {
  const server = new Server({ name: 'test', version: '1' }, { capabilities: { tools: {} } });
  const aborted: boolean[] = [];
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  server.setRequestHandler(CallToolRequestSchema, async (_request, { signal }) => {
    await released;
    aborted.push(signal.aborted);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const transport = new StatelessJsonTransport();
  await server.connect(transport);
  /** Checks the POST and delivers its messages, as /mcp does on the SDK's path. */
  const answer = (post: JsonRpcPost, refuse?: Parameters<StatelessJsonTransport['deliver']>[2]) => {
    const checked = transport.check(post);
    return Array.isArray(checked) ? transport.deliver(checked, post.headers, refuse) : Promise.resolve(checked);
  };
  return { transport, answer, aborted, release };
}

describe('StatelessJsonTransport', () => {
  it('answers once every request of the POST has its response, in the order of the requests', async () => {
    const { answer, release } = await connected();
    const answered = answer({ headers: HEADERS, contentType: 'application/json', body: [call(2), call('one')] });
    release();
    const { status, body } = (await answered)!;
    expect(status).toBe(200);
    expect((JSON.parse(body!.join('')) as { id: unknown }[]).map((response) => response.id)).toEqual([2, 'one']);
  });

  it('answers nothing, and aborts the running handlers, when the client goes away first', async () => {
    const { transport, answer, aborted, release } = await connected();
    const answered = answer({ headers: HEADERS, contentType: 'application/json', body: call(1) });
    await transport.close();
    expect(await answered).toBeUndefined();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(aborted).toEqual([true]);
  });

  it('refuses a duplicated Content-Type line, as the SDK does, and a missing body as unparsable JSON', async () => {
    const { answer } = await connected();
    expect(await answer({ headers: HEADERS, contentType: 'application/json, application/json', body: call(1) })).toMatchObject({
      status: 415,
    });
    expect(await answer({ headers: HEADERS, contentType: 'application/json', body: undefined })).toEqual({
      status: 400,
      body: [JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null })],
    });
  });

  it('refuses an empty batch and a body the parser could not take with their JSON-RPC errors', async () => {
    const { answer } = await connected();
    const refusal = (code: number, message: string) => ({ status: 400, body: [JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null })] });
    expect(await answer({ headers: HEADERS, contentType: 'application/json', body: [] })).toEqual(
      refusal(-32600, 'Invalid Request: Batch must not be empty'),
    );
    expect(await answer({ headers: HEADERS, contentType: 'application/json', body: new UnreadableJson(-32700, 'Parse error: Invalid JSON') })).toEqual(
      refusal(-32700, 'Parse error: Invalid JSON'),
    );
  });

  it('answers the requests `refuse` refuses without the server, in their place among the others', async () => {
    const { answer, release } = await connected();
    const refusal = { jsonrpc: '2.0' as const, id: 'bad', error: { code: -32602, message: 'Invalid params' } };
    const answered = answer({ headers: HEADERS, contentType: 'application/json', body: [call(1), call('bad'), call(3)] }, (request) =>
      request.id === 'bad' ? refusal : undefined,
    );
    release();
    const responses = JSON.parse((await answered)!.body!.join('')) as { id: unknown; error?: unknown }[];
    expect(responses.map((response) => response.id)).toEqual([1, 'bad', 3]);
    expect(responses[1]).toEqual(refusal);
    // Every request refused: answered at once.
    const { answer: answerAll } = await connected();
    expect(await answerAll({ headers: HEADERS, contentType: 'application/json', body: call('bad') }, () => refusal)).toEqual({
      status: 200,
      body: [JSON.stringify(refusal)],
    });
  });
});
