import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorResponse, type ErrorResponse, notValidHttp, toErrorResponse } from '../lib/error-response.ts';

export function sendErrorResponse(reply: FastifyReply, answer: ErrorResponse): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8').send(answer.body);
}

/** No route serves this path with any method. */
export function routeNotFound(method: string, path: string): ErrorResponse {
  return errorResponse('not_found', `No route ${method} ${path}.`);
}

/** The path exists, with other methods: 405 naming them, in the message and in `Allow`. */
export function methodNotAllowed(method: string, path: string, allowed: string[]): ErrorResponse {
  const answer = errorResponse('method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}.`);
  return { ...answer, headers: { Allow: allowed.join(', ') } };
}

/**
 * Fastify's `frameworkErrors`: a URL whose percent-encoding is not valid UTF-8 (FST_ERR_BAD_URL) is refused
 * while routing, before any hook; it gets the same body as every other 400.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendErrorResponse(reply, toErrorResponse(error));
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses (headers or URL over the 16 KB limit,
 * malformed request line, timeout) never reaches Fastify, so the answer is written on the socket by hand, in
 * the same `{title, message, details}` body; the connection is closed, as Node does.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const parsed = toErrorResponse(error);
  // Whatever the socket reported, a request that could not be read is the client's, never an outage.
  const { status, body } = parsed.status < 500 ? parsed : notValidHttp();
  const json = JSON.stringify(body);
  // As Node does: never a second answer on a socket whose response has already started.
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${body.title}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
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
    const answer = toErrorResponse(error);
    if (answer.status === 503) request.log.warn({ err: error }, 'backing service unavailable');
    else if (answer.status >= 500) request.log.error({ err: error }, 'unhandled error');
    return sendErrorResponse(reply, answer);
  });

  app.setNotFoundHandler((request, reply) =>
    sendErrorResponse(reply, routeNotFound(request.method, request.originalUrl.split('?')[0] ?? '')),
  );
}
