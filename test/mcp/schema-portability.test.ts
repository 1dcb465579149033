import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { lintSchema } from './schema-lint.ts';

interface ListedTool {
  name: string;
  inputSchema: unknown;
  outputSchema?: unknown;
}

describe('MCP tool schemas, as tools/list serves them', () => {
  let t: TestApp;
  let tools: ListedTool[];

  beforeAll(async () => {
    t = await startTestApp();
    const user = await createUserWithToken(t.em());
    const res = await t.http
      .post('/mcp')
      .set(...bearer(user.token))
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(200);
    tools = res.body.result.tools as ListedTool[];
  });
  afterAll(() => t?.close());

  it('pass every schema-portability rule of MCP Inspector, input and output alike', () => {
    expect(tools.length).toBeGreaterThan(20);
    const findings = tools.flatMap((tool) =>
      [
        ...lintSchema(tool.inputSchema).map((f) => `${tool.name} inputSchema${f.path}: ${f.rule}`),
        ...(tool.outputSchema === undefined ? [] : lintSchema(tool.outputSchema).map((f) => `${tool.name} outputSchema${f.path}: ${f.rule}`)),
      ],
    );
    expect(findings).toEqual([]);
  });

  it('still describe nullable fields as nullable, with one type per branch', () => {
    const booking = tools.find((tool) => tool.name === 'get_booking')!;
    const serialized = JSON.stringify(booking.outputSchema);
    expect(serialized).toContain('{"type":"null"}');
    expect(serialized).not.toMatch(/"type":\[/);
  });
});

describe('the portability rules', () => {
  it('find what zod writes unless rewritten: a type list, an unconstrained value and a bare true', () => {
    const raw = z.toJSONSchema(z.object({ note: z.string().nullable(), anything: z.unknown() }));
    expect(lintSchema(raw).map((f) => `${f.path}: ${f.rule}`)).toEqual(['.properties.note: type-union', '.properties.anything: untyped-schema']);
    expect(lintSchema({ type: 'object', properties: { data: true }, additionalProperties: true })).toEqual([
      { rule: 'boolean-schema', path: '.properties.data' },
    ]);
    expect(lintSchema({ $ref: 'https://example.com/schema.json' })).toEqual([{ rule: 'remote-ref', path: '' }]);
    expect(lintSchema({ not: {} })).toEqual([]);
  });
});
