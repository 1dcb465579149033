/**
 * The common MCP request, one `tools/call` of a known tool, answered without the SDK's per-request Server, with the
 * same schema check and the same bytes (test/mcp/mcp-tool-call.test.ts compares them with the SDK's answer): it
 * saves building a Server, a second parse of the request and of our result, and a second serialization
 * (docs/performance.md#mcp-tool-calls). Anything else goes the SDK's way.
 */
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { zodIssuesToDetails } from '../lib/error-response.ts';
import type { McpTool } from './tools.ts';

/** A tool's result, and its structured content's JSON text in parts when it has some. */
export interface ToolAnswer {
  result: CallToolResult;
  structuredJson?: readonly string[];
}

export interface ToolCall {
  id: RequestId;
  tool: McpTool;
  args: unknown;
}

/** The POST's only message when it is a tools/call this module answers; undefined when the SDK should. */
export function soleToolCall(body: unknown, messages: readonly JSONRPCMessage[], tools: ReadonlyMap<string, McpTool>): ToolCall | undefined {
  const [message] = messages;
  if (Array.isArray(body) || !message || !isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  if (!parsed.success || parsed.data.params.task !== undefined) return undefined;
  const tool = tools.get(parsed.data.params.name);
  return tool ? { id: message.id, tool, args: parsed.data.params.arguments } : undefined;
}

/** The schemas of the requests the server answers, by method. */
const REQUEST_SCHEMAS: ReadonlyMap<string, z.ZodType> = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['prompts/list', ListPromptsRequestSchema],
  ['prompts/get', GetPromptRequestSchema],
]);

/**
 * -32602 Invalid params for a request whose params its method's schema refuses (tool arguments that are not an
 * object, a tool name that is not a string, …), the problems listed in the message and as `data.details`. The SDK
 * would answer -32603 Internal error, zod's report as the message.
 */
export function refuseInvalidParams(request: JSONRPCRequest): JSONRPCErrorResponse | undefined {
  const parsed = REQUEST_SCHEMAS.get(request.method)?.safeParse(request);
  if (!parsed || parsed.success) return undefined;
  const details = zodIssuesToDetails(parsed.error);
  const problems = details.map((detail) => `${detail.path.join('.')}: ${detail.message}`).join('; ');
  return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problems}`, data: { details } } };
}

/**
 * The answer to `toolCall`, in parts. A tool reports its errors as results; should the call itself fail, the
 * answer is the JSON-RPC error the SDK sends for a handler that throws (without the error's own words).
 */
export async function answerToolCall(toolCall: ToolCall, call: (tool: McpTool, args: unknown) => Promise<ToolAnswer>): Promise<string[]> {
  try {
    return toolCallResponse(toolCall.id, await call(toolCall.tool, toolCall.args));
  } catch {
    return [JSON.stringify({ jsonrpc: '2.0', id: toolCall.id, error: { code: ErrorCode.InternalError, message: 'Internal error' } })];
  }
}

/**
 * The JSON-RPC response as the SDK writes it (`{result, jsonrpc, id}`, the result's keys in its schema's order), in
 * parts: the structured content is the tool's own JSON text, not serialized again.
 */
function toolCallResponse(id: RequestId, { result, structuredJson }: ToolAnswer): string[] {
  const [block, ...others] = result.content;
  if (structuredJson === undefined || block?.type !== 'text' || others.length > 0 || result.isError !== undefined) {
    return [JSON.stringify({ result, jsonrpc: '2.0', id })];
  }
  return [
    `{"result":{"content":[{"type":"text","text":${JSON.stringify(block.text)}}],"structuredContent":`,
    ...structuredJson,
    `},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
  ];
}
