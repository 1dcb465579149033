import { initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ZodError } from 'zod';
import {
  DomainError,
  type ErrorBody,
  type ErrorDetail,
  ERROR_KINDS,
  errorKindForTrpcCode,
  summarizeIssues,
} from '../lib/errors.ts';
import type { Scope } from '../identity/scopes.ts';
import type { Context } from './context.ts';

/** What a procedure declares about itself beyond its schemas; read by the OpenAPI post-processing too. */
export type ProcedureMeta = OpenApiMeta<{
  /** The scope a bearer token needs; absent on public procedures. */
  scope?: Scope;
  /** The status of a successful REST response when it is not 200 (e.g. 201 for a created resource). */
  successStatus?: number;
  /** Whether the procedure honours an `Idempotency-Key` header. */
  idempotent?: boolean;
  /** Error statuses the OpenAPI document lists beyond those derived from the operation's shape (e.g. 409, 422). */
  errorStatuses?: number[];
}>;

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer: superjson,
    isDev: false,
    errorFormatter({ shape, error }) {
      const body = toErrorBody(error);
      return {
        message: body.message,
        code: shape.code,
        data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path },
        title: body.title,
        ...(body.details ? { details: body.details } : {}),
      };
    },
  });

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const middleware = t.middleware;
export const procedure = t.procedure;
export const createCallerFactory = t.createCallerFactory;

/** The `{title, message, details}` body for any error a procedure produced; 5xx bodies say nothing internal. */
export function toErrorBody(error: TRPCError): ErrorBody {
  const kind = errorKindForTrpcCode(error.code);
  // Only input validation is the caller's fault; an output that fails its schema is our bug (a 500).
  if (error.code === 'BAD_REQUEST' && error.cause instanceof ZodError) {
    const details = zodIssuesToDetails(error.cause);
    return { title: ERROR_KINDS.invalid_request.title, message: summarizeIssues(details), details };
  }
  if (kind.status >= 500) {
    const message =
      kind.status === 503
        ? 'The service is temporarily unavailable. Retry shortly.'
        : 'An unexpected error occurred. It has been logged.';
    return { title: kind.title, message };
  }
  const details = error.cause instanceof DomainError ? error.cause.details : undefined;
  if (kind.status === 400) {
    return { title: kind.title, message: error.message, details: details ?? [] };
  }
  return { title: kind.title, message: error.message };
}

export function zodIssuesToDetails(error: ZodError): ErrorDetail[] {
  return error.issues.map((issue) => ({
    code: issue.code,
    path: issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol'),
    message: issue.message,
  }));
}

export { TRPCError };
