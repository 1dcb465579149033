import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyOutputChecks, firstDifference } from './output-checks.ts';

// Routers of their own: applyOutputChecks changes the procedures it is given, so none is shared with the app.
function exampleRouter(returned: unknown) {
  const t = initTRPC.create();
  const Thing = z.object({ id: z.string(), name: z.string().optional() });
  return t.router({ thing: t.procedure.output(Thing).query(() => returned as z.infer<typeof Thing>) });
}

const callThing = (router: ReturnType<typeof exampleRouter>) => router.createCaller({}).thing();

describe('output checks', () => {
  it('strict: a response exactly as declared passes unchanged', async () => {
    const router = exampleRouter({ id: 'a', name: 'n' });
    applyOutputChecks(router, 'strict');
    await expect(callThing(router)).resolves.toEqual({ id: 'a', name: 'n' });
  });

  it('strict: a field the schema does not declare fails the call instead of being stripped silently', async () => {
    const router = exampleRouter({ id: 'a', passwordHash: 'x' });
    applyOutputChecks(router, 'strict');
    await expect(callThing(router)).rejects.toThrow(/Output of thing does not match its schema: .*"passwordHash".*"undeclared":true/);
  });

  it('strict: a wrong type fails the call', async () => {
    const router = exampleRouter({ id: 42 });
    applyOutputChecks(router, 'strict');
    await expect(callThing(router)).rejects.toThrow(/Output of thing does not match its schema/);
  });

  it('off: no parse at all, so the procedure has one middleware level fewer', async () => {
    const router = exampleRouter({ id: 'a', extra: true });
    const middlewares = () => (router._def.procedures.thing._def as unknown as { middlewares: unknown[] }).middlewares;
    const levels = middlewares().length;
    applyOutputChecks(router, 'off');
    expect(middlewares()).toHaveLength(levels - 1);
    await expect(callThing(router)).resolves.toEqual({ id: 'a', extra: true });
  });

  it('switches modes in either order, any number of times', async () => {
    const router = exampleRouter({ id: 'a', extra: true });
    applyOutputChecks(router, 'off');
    applyOutputChecks(router, 'strict');
    applyOutputChecks(router, 'strict');
    await expect(callThing(router)).rejects.toThrow(/undeclared/);
    applyOutputChecks(router, 'off');
    await expect(callThing(router)).resolves.toEqual({ id: 'a', extra: true });
  });

  it('names the first difference by its path', () => {
    expect(firstDifference({ a: [{ b: 1, c: 2 }] }, { a: [{ b: 1 }] })).toEqual({ path: ['a', '0', 'c'], undeclared: true });
    expect(firstDifference({ a: '1' }, { a: 1 })).toEqual({ path: ['a'], returned: '1', declared: 1 });
    expect(firstDifference({ a: 1 }, { a: 1 })).toBeUndefined();
  });
});
