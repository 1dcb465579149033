import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { answerToolCall, refuseInvalidParams, soleToolCall, type ToolAnswer } from './tool-call.ts';
import type { McpTool } from './tools.ts';

const tool = { definition: { name: 'get_me' } } as McpTool;
const tools = new Map([['get_me', tool]]);
const call = (params: Record<string, unknown>, id: string | number = 1) =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params }) as JSONRPCMessage;

describe('soleToolCall', () => {
  it('takes one tools/call of a known tool, and leaves everything else to the SDK', () => {
    const message = call({ name: 'get_me', arguments: { a: 1 } }, 'x');
    expect(soleToolCall(message, [message], tools)).toEqual({ id: 'x', tool, args: { a: 1 } });
    expect(soleToolCall([message], [message], tools)).toBeUndefined();
    const unknown = call({ name: 'drop_database' });
    expect(soleToolCall(unknown, [unknown], tools)).toBeUndefined();
    const task = call({ name: 'get_me', task: { ttl: 1000 } });
    expect(soleToolCall(task, [task], tools)).toBeUndefined();
    const invalid = call({ name: 42 });
    expect(soleToolCall(invalid, [invalid], tools)).toBeUndefined();
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' } as JSONRPCMessage;
    expect(soleToolCall(list, [list], tools)).toBeUndefined();
  });
});

describe('answerToolCall', () => {
  const answered = async (answer: () => Promise<ToolAnswer>) =>
    JSON.parse((await answerToolCall({ id: 7, tool, args: {} }, answer)).join('')) as unknown;

  it('splices the structured content the tool serialized', async () => {
    const value = { data: ['"quoted" \\ ☃'] };
    const text = JSON.stringify(value);
    const answer = { result: { content: [{ type: 'text' as const, text }], structuredContent: value }, structuredJson: [text] };
    expect(await answered(async () => answer)).toEqual({ result: answer.result, jsonrpc: '2.0', id: 7 });
  });

  it('answers a call that fails as the SDK answers a handler that throws, without the error\'s words', async () => {
    expect(
      await answered(async () => {
        throw new Error('connection string postgres://secret@db');
      }),
    ).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error' } });
  });
});

describe('refuseInvalidParams', () => {
  const request = (params: unknown) => ({ jsonrpc: '2.0' as const, id: 9, method: 'tools/call', params }) as Parameters<typeof refuseInvalidParams>[0];

  it('answers arguments that are not an object with -32602, the problems listed', () => {
    for (const args of ['x', [1], 5, null]) {
      const refusal = refuseInvalidParams(request({ name: 'get_me', arguments: args }));
      expect(refusal).toMatchObject({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32602, message: expect.stringMatching(/^Invalid params: params\.arguments: /), data: { details: [{ path: ['params', 'arguments'] }] } },
      });
      expect(refusal!.error.message).not.toContain('\n');
    }
  });

  it('answers other methods\' malformed params alike, and leaves valid requests and unknown methods alone', () => {
    expect(refuseInvalidParams({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'p', arguments: 'x' } })).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/^Invalid params: params\.arguments: /) },
    });
    expect(refuseInvalidParams({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 5 } })).toMatchObject({
      error: { code: -32602 },
    });
    expect(refuseInvalidParams(request({ name: 'get_me', arguments: { a: 1 } }))).toBeUndefined();
    expect(refuseInvalidParams(request({ name: 'get_me' }))).toBeUndefined();
    expect(refuseInvalidParams({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(refuseInvalidParams({ jsonrpc: '2.0', id: 1, method: 'resources/list', params: { x: 1 } })).toBeUndefined();
  });
});
