import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** The official SDK client, connected to `url` with `Authorization: Bearer <token>` on every request. */
export async function connectWithToken(
  url: string,
  token: string,
  fetchFn: typeof fetch = fetch,
): Promise<Client> {
  const client = new Client({ name: 'scheduling-api tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: fetchFn,
  });
  await client.connect(transport);
  return client;
}

/** A successful tool result's structured content (asserting it equals the text). */
export function structured(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  const call = result as CallToolResult;
  expect(call.isError, JSON.stringify(call.content)).toBeFalsy();
  const text = call.content[0]?.type === 'text' ? call.content[0].text : '';
  expect(JSON.parse(text)).toEqual(call.structuredContent);
  return call.structuredContent as Record<string, unknown>;
}

/** A tool error's REST body, parsed from its text. */
export function errorBody(result: Awaited<ReturnType<Client['callTool']>>): { title: string; message: string; details?: unknown[] } {
  const call = result as CallToolResult;
  expect(call.isError).toBe(true);
  const text = call.content[0]?.type === 'text' ? call.content[0].text : '';
  return JSON.parse(text) as { title: string; message: string; details?: unknown[] };
}
