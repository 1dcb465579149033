import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { z } from 'zod';

/** What can go wrong, in the service's own words; one table below turns each into an HTTP status and title. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** One problem with a request, in the shape zod issues have; `details` of a 400 lists them. */
export const ErrorDetailSchema = z.object({
  code: z.string().meta({ description: 'The kind of issue, e.g. `invalid_type`.', examples: ['invalid_format'] }),
  path: z.array(z.union([z.string(), z.int()])).meta({ description: 'Where in the input the issue is.', examples: [['invitee', 'email']] }),
  message: z.string().meta({ description: 'The issue, for a human.', examples: ['Invalid email address'] }),
  startAt: z.iso
    .datetime()
    .optional()
    .meta({ description: 'On a booking series’ 409: the start of the occurrence this entry is about.', examples: ['2026-12-08T09:00:00.000Z'] }),
});
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** The body every error has (REST, tRPC, the HTML-less routes): the spec's `{title, message, details}`. */
export const ErrorBodySchema = z
  .object({
    title: z.string().meta({ description: 'The HTTP status text, e.g. `Not Found`.', examples: ['Not Found'] }),
    message: z.string().meta({ description: 'What went wrong, for a human.', examples: ['Booking not found'] }),
    details: z
      .array(ErrorDetailSchema)
      .optional()
      .meta({
        description:
          'Present on 400 responses: one entry per validation issue. On a booking series’ 409: one entry per reason an ' +
          'occurrence cannot be booked (`code` is the reason’s kind, as GET /availability/explain names it).',
      }),
  })
  .meta({ description: 'The body of every error response of this API.' });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

interface ErrorKind {
  status: number;
  title: string;
  trpcCode: TRPC_ERROR_CODE_KEY;
}

export const ERROR_KINDS: Record<ErrorCode, ErrorKind> = {
  invalid_request: { status: 400, title: 'Bad Request', trpcCode: 'BAD_REQUEST' },
  unauthenticated: { status: 401, title: 'Unauthorized', trpcCode: 'UNAUTHORIZED' },
  forbidden: { status: 403, title: 'Forbidden', trpcCode: 'FORBIDDEN' },
  not_found: { status: 404, title: 'Not Found', trpcCode: 'NOT_FOUND' },
  method_not_allowed: { status: 405, title: 'Method Not Allowed', trpcCode: 'METHOD_NOT_SUPPORTED' },
  conflict: { status: 409, title: 'Conflict', trpcCode: 'CONFLICT' },
  unprocessable: { status: 422, title: 'Unprocessable Content', trpcCode: 'UNPROCESSABLE_CONTENT' },
  payload_too_large: { status: 413, title: 'Payload Too Large', trpcCode: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { status: 415, title: 'Unsupported Media Type', trpcCode: 'UNSUPPORTED_MEDIA_TYPE' },
  rate_limited: { status: 429, title: 'Too Many Requests', trpcCode: 'TOO_MANY_REQUESTS' },
  unavailable: { status: 503, title: 'Service Unavailable', trpcCode: 'SERVICE_UNAVAILABLE' },
  internal: { status: 500, title: 'Internal Server Error', trpcCode: 'INTERNAL_SERVER_ERROR' },
};

const KIND_BY_TRPC_CODE = new Map<string, ErrorKind>(Object.values(ERROR_KINDS).map((kind) => [kind.trpcCode, kind]));

/** The title for a tRPC error code, falling back to the generic one for codes we never raise ourselves. */
export function errorKindForTrpcCode(code: string): ErrorKind {
  if (code === 'PARSE_ERROR') return ERROR_KINDS.invalid_request;
  return KIND_BY_TRPC_CODE.get(code) ?? ERROR_KINDS.internal;
}

/** Thrown by services; never carries anything that must not reach the caller. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);

/** A 400 for one bad field, in the same `details` shape zod issues have. */
export function invalidField(path: (string | number)[], message: string): DomainError {
  return new DomainError('invalid_request', `${path.join('.')}: ${message}`, [{ code: 'custom', path, message }]);
}

export function summarizeIssues(details: ErrorDetail[]): string {
  const parts = details.slice(0, 3).map((d) => (d.path.length ? `${d.path.join('.')}: ${d.message}` : d.message));
  const more = details.length > 3 ? ` (and ${details.length - 3} more)` : '';
  return `Invalid request: ${parts.join('; ')}${more}`;
}
