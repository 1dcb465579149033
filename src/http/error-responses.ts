import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorBody, type ErrorCode, type ErrorDetail, ERROR_KINDS, summarizeIssues } from '../lib/errors.ts';
import { isUnavailableError } from '../lib/unavailable.ts';

const FASTIFY_ERROR_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_request',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_request',
};

const FASTIFY_MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'The request body is not valid JSON.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'Unsupported Content-Type: send the body as application/json.',
};

export function sendError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  const kind = ERROR_KINDS[code];
  const body: ErrorBody = { title: kind.title, message, ...(kind.status === 400 ? { details: [] } : {}) };
  return reply.code(kind.status).type('application/json; charset=utf-8').send(body);
}

/**
 * Fastify's `frameworkErrors`: a URL whose percent-encoding is not valid UTF-8 (FST_ERR_BAD_URL) is refused
 * while routing, before any hook; it gets the same body as every other 400.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const message =
    error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid: its percent-encoding does not decode to UTF-8.' : error.message;
  void sendError(reply, 'invalid_request', message);
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (headers or URL over the 16 KB limit,
 * malformed request line, timeout) never reaches Fastify, so the answer is written on the socket by hand, in
 * the same `{title, message, details}` body; the connection is closed, as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers or URL exceed 16 KB.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive.']
        : [400, 'The request is not valid HTTP.'];
  const title = STATUS_CODES[status] ?? 'Bad Request';
  const body = JSON.stringify({ title, message, ...(status === 400 ? { details: [] } : {}) } satisfies ErrorBody);
  // As Node does: never a second answer on a socket whose response has already started.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Errors raised by Fastify itself (body parsing, limits, unknown routes) and anything unexpected get the
 * same `{title, message, details}` body as the API's own errors; nothing internal leaks into a 5xx body.
 */
export function registerErrorResponses(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const code = error.code ? FASTIFY_ERROR_CODES[error.code] : undefined;
    if (code) return sendError(reply, code, FASTIFY_MESSAGES[code] ?? error.message);
    if (error.validation || (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)) {
      const status = error.statusCode ?? 400;
      const known = Object.entries(ERROR_KINDS).find(([, kind]) => kind.status === status)?.[0] as ErrorCode | undefined;
      return sendError(reply, known ?? 'invalid_request', error.message);
    }
    if (isUnavailableError(error)) {
      request.log.warn({ err: error }, 'backing service unavailable');
      reply.header('Retry-After', '5');
      return sendError(reply, 'unavailable', 'The service is temporarily unavailable. Retry shortly.');
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'internal', 'An unexpected error occurred. It has been logged.');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, 'not_found', `No route ${request.method} ${request.originalUrl.split('?')[0]}.`),
  );
}

export function methodNotAllowedMessage(method: string, path: string, allowed: string[]): string {
  return `${method} is not allowed on ${path}; use ${allowed.join(' or ')}.`;
}

export interface RestErrorRequest {
  method: string;
  /** The URL as the client sent it (the adapter rewrites the request's own URL). */
  url: string;
  /** The methods the API serves on a path, empty when it serves none. */
  allowedMethods(path: string): string[];
}

export interface ReshapedError {
  body: string;
  status?: number;
  headers?: Record<string, string>;
}

/**
 * trpc-to-openapi writes its own error body (`code`, `issues`, a rewritten message); the spec's body is
 * exactly `{title, message, details}`, and `details` only on 400. The error formatter already put the
 * right values in; this keeps just those keys, gives the adapter's own errors (unknown route, content type)
 * our wording, and turns "no such route" into 405 with `Allow` when the path exists with other methods.
 */
export function reshapeRestErrorBody(request: RestErrorRequest, payload: string): ReshapedError {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return { body: payload };
  }
  if (typeof parsed.title !== 'string') return { body: payload };
  const path = request.url.split('?')[0] ?? '';
  if (parsed.code === 'NOT_FOUND' && parsed.message === 'Not found') {
    const allowed = request.allowedMethods(path);
    if (allowed.length > 0) {
      const kind = ERROR_KINDS.method_not_allowed;
      const body: ErrorBody = { title: kind.title, message: methodNotAllowedMessage(request.method, path, allowed) };
      return { body: JSON.stringify(body), status: kind.status, headers: { Allow: allowed.join(', ') } };
    }
    return { body: JSON.stringify({ title: parsed.title, message: `No route ${request.method} ${path}.` }) };
  }
  if (parsed.code === 'UNSUPPORTED_MEDIA_TYPE') {
    return { body: JSON.stringify({ title: parsed.title, message: FASTIFY_MESSAGES.unsupported_media_type }) };
  }
  const details = Array.isArray(parsed.details) ? (parsed.details as ErrorDetail[]) : undefined;
  const message = parsed.issues && details ? summarizeIssues(details) : String(parsed.message);
  const body: ErrorBody = { title: parsed.title, message, ...(details ? { details } : {}) };
  return { body: JSON.stringify(body) };
}
