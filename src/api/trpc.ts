import { getTRPCErrorFromUnknown, initTRPC, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { ERROR_KINDS, DomainError } from '../lib/errors.ts';
import { toErrorResponse } from '../lib/error-response.ts';
import { isUnavailableError } from '../lib/unavailable.ts';
import type { Scope } from '../identity/scopes.ts';
import type { Context } from './context.ts';

/** What a procedure declares about itself beyond its schemas; read by the OpenAPI post-processing too. */
export type ProcedureMeta = Omit<
  OpenApiMeta<{
    /** The scope a bearer token needs; absent on public procedures. */
    scope?: Scope;
    /** The status of a successful REST response when it is not 200 (e.g. 201 for a created resource; src/http/rest). */
    successStatus?: number;
    /** Whether the procedure honours an `Idempotency-Key` header (the gate in src/api/call.ts reads it for the procedure). */
    idempotent?: boolean;
    /** Error statuses the OpenAPI document lists beyond those derived from the operation's shape (e.g. 409, 422). */
    errorStatuses?: number[];
    /** A POST whose repetition changes nothing more (its MCP tool's idempotentHint); PUT, PATCH, DELETE are so anyway. */
    repeatable?: boolean;
  }>,
  'openapi'
> & {
  /** On /api/v2: the operationId is required, the name SDK generators give the method (never derived). */
  openapi?: NonNullable<OpenApiMeta['openapi']> & { operationId: string };
};

/**
 * superjson on the way in (the web app's client encodes its inputs with it) and plain JSON on the way out, in
 * superjson's own envelope (`{json}`, which its deserializer returns as is). Every output schema is JSON already
 * (date-times are ISO strings; no Date, Map, Set or BigInt), so superjson's walk over each value of a response
 * (a large share of the CPU of tRPC pages of bookings) found nothing to encode;
 * test/openapi/json-outputs.test.ts keeps it so.
 */
const transformer = {
  input: superjson,
  output: { serialize: (value: unknown) => ({ json: value }), deserialize: superjson.deserialize },
};

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    transformer,
    isDev: false,
    errorFormatter({ shape, error }) {
      const { body } = toErrorResponse(error);
      return {
        message: body.message,
        code: shape.code,
        data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path },
        title: body.title,
        ...(body.details ? { details: body.details } : {}),
      };
    },
  });

/**
 * What every procedure's outcome goes through: the one conversion of errors into tRPC codes. It runs in the same
 * middleware as the gate, because each middleware level costs tRPC two copies of the call's options
 * (docs/performance.md#figures-behind-the-code).
 */
async function shapeOutcome<R extends { ok: true; data: unknown } | { ok: false; error: TRPCError }>(
  { ctx, path }: { ctx: Context; path: string },
  run: () => Promise<R>,
): Promise<R> {
  let result: R;
  try {
    result = await run();
  } catch (cause) {
    // The gate's refusal, caught here as tRPC would have caught it one middleware level down.
    throw transportError(ctx, path, getTRPCErrorFromUnknown(cause));
  }
  if (!result.ok) throw transportError(ctx, path, result.error);
  return result;
}

/** The error as the transport answers it: a domain error's own code, 503 for a backing service that is down. */
function transportError(ctx: Context, path: string, error: TRPCError): TRPCError {
  const cause = error.cause;
  if (cause instanceof DomainError) {
    return new TRPCError({ code: ERROR_KINDS[cause.code].trpcCode, message: cause.message, cause });
  }
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    if (isUnavailableError(cause)) {
      ctx.log.warn({ err: cause, path }, 'backing service unavailable');
      return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'unavailable', cause });
    }
    ctx.log.error({ err: cause ?? error, path }, 'procedure failed');
    loggedFailures.add(error);
  }
  return error;
}

const loggedFailures = new WeakSet<Error>();

/**
 * For the HTTP adapters' onError: logs a 500 no procedure logged, because it happened in the adapter before or
 * after the procedure ran (e.g. while reading the request). Every 500 says "It has been logged"; this makes it true.
 */
export function logFailureOutsideProcedure(log: Context['log'], error: TRPCError, path: string | undefined): void {
  if (error.code !== 'INTERNAL_SERVER_ERROR' || loggedFailures.has(error)) return;
  log.error({ err: error.cause ?? error, path }, 'request failed outside its procedure');
}

/**
 * What a procedure checks before it runs (authentication, rate limits, scopes, the input check…). `admit` refuses
 * the call by throwing, or returns what the procedure's context gains; `settle` runs once the procedure is done.
 */
export interface Gate<Admitted extends object> {
  admit(ctx: Context, meta: ProcedureMeta | undefined, getRawInput: () => Promise<unknown>): Promise<Admitted>;
  settle(ctx: Context, admitted: Admitted): void;
}

/**
 * The bases of every procedure: errors converted first of all, the gate's own included. tRPC's raw `procedure`
 * is not exported, so no procedure can skip the conversion; src/api/procedures.ts builds the gated ones.
 */
export const publicProcedure = t.procedure.use(async (opts) => shapeOutcome(opts, () => opts.next()));

export function gatedProcedure<Admitted extends object>(gate: Gate<Admitted>) {
  return t.procedure.use(async (opts) =>
    shapeOutcome(opts, async () => {
      const admitted = await gate.admit(opts.ctx, opts.meta, opts.getRawInput);
      const result = await opts.next({ ctx: admitted });
      gate.settle(opts.ctx, admitted);
      return result;
    }),
  );
}

export const router = t.router;
export const mergeRouters = t.mergeRouters;
