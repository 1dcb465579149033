/**
 * The SDK's Streamable HTTP server transport, reduced to what /mcp uses (stateless, JSON answers, POST) and working on
 * the body Fastify already parsed, without the SDK's Fetch round trip (docs/performance.md#mcp-tool-calls). Its checks
 * and answers are the SDK 1.32's in that mode (test/mcp/mcp-transport.test.ts pins them), stricter only where
 * JSON-RPC 2.0 asks: an empty batch, JSON that is no JSON-RPC message and JSON the body parser refuses are Invalid
 * Requests.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/** What to answer the POST: a status and a JSON body, or no body (202 for notifications and responses only). */
export interface JsonRpcAnswer {
  status: number;
  /** The JSON text, in parts to be written in order (src/mcp/tool-call.ts splices a tool's serialized result in). */
  body?: readonly string[];
}

/** A body the /mcp parser could not take: the JSON-RPC error to answer once the caller is authenticated. */
export class UnreadableJson {
  readonly code: number;
  readonly message: string;

  constructor(code: number, message: string) {
    this.code = code;
    this.message = message;
  }
}

/** The request as the transport needs it: Node's headers (with `content-type` as sent, see below) and the parsed body. */
export interface JsonRpcPost {
  headers: IncomingHttpHeaders;
  /** Every `Content-Type` line joined (Node keeps only the first; the SDK saw them all and refuses a duplicate). */
  contentType: string | undefined;
  /** The JSON body as Fastify parsed it; undefined when there was none to parse. */
  body: unknown;
}

/** A transport for one HTTP POST: `check` the request, connect a server, then `deliver` the messages to it. */
export class StatelessJsonTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly sessionId = undefined;
  /** The requests of this POST, in order, with their responses once sent. */
  #pending = new Map<RequestId, JSONRPCMessage | undefined>();
  #settle: ((answer: JsonRpcAnswer | undefined) => void) | undefined;
  #closed = false;

  async start(): Promise<void> {}

  /** The client went away: in-flight handlers are aborted (by the server) and nothing is answered. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending.clear();
    this.#settle?.(undefined);
    this.onclose?.();
  }

  /**
   * The SDK's checks of the POST (Accept, Content-Type, batch size, message shapes, protocol version): the refusal
   * to answer, or the messages to `deliver`.
   */
  check(post: JsonRpcPost): JsonRpcAnswer | JSONRPCMessage[] {
    const accept = post.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.#refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(post.contentType)) {
      return this.#refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    // Fastify parses every application/json body before the handler; without one the SDK found nothing to parse.
    if (post.body === undefined) return this.#refuse(400, -32700, 'Parse error: Invalid JSON');
    if (post.body instanceof UnreadableJson) return this.#refuse(400, post.body.code, post.body.message);
    const raw = post.body;
    if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
      return this.#refuse(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    if (Array.isArray(raw) && raw.length === 0) return this.#refuse(400, -32600, 'Invalid Request: Batch must not be empty');
    let messages: JSONRPCMessage[];
    try {
      messages = Array.isArray(raw) ? raw.map((message) => JSONRPCMessageSchema.parse(message)) : [JSONRPCMessageSchema.parse(raw)];
    } catch {
      // Valid JSON that is not a JSON-RPC 2.0 message is an Invalid Request (the SDK says Parse error).
      return this.#refuse(400, -32600, 'Invalid Request: not a JSON-RPC 2.0 message');
    }
    if (messages.some(isInitializeRequest)) {
      if (messages.length > 1) return this.#refuse(400, -32600, 'Invalid Request: Only one initialization request is allowed');
    } else {
      const protocolVersion = post.headers['mcp-protocol-version'];
      if (protocolVersion !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(protocolVersion))) {
        const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
        return this.#refuse(400, -32000, `Bad Request: Unsupported protocol version: ${protocolVersion} (supported versions: ${supported})`);
      }
    }
    return messages;
  }

  /**
   * Hands the checked messages to the connected server: 202 at once when there is no request among them,
   * otherwise the JSON-RPC answer once every request has its response; undefined if closed first. A request
   * `refuse` answers (with an error response) is answered so, without reaching the server.
   */
  deliver(
    messages: readonly JSONRPCMessage[],
    headers: IncomingHttpHeaders,
    refuse: (request: JSONRPCRequest) => JSONRPCErrorResponse | undefined = () => undefined,
  ): Promise<JsonRpcAnswer | undefined> {
    try {
      const extra: MessageExtraInfo = { requestInfo: { headers } };
      if (!messages.some(isJSONRPCRequest)) {
        for (const message of messages) this.onmessage?.(message, extra);
        return Promise.resolve({ status: 202 });
      }
      return new Promise((resolve) => {
        this.#settle = resolve;
        for (const message of messages) if (isJSONRPCRequest(message)) this.#pending.set(message.id, undefined);
        for (const message of messages) {
          const refusal = isJSONRPCRequest(message) ? refuse(message) : undefined;
          if (refusal) this.#respond((message as JSONRPCRequest).id, refusal);
          else this.onmessage?.(message, extra);
        }
      });
    } catch (error) {
      this.onerror?.(error as Error);
      return Promise.resolve(errorAnswer(400, -32700, 'Parse error', String(error)));
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const requestId = isResponse ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      // No stream for server-initiated messages in stateless mode: the SDK drops them too.
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      return;
    }
    if (!this.#pending.has(requestId)) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    // Notifications about a request (progress, logging) have no place in a JSON answer.
    if (isResponse) this.#respond(requestId, message);
  }

  /** Records the response to a request of this POST; the answer is settled once every request has one. */
  #respond(requestId: RequestId, message: JSONRPCMessage): void {
    this.#pending.set(requestId, message);
    const responses = [...this.#pending.values()];
    if (responses.some((response) => response === undefined)) return;
    this.#pending.clear();
    this.#settle?.({ status: 200, body: [JSON.stringify(responses.length === 1 ? responses[0] : responses)] });
  }

  #refuse(status: number, code: number, message: string): JsonRpcAnswer {
    this.onerror?.(new Error(message));
    return errorAnswer(status, code, message);
  }
}

function errorAnswer(status: number, code: number, message: string, data?: string): JsonRpcAnswer {
  const error = data === undefined ? { code, message } : { code, message, data };
  return { status, body: [JSON.stringify({ jsonrpc: '2.0', error, id: null })] };
}
