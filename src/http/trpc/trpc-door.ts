import {
  type AnyProcedure,
  type AnyRouter,
  getErrorShape,
  getTRPCErrorFromUnknown,
  type ProcedureType,
  transformTRPCResponse,
  TRPCError,
} from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callProcedure, type Context, procedureAt } from '../../api/call.ts';

/**
 * tRPC's HTTP protocol for what `httpLink` and `httpBatchLink` send, without the Fetch API round trip of tRPC's own
 * handler (docs/performance.md#the-trpc-door). Each step is tRPC 11's `resolveResponse`, in order, with its messages,
 * statuses and headers (test/http/trpc-door.test.ts compares both); streams, HEAD and other methods go to tRPC's
 * handler.
 */
export interface TrpcDoorOptions {
  router: AnyRouter;
  createContext: (request: FastifyRequest) => Context;
  onError: (failure: { error: TRPCError; path: string | undefined }) => void;
  /** The headers of an answer, from its context (undefined if none was made) and its errors. */
  responseHeaders: (ctx: Context | undefined, errors: TRPCError[]) => Record<string, string>;
}

interface Call {
  path: string;
  procedure: AnyProcedure | undefined;
  batchIndex: number;
}

type Outcome = { ok: true; data: unknown } | { ok: false; error: TRPCError };
type RpcAnswer = { result: { data: unknown } } | { error: unknown };

/** Which procedure types each method may call (tRPC's map without method override). */
const ACCEPTED_METHOD: Record<ProcedureType, string> = { query: 'GET', mutation: 'POST', subscription: 'GET' };

/** A request the door answers: its calls, worked out before any of them runs, or why it is refused as a whole. */
export type TrpcRequestPlan = { isBatch: boolean; calls: Call[]; query: URLSearchParams } | { refusal: TRPCError };

/**
 * What the door does with a request, or undefined to leave it to tRPC's handler (streams, subscriptions,
 * `connectionParams`, HEAD and methods other than GET and POST). A GET's input is in its query whatever its
 * content type; a POST's is its JSON body (the string Fastify's parser left), and any other media type is a
 * 415. A path that is not URL-encoding, a batch of more than `maxBatchSize` calls and a batch mixing queries and
 * mutations are refused as a whole with tRPC's messages, as JSON (tRPC's own handler sends those as text/plain).
 */
export function planTrpcRequest(router: AnyRouter, request: FastifyRequest, encodedPath: string, maxBatchSize: number): TrpcRequestPlan | undefined {
  if (request.headers['trpc-accept'] !== undefined || acceptsJsonLines(request.headers.accept)) return undefined;
  if (request.method !== 'GET' && request.method !== 'POST') return undefined;
  const queryStart = request.url.indexOf('?');
  const query = new URLSearchParams(queryStart === -1 ? '' : request.url.slice(queryStart + 1));
  if (query.has('connectionParams')) return undefined;
  const isJson = mediaType(request.headers['content-type']) === 'application/json' && typeof request.body === 'string';
  if (request.method === 'POST' && !isJson) return { refusal: unsupportedMediaType(request.headers['content-type']) };
  const path = decodePath(encodedPath);
  if (path === undefined) return { refusal: new TRPCError({ code: 'BAD_REQUEST', message: `Invalid URL-encoding in path "${encodedPath}"` }) };
  const isBatch = query.get('batch') === '1';
  const paths = isBatch ? path.split(',') : [path];
  if (paths.length > maxBatchSize) return { refusal: new TRPCError({ code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' }) };
  const calls = paths.map((callPath, batchIndex) => ({
    path: callPath,
    procedure: procedureAt(router, callPath),
    batchIndex,
  }));
  const types = new Set(calls.flatMap((call) => (call.procedure ? [call.procedure._def.type] : [])));
  if (types.has('subscription')) return undefined;
  if (types.size > 1) return { refusal: new TRPCError({ code: 'BAD_REQUEST', message: `Cannot mix procedure types in call: ${[...types].join(', ')}` }) };
  return { isBatch, calls, query };
}

function unsupportedMediaType(contentType: string | undefined): TRPCError {
  const message = contentType === undefined ? 'Missing content-type header' : `Unsupported content-type "${contentType}": send JSON.`;
  return new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message });
}

/** Answers the request as tRPC would: one result, or an array of them for a batch (207 if mixed), or its refusal. */
export async function answerTrpcRequest(
  options: TrpcDoorOptions,
  plan: TrpcRequestPlan,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if ('refusal' in plan) return refuse(options, plan.refusal, reply);
  return answerCalls(options, plan, request, reply);
}

function refuse(options: TrpcDoorOptions, error: TRPCError, reply: FastifyReply): FastifyReply {
  options.onError({ error, path: undefined });
  const config = options.router._def._config;
  const answer = { error: getErrorShape({ config, error, type: 'unknown', path: undefined, input: undefined, ctx: undefined }) };
  const status = getHTTPStatusCode(answer as Parameters<typeof getHTTPStatusCode>[0], [error]);
  return send(reply, status, options.responseHeaders(undefined, [error]), transformTRPCResponse(config, answer as never));
}

async function answerCalls(
  options: TrpcDoorOptions,
  { isBatch, calls, query }: { isBatch: boolean; calls: Call[]; query: URLSearchParams },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { router } = options;
  const config = router._def._config;
  let ctx: Context | undefined;
  let contextError: TRPCError | undefined;
  try {
    ctx = options.createContext(request);
  } catch (cause) {
    contextError = getTRPCErrorFromUnknown(cause);
  }
  const inputs = lazyInputs(router, request, query, isBatch, calls.length);
  const outcomes = await Promise.all(calls.map((call) => runCall(options, request.method, call, inputs, ctx, contextError)));
  const answers: RpcAnswer[] = outcomes.map((outcome, index) =>
    outcome.ok ? { result: { data: outcome.data } } : { error: errorShape(router, outcome.error, calls[index]!, inputs.valueAt(index), ctx) },
  );
  const errors = outcomes.map((outcome) => (outcome.ok ? undefined : outcome.error));
  const status = getHTTPStatusCode(answers as Parameters<typeof getHTTPStatusCode>[0], errors as TRPCError[]);
  const metaHeaders = options.responseHeaders(ctx, errors.filter((error): error is TRPCError => error !== undefined));
  return send(reply, status, metaHeaders, transformTRPCResponse(config, (isBatch ? answers : answers[0]) as never), allowedMethod(calls, request.method));
}

/** The method to name in `Allow` when a call's procedure does not take the request's (a batch has one type). */
function allowedMethod(calls: Call[], method: string): string | undefined {
  const accepted = calls.map((call) => call.procedure && ACCEPTED_METHOD[call.procedure._def.type]);
  return accepted.find((candidate) => candidate !== undefined && candidate !== method);
}

/** tRPC's own headers, then the response meta's over them (Fastify's header names are case-insensitive). */
function send(reply: FastifyReply, status: number, metaHeaders: Record<string, string>, body: unknown, allow?: string): FastifyReply {
  reply.code(status).header('vary', 'trpc-accept, accept').header('content-type', 'application/json');
  if (allow !== undefined) reply.header('allow', allow);
  // Bytes, as tRPC's own answer is sent: Fastify would add `; charset=utf-8` to the content type of a string.
  return reply.headers(metaHeaders).send(Buffer.from(JSON.stringify(body)));
}

async function runCall(
  options: TrpcDoorOptions,
  method: string,
  call: Call,
  inputs: LazyInputs,
  ctx: Context | undefined,
  contextError: TRPCError | undefined,
): Promise<Outcome> {
  const { procedure } = call;
  try {
    if (!procedure) throw new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${call.path}"` });
    const procedureType = procedure._def.type;
    if (ACCEPTED_METHOD[procedureType] !== method) {
      throw new TRPCError({
        code: 'METHOD_NOT_SUPPORTED',
        message: `Unsupported ${method}-request to ${procedureType} procedure at path "${call.path}"`,
      });
    }
    if (contextError) throw contextError;
    const data = await callProcedure(procedure, call.path, () => inputs.read(call.batchIndex), ctx as Context, call.batchIndex);
    return { ok: true, data };
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    options.onError({ error, path: call.path });
    return { ok: false, error };
  }
}

interface LazyInputs {
  read(index: number): Promise<unknown>;
  /** The input of call `index` if it has been read (an error shape's `input`). */
  valueAt(index: number): unknown;
}

/**
 * The calls' inputs, read and deserialized (superjson) only when a procedure asks for its own: the `input` query
 * parameter of a GET, the body of a POST; one input for a single call, an object keyed by call index for a batch.
 */
function lazyInputs(router: AnyRouter, request: FastifyRequest, query: URLSearchParams, isBatch: boolean, count: number): LazyInputs {
  let pending: Promise<Record<number, unknown>> | undefined;
  let value: Record<number, unknown> | undefined;
  const readAll = async (): Promise<Record<number, unknown>> => {
    const deserialize = (raw: unknown) => router._def._config.transformer.input.deserialize(raw);
    const text = request.method === 'GET' ? query.get('input') : (request.body as string);
    const inputs: Record<number, unknown> = Object.create(null);
    if (!text) return inputs;
    const parsed: unknown = JSON.parse(text);
    if (!isBatch) {
      inputs[0] = deserialize(parsed);
      return inputs;
    }
    if (!isObject(parsed)) throw new TRPCError({ code: 'BAD_REQUEST', message: '"input" needs to be an object when doing a batch call' });
    for (let index = 0; index < count; index++) {
      if (parsed[index] !== undefined) inputs[index] = deserialize(parsed[index]);
    }
    return inputs;
  };
  return {
    async read(index) {
      pending ??= readAll().catch((cause: unknown) => {
        if (cause instanceof TRPCError) throw cause;
        throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
      });
      value = await pending;
      return value[index];
    },
    valueAt: (index) => value?.[index],
  };
}

function errorShape(router: AnyRouter, error: TRPCError, call: Call, input: unknown, ctx: unknown): unknown {
  const type = call.procedure?._def.type ?? 'unknown';
  return getErrorShape({ config: router._def._config, error, type, path: call.path, input, ctx });
}

/** tRPC decodes the path it is given once more (Fastify decoded the route parameter already). */
function decodePath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

function acceptsJsonLines(accept: string | undefined): boolean {
  return accept !== undefined && accept.split(',').some((item) => item.trim() === 'application/jsonl');
}

/** A media type without its parameters, lower-cased (media types are case-insensitive, RFC 9110 §8.3.1). */
function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.toLowerCase().split(';', 1)[0]?.trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
