import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { type JsonRpcPost, StatelessJsonTransport } from './stateless-transport.ts';

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
  const answer = (post: JsonRpcPost) => {
    const checked = transport.check(post);
    return Array.isArray(checked) ? transport.deliver(checked, post.headers) : Promise.resolve(checked);
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
});
