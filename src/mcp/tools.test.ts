import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scopedProcedure } from '../api/procedures.ts';
import { router } from '../api/trpc.ts';
import { snakeCase, toolsOf } from './tools.ts';

const Thing = z.object({ id: z.string(), count: z.int() }).meta({ id: 'McpTestThing' });

const testRouter = router({
  things: router({
    list: scopedProcedure('read:bookings')
      .meta({ openapi: { method: 'GET', path: '/things', operationId: 'listThings', summary: 'List things' } })
      .input(z.void())
      .output(z.array(Thing))
      .query(() => []),
    put: scopedProcedure('write:bookings')
      .meta({ openapi: { method: 'PUT', path: '/things/{id}', operationId: 'putThing', summary: 'Replace a thing' } })
      .input(Thing)
      .output(Thing)
      .mutation(({ input }) => input),
    hidden: scopedProcedure('read:bookings')
      .meta({ openapi: { method: 'GET', path: '/hidden', operationId: 'hidden', enabled: false } })
      .query(() => 1),
  }),
});

describe('toolsOf', () => {
  const [list, put, ...rest] = toolsOf(testRouter);

  it('names tools after the operationId in snake_case and skips disabled operations', () => {
    expect(snakeCase('markBookingNoShow')).toBe('mark_booking_no_show');
    expect(snakeCase('getMe')).toBe('get_me');
    expect([list?.definition.name, put?.definition.name]).toEqual(['list_things', 'put_thing']);
    expect(rest).toEqual([]);
  });

  it('wraps an output that is not an object as { result } and says so', () => {
    expect(list?.takesInput).toBe(false);
    expect(list?.definition.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(list?.wrapsOutput).toBe(true);
    expect(list?.definition.outputSchema).toMatchObject({ type: 'object', required: ['result'], properties: { result: { type: 'array' } } });
    expect(list?.definition.description).toContain('wrapped as `{ "result": … }`');
  });

  it('puts a schema registered under an id at the root as an object, and writes the scope literally', () => {
    expect(put?.definition.inputSchema).toMatchObject({ type: 'object', required: ['id', 'count'], additionalProperties: false });
    expect(put?.definition.inputSchema).not.toHaveProperty('$ref');
    expect(put?.definition.outputSchema).toMatchObject({ type: 'object' });
    expect(put?.definition.description).toMatch(/Requires scope write:bookings\.$/);
    expect(put?.definition.annotations).toEqual({
      title: 'Replace a thing',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});
