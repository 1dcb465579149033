import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorResponse, toErrorResponse } from './error-response.ts';
import { DomainError, ErrorBodySchema, invalidField } from './errors.ts';

const zodError = () => z.object({ limit: z.int() }).safeParse({ limit: 'x' }).error!;
const withCode = (code: string, message = 'raw framework text', statusCode?: number) =>
  Object.assign(new Error(message), { code, ...(statusCode ? { statusCode } : {}) });
const UNAVAILABLE = {
  status: 503,
  headers: { 'Retry-After': '5' },
  body: { title: 'Service Unavailable', message: 'The service is temporarily unavailable. Retry shortly.' },
};
const INTERNAL = {
  status: 500,
  headers: {},
  body: { title: 'Internal Server Error', message: 'An unexpected error occurred. It has been logged.' },
};

describe('toErrorResponse', () => {
  it('answers a domain error with its kind and words, details only on 400', () => {
    expect(toErrorResponse(new DomainError('not_found', 'Booking not found'))).toEqual({
      status: 404,
      headers: {},
      body: { title: 'Not Found', message: 'Booking not found' },
    });
    expect(toErrorResponse(invalidField(['start'], 'is in the past')).body).toEqual({
      title: 'Bad Request',
      message: 'start: is in the past',
      details: [{ code: 'custom', path: ['start'], message: 'is in the past' }],
    });
  });

  it('unwraps a tRPC error: its domain cause, its input validation, its outage', () => {
    const domain = new DomainError('conflict', 'Slot taken');
    expect(toErrorResponse(new TRPCError({ code: 'CONFLICT', message: 'Slot taken', cause: domain })).status).toBe(409);
    const input = toErrorResponse(new TRPCError({ code: 'BAD_REQUEST', cause: zodError() }));
    expect(input.status).toBe(400);
    expect(input.body.details).toEqual([{ code: 'invalid_type', path: ['limit'], message: expect.any(String) }]);
    expect(input.body.message).toMatch(/^Invalid request: limit: /);
    expect(toErrorResponse(new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'unavailable' }))).toEqual(UNAVAILABLE);
  });

  it('treats an output that fails its schema as our bug, not the caller’s', () => {
    expect(toErrorResponse(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: zodError() }))).toEqual(INTERNAL);
  });

  it('answers a bare zod error (an MCP tool’s arguments) as a 400 with details', () => {
    expect(toErrorResponse(zodError())).toMatchObject({ status: 400, body: { title: 'Bad Request' } });
  });

  it('words Fastify’s and Node’s own errors, and never reports a client’s bad request as an outage', () => {
    expect(toErrorResponse(withCode('FST_ERR_CTP_BODY_TOO_LARGE', 'raw', 413)).body).toEqual({
      title: 'Payload Too Large',
      message: 'The request body is too large.',
    });
    expect(toErrorResponse(withCode('FST_ERR_CTP_INVALID_JSON_BODY', 'raw', 400)).body.message).toBe(
      'The request body is not valid JSON.',
    );
    expect(toErrorResponse(withCode('HPE_HEADER_OVERFLOW')).status).toBe(431);
    expect(toErrorResponse(withCode('ERR_HTTP_REQUEST_TIMEOUT')).status).toBe(408);
    expect(toErrorResponse(withCode('HPE_INVALID_METHOD')).body.message).toBe('The request is not valid HTTP.');
    expect(toErrorResponse(withCode('FST_ERR_UNACCEPTABLE_INPUT', 'The body nests too deep.', 400)).body).toEqual({
      title: 'Bad Request',
      message: 'The body nests too deep.',
      details: [],
    });
  });

  it('gives an unreachable database 503 with Retry-After, and anything else a 500 that says nothing internal', () => {
    expect(toErrorResponse(withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:5432'))).toEqual(UNAVAILABLE);
    expect(toErrorResponse(new Error('relation "secret_table" does not exist'))).toEqual(INTERNAL);
    expect(toErrorResponse('not even an Error')).toEqual(INTERNAL);
  });

  it('always produces a body the Error schema accepts, with nothing else in it', () => {
    const errors = [new DomainError('rate_limited', 'Slow down'), zodError(), withCode('HPE_HEADER_OVERFLOW'), null];
    for (const error of errors) {
      const { body } = toErrorResponse(error);
      expect(ErrorBodySchema.strict().parse(body)).toEqual(body);
    }
    expect(errorResponse('invalid_request', 'Bad input').body).toEqual({ title: 'Bad Request', message: 'Bad input', details: [] });
  });
});
