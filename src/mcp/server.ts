/**
 * The MCP server at /mcp: Streamable HTTP in the SDK's stateless mode (plain JSON answers), so any instance answers
 * any request, over our own transport (stateless-transport.ts). The door checks the Origin, admits the POST's
 * calls together (src/api/call.ts: token, every call counted, each tool's scope), and each tool runs its procedure
 * through the same call path as REST.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { admitCalls, anotherCallOf, type AppServices, callProcedure, type Context, procedureAt, requestContexts } from '../api/call.ts';
import { appRouter } from '../router/root.ts';
import { mcpAllowedOrigins } from '../config/env.ts';
import type { Scope } from '../identity/scopes.ts';
import { DomainError, summarizeIssues } from '../lib/errors.ts';
import { type ErrorResponse, errorResponse, toErrorResponse } from '../lib/error-response.ts';
import { jsonNestsDeeperThan, MAX_INPUT_DEPTH } from '../lib/unsafe-text.ts';
import { promptDefinitions, renderPrompt } from './prompts.ts';
import { type JsonRpcAnswer, StatelessJsonTransport, UnreadableJson } from './stateless-transport.ts';
import { argumentProblems } from './tool-arguments.ts';
import { answerToolCall, refuseInvalidParams, soleToolCall, type ToolAnswer } from './tool-call.ts';
import { type McpTool, toolsOf } from './tools.ts';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'scheduling-api', version: '2.0.0' };
const INSTRUCTIONS =
  "Tools for the signed-in user's scheduling account: event types, availability, bookings, leads, contacts and the " +
  'weekly schedule. To book a time: list_event_types, then get_availability for a window, then create_booking ' +
  'with a returned slot. Every tool names the OAuth scope it needs; errors are the REST API\'s JSON bodies.';

/**
 * One JSON Schema validator for every per-request server: the SDK would otherwise build a new Ajv instance for
 * each request, a large share of a request's CPU.
 */
const JSON_SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** CORS for the allowed browser origins (MCP Inspector and other web clients): what they send and must read. */
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID';
const CORS_EXPOSE_HEADERS =
  'WWW-Authenticate, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Mcp-Session-Id';

export interface McpOptions {
  /** The request's deadline signal (src/http/request-deadline.ts), so that a tool's work can be called off. */
  deadlineOf(request: FastifyRequest): AbortSignal | undefined;
}

export async function registerMcp(app: FastifyInstance, services: AppServices, orm: MikroORM, options: McpOptions): Promise<void> {
  const tools = toolsOf(appRouter);
  const toolsByName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  const procedures = new Map(tools.map((tool) => [tool, procedureAt(appRouter, tool.procedurePath)!]));
  const allowedOrigins = mcpAllowedOrigins(services.env);
  const contexts = requestContexts(services, orm);
  const contextFor = (request: FastifyRequest): Context =>
    contexts({ headers: request.headers, ip: request.ip, surface: 'mcp', deadline: options.deadlineOf(request) });

  /** 403 for a browser origin that is not allowed (DNS-rebinding protection); CORS headers for one that is. */
  function refuseForeignOrigin(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    const origin = request.headers.origin;
    reply.header('Vary', 'Origin');
    if (origin === undefined) return undefined;
    if (!allowedOrigins.has(origin)) {
      return send(reply, errorResponse('forbidden', `Requests from the origin ${origin} may not use this MCP server.`));
    }
    reply.header('Access-Control-Allow-Origin', origin).header('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    return undefined;
  }

  app.options(MCP_PATH, async (request, reply) => {
    const refused = refuseForeignOrigin(request, reply);
    if (refused) return refused;
    return reply
      .code(204)
      .header('Allow', 'POST, OPTIONS')
      .header('Access-Control-Allow-Methods', 'POST')
      .header('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS)
      .header('Access-Control-Max-Age', '600')
      .send();
  });

  await app.register(async (scope) => {
    readJsonRpcBodies(scope);
    scope.post(MCP_PATH, async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const refused = refuseForeignOrigin(request, reply);
      if (refused) return refused;
      const ctx = contextFor(request);
      try {
        const transport = new StatelessJsonTransport();
        const checked = transport.check({
          headers: request.headers,
          contentType: request.raw.headersDistinct['content-type']?.join(', '),
          body: request.body,
        });
        await admitCalls(ctx, calledScopes(request.body, toolsByName), callsIn(checked));
        reply.headers(ctx.response.headers);
        // The first tool call runs in the context the door admitted; any other call of a batch gets one of its own
        // (an EntityManager serves one call at a time).
        let unused: Context | undefined = ctx;
        const contextForCall = () => {
          const callContext = unused ?? anotherCallOf(ctx);
          unused = undefined;
          return callContext;
        };
        await answerJsonRpc(request, reply, transport, checked, tools, toolsByName, (tool, args) => callTool(tool, args, contextForCall()));
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return send(reply, { ...toErrorResponse(error), headers: ctx.response.headers });
      }
    });
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    handler: async (request, reply) =>
      refuseForeignOrigin(request, reply) ??
      send(reply.header('Allow', 'POST, OPTIONS'), errorResponse('method_not_allowed', `${request.method} is not allowed on ${MCP_PATH}; use POST.`)),
  });

  /** Runs the tool's procedure in `ctx` (the request's principal in it). */
  async function callTool(tool: McpTool, args: unknown, ctx: Context): Promise<ToolAnswer> {
    try {
      const input = tool.takesInput ? (args ?? {}) : undefined;
      const problems = tool.input ? argumentProblems(tool.input, input) : [];
      if (problems.length > 0) throw new DomainError('invalid_request', summarizeIssues(problems), problems);
      const value = await callProcedure(procedures.get(tool)!, tool.procedurePath, async () => input, ctx);
      const json = value ?? null;
      // The REST body as text; the structured content is the same value, which the answer carries as the same JSON
      // text (the procedure's output is what its zod output schema returned, plain data).
      const text = JSON.stringify(json);
      return {
        result: {
          content: [{ type: 'text', text }],
          structuredContent: (tool.wrapsOutput ? { result: json } : json) as Record<string, unknown>,
        },
        structuredJson: tool.wrapsOutput ? ['{"result":', text, '}'] : [text],
      };
    } catch (error) {
      // The keys in the result schema's order, as the SDK writes them.
      return { result: { content: [{ type: 'text', text: JSON.stringify(toErrorResponse(error).body) }], isError: true } };
    }
  }
}

/**
 * What a POST counts against the token's budget: each request of it (a batch of 100 tool calls is 100 calls), and
 * at least one (a POST of notifications alone, or one refused before any message was read).
 */
function callsIn(checked: JsonRpcAnswer | readonly JSONRPCMessage[]): number {
  return Array.isArray(checked) ? Math.max(1, checked.filter(isJSONRPCRequest).length) : 1;
}

/**
 * JSON bodies at /mcp: what the API's JSON parser refuses (broken JSON, `__proto__` keys, absurd nesting) is kept as
 * the JSON-RPC error to answer once the caller is authenticated, not answered in the REST error shape. A body of
 * another media type is read and dropped: the transport answers 415 as the SDK does.
 */
function readJsonRpcBodies(scope: FastifyInstance): void {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonNestsDeeperThan(text, MAX_INPUT_DEPTH)) {
      return done(null, new UnreadableJson(ErrorCode.InvalidRequest, `Invalid Request: the JSON nests deeper than ${MAX_INPUT_DEPTH} levels`));
    }
    return parse(request, text, (error, value) => done(null, error ? unreadableJson(text) : value));
  });
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
}

/** Why the API's JSON parser refused `text`: not JSON at all, or a key it refuses. */
function unreadableJson(text: string): UnreadableJson {
  try {
    JSON.parse(text);
  } catch {
    return new UnreadableJson(ErrorCode.ParseError, 'Parse error: Invalid JSON');
  }
  return new UnreadableJson(ErrorCode.InvalidRequest, 'Invalid Request: keys named __proto__ (or constructor.prototype) are not accepted');
}

/** The scopes of the tools a JSON-RPC message (or batch) calls, checked before dispatching. */
function calledScopes(body: unknown, toolsByName: ReadonlyMap<string, McpTool>): Scope[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    const tool = method === 'tools/call' && typeof params?.name === 'string' ? toolsByName.get(params.name) : undefined;
    return tool ? [tool.scope] : [];
  });
}

async function answerJsonRpc(
  request: FastifyRequest,
  reply: FastifyReply,
  transport: StatelessJsonTransport,
  checked: JsonRpcAnswer | JSONRPCMessage[],
  tools: readonly McpTool[],
  toolsByName: ReadonlyMap<string, McpTool>,
  call: (tool: McpTool, args: unknown) => Promise<ToolAnswer>,
): Promise<void> {
  // Answered on the raw response, as the SDK's transport did: Fastify's onSend hooks never ran for an MCP answer.
  reply.hijack();
  if (!Array.isArray(checked)) return writeAnswer(reply, checked);
  const toolCall = soleToolCall(request.body, checked, toolsByName);
  if (toolCall) return writeAnswer(reply, { status: 200, body: await answerToolCall(toolCall, call) });
  const server = sdkServer(tools, toolsByName, call);
  await server.connect(transport);
  // A client gone before its answer: the server aborts the handlers still running (closing closes the transport).
  let answered = false;
  reply.raw.once('close', () => {
    if (!answered) void server.close();
  });
  const answer = await transport.deliver(checked, request.headers, refuseInvalidParams);
  answered = true;
  if (answer) writeAnswer(reply, answer);
}

/** A server for one POST: every method, as the SDK handles it. */
function sdkServer(
  tools: readonly McpTool[],
  toolsByName: ReadonlyMap<string, McpTool>,
  call: (tool: McpTool, args: unknown) => Promise<ToolAnswer>,
): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, prompts: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: JSON_SCHEMA_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = toolsByName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}. tools/list names them all.`);
    return (await call(tool, params.arguments)).result;
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: promptDefinitions() }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) => {
    const prompt = renderPrompt(params.name, params.arguments);
    if (typeof prompt === 'string') throw new McpError(ErrorCode.InvalidParams, prompt);
    return prompt;
  });
  return server;
}

/** Writes the answer with the headers set so far (rate limit, no-store, CORS), in one write. */
function writeAnswer(reply: FastifyReply, answer: JsonRpcAnswer): void {
  if (reply.raw.destroyed) return;
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  const parts = answer.body ?? [];
  const length = parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0);
  reply.raw.writeHead(answer.status, answer.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': length });
  // The parts are written separately (joined, they would make a string Node measures character by character);
  // corked, they leave in one write with the head (end() uncorks).
  reply.raw.cork();
  for (const part of parts) reply.raw.write(part);
  reply.raw.end();
}

function send(reply: FastifyReply, answer: ErrorResponse): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8').send(answer.body);
}
