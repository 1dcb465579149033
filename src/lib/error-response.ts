import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import {
  DomainError,
  type ErrorBody,
  type ErrorCode,
  type ErrorDetail,
  ERROR_KINDS,
  errorKindForTrpcCode,
  summarizeIssues,
} from './errors.ts';
import { isUnavailableError } from './unavailable.ts';

/** An error as every surface answers it (REST, /trpc, Fastify's own routes, the raw socket, MCP tools). */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
}

/** Seconds a client is asked to wait after a 503: long enough for a database failover to finish. */
const RETRY_AFTER_UNAVAILABLE_SEC = 5;

/**
 * The answer for an error of a known kind, worded by the caller; `details`: always on 400 (possibly empty), on
 * other statuses only when the error names some (a booking series' 409 names its failing occurrences).
 */
export function errorResponse(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorResponse {
  const kind = ERROR_KINDS[code];
  const listed = kind.status === 400 ? { details: details ?? [] } : details?.length ? { details } : {};
  const body: ErrorBody = { title: kind.title, message, ...listed };
  return { status: kind.status, headers: {}, body };
}

/** 5xx bodies say nothing internal: one wording each, whatever went wrong. */
const UNAVAILABLE: ErrorResponse = {
  ...errorResponse('unavailable', 'The service is temporarily unavailable. Retry shortly.'),
  headers: { 'Retry-After': String(RETRY_AFTER_UNAVAILABLE_SEC) },
};
const INTERNAL = errorResponse('internal', 'An unexpected error occurred. It has been logged.');

/** The answer to a fault that is not an outage, for a surface that words its other errors itself (OAuth). */
export const unexpectedError = (): ErrorResponse => INTERNAL;

const UNSUPPORTED_MEDIA_TYPE_MESSAGE = 'Unsupported Content-Type: send the body as application/json.';

const NOT_JSON = errorResponse('invalid_request', 'The request body is not valid JSON.');

/** The answer to a body that is not valid JSON (an empty one where the operation needs one included). */
export const notJson = (): ErrorResponse => NOT_JSON;

/**
 * Errors Fastify and Node's HTTP parser raise themselves, in the service's words. Any other `HPE_*` parser error
 * is "not valid HTTP"; a framework error not listed keeps its own message with the status it carries.
 */
const FRAMEWORK_ERRORS: Record<string, ErrorResponse> = {
  FST_ERR_CTP_INVALID_JSON_BODY: NOT_JSON,
  FST_ERR_CTP_EMPTY_JSON_BODY: NOT_JSON,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: NOT_JSON,
  FST_ERR_CTP_BODY_TOO_LARGE: errorResponse('payload_too_large', 'The request body is too large.'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: errorResponse('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE_MESSAGE),
  FST_ERR_BAD_URL: errorResponse(
    'invalid_request',
    'The URL is not valid: its percent-encoding does not decode to UTF-8.',
  ),
  // Statuses only Node's parser answers, outside the service's own error kinds.
  HPE_HEADER_OVERFLOW: {
    status: 431,
    headers: {},
    body: { title: 'Request Header Fields Too Large', message: 'The request headers or URL exceed 16 KB.' },
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    headers: {},
    body: { title: 'Request Timeout', message: 'The request took too long to arrive.' },
  },
};

/** A request Node's HTTP parser could not read; never an outage, whatever the socket reported. */
export const notValidHttp = (): ErrorResponse => errorResponse('invalid_request', 'The request is not valid HTTP.');

/** The answer to a body that is not JSON, wherever it is found (Fastify's parser, the REST route table). */
export const unsupportedMediaType = (): ErrorResponse =>
  errorResponse('unsupported_media_type', UNSUPPORTED_MEDIA_TYPE_MESSAGE);

/**
 * The one place any error becomes status, headers and `{title, message, details}`: a service's DomainError, a
 * tRPC error (its cause decides: domain, input validation, outage), a zod error, Fastify's and Node's own errors,
 * an unreachable database or Redis (503 + Retry-After), and anything else (500). A client's bad input is never
 * an outage, and nothing internal reaches a 5xx body. Logging is the caller's: status 503 and 500 are the faults.
 */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof TRPCError) return fromTrpcError(error);
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof ZodError) return fromZodError(error);
  // `throw null`, `throw 'text'`: nothing to read, so nothing to blame on the caller.
  if (typeof error !== 'object' || error === null) return INTERNAL;
  const code = (error as { code?: unknown }).code;
  const framework = typeof code === 'string' ? FRAMEWORK_ERRORS[code] : undefined;
  if (framework) return framework;
  if (typeof code === 'string' && code.startsWith('HPE_')) return notValidHttp();
  const { statusCode, validation, message } = error as { statusCode?: number; validation?: unknown; message?: string };
  if (validation || (statusCode && statusCode >= 400 && statusCode < 500)) {
    return errorResponse(kindOfStatus(statusCode ?? 400) ?? 'invalid_request', String(message));
  }
  return isUnavailableError(error) ? UNAVAILABLE : INTERNAL;
}

function fromTrpcError(error: TRPCError): ErrorResponse {
  const cause = error.cause;
  if (cause instanceof DomainError) return fromDomainError(cause);
  // Only input validation is the caller's fault; an output that fails its schema is our bug (a 500).
  if (error.code === 'BAD_REQUEST' && cause instanceof ZodError) return fromZodError(cause);
  const kind = errorKindForTrpcCode(error.code);
  if (kind.status >= 500) return kind === ERROR_KINDS.unavailable ? UNAVAILABLE : INTERNAL;
  return errorResponse(kindOfStatus(kind.status) ?? 'invalid_request', error.message);
}

function fromDomainError(error: DomainError): ErrorResponse {
  if (error.code === 'unavailable') return UNAVAILABLE;
  if (error.code === 'internal') return INTERNAL;
  return errorResponse(error.code, error.message, error.details);
}

function fromZodError(error: ZodError): ErrorResponse {
  const details = zodIssuesToDetails(error);
  return errorResponse('invalid_request', summarizeIssues(details), details);
}

function kindOfStatus(status: number): ErrorCode | undefined {
  return (Object.keys(ERROR_KINDS) as ErrorCode[]).find((code) => ERROR_KINDS[code].status === status);
}

export function zodIssuesToDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    code: issue.code,
    path: issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol'),
    message: issue.message,
  }));
}
