import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The served OpenAPI document explains every field and parameter and shows a valid example for each, because the
 * API reference pre-fills "Try it out" from them (without examples, renderers invent values from patterns and
 * limits: 300-character e-mails, the year 5036, -9007199254740991 minutes).
 */
type Json = Record<string, unknown>;

let t: TestApp;
let doc: Json;

beforeAll(async () => {
  t = await startTestApp();
  const res = await t.http.get('/api/docs/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Json;
});

afterAll(async () => {
  await t?.close();
});

interface Visit {
  where: string;
  schema: Json;
}

/** The schema a nullable property wraps (`anyOf: [schema, {type: null}]`), or the schema itself. */
function unwrapNullable(schema: Json): Json {
  const branches = schema.anyOf as Json[] | undefined;
  if (!branches || branches.length !== 2 || !branches.some((branch) => branch.type === 'null')) return schema;
  return { ...branches.find((branch) => branch.type !== 'null')!, ...schema, anyOf: undefined };
}

/** A structure whose parts carry their own examples (renderers compose them): an object or a list of objects. */
function isComposite(schema: Json): boolean {
  if (schema.type === 'object' || schema.properties !== undefined) return true;
  const items = schema.items as Json | undefined;
  return schema.type === 'array' && items !== undefined && (items.$ref !== undefined || isComposite(unwrapNullable(items)));
}

/** Every property of every schema below `schema`, named by where it is. */
function properties(schema: Json | undefined, where: string, out: Visit[] = []): Visit[] {
  if (!schema || typeof schema !== 'object' || schema.$ref !== undefined) return out;
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    out.push({ where: `${where}.${name}`, schema: property });
    properties(unwrapNullable(property), `${where}.${name}`, out);
  }
  if (typeof schema.items === 'object') properties(unwrapNullable(schema.items as Json), `${where}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    ((schema[key] ?? []) as Json[]).forEach((branch, index) => properties(branch, `${where}|${index}`, out));
  }
  return out;
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): { where: string; operation: Json }[] {
  const sections = [
    ...Object.entries((doc.paths ?? {}) as Record<string, Json>),
    ...Object.entries((doc.webhooks ?? {}) as Record<string, Json>),
  ];
  return sections.flatMap(([path, item]) =>
    OPERATION_METHODS.filter((method) => item[method]).map((method) => ({ where: `${method} ${path}`, operation: item[method] as Json })),
  );
}

function allProperties(): Visit[] {
  const visits: Visit[] = [];
  for (const [name, schema] of Object.entries(((doc.components as Json).schemas ?? {}) as Record<string, Json>)) {
    properties(schema, `#/components/schemas/${name}`, visits);
  }
  for (const { where, operation } of operations()) {
    const body = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
    properties(body?.schema as Json | undefined, `${where} body`, visits);
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      const content = (response.content as Record<string, Json> | undefined)?.['application/json'];
      properties(content?.schema as Json | undefined, `${where} ${status}`, visits);
    }
  }
  return visits;
}

function allParameters(): { where: string; parameter: Json }[] {
  const components = (doc.components as Json).parameters as Record<string, Json> | undefined;
  const resolveParameter = (parameter: Json) =>
    typeof parameter.$ref === 'string' ? components![parameter.$ref.replace('#/components/parameters/', '')]! : parameter;
  return operations().flatMap(({ where, operation }) =>
    ((operation.parameters ?? []) as Json[]).map(resolveParameter).map((parameter) => ({
      where: `${where} ${String(parameter.in)} ${String(parameter.name)}`,
      parameter,
    })),
  );
}

/**
 * Optional parameters whose valid values depend on the caller's own data: cursors (only the API issues them), an
 * event type filter (an example id is nobody's) and durations (each event type offers its own). They carry no
 * example, because the reference's "Try it" sends an optional parameter's example and leaves one without out.
 */
const CALLER_SPECIFIC = new Set(['get /bookings query eventTypeId', 'get /availability query duration', 'get /availability/explain query durationMin']);
const callerSpecific = (where: string, parameter: Json): boolean =>
  parameter.required !== true && (parameter.name === 'cursor' || CALLER_SPECIFIC.has(where));

const examplesOf = (schema: Json): unknown[] =>
  schema.examples !== undefined ? (schema.examples as unknown[]) : schema.example !== undefined ? [schema.example] : [];

/** A zod schema from a JSON schema of the document, its component references resolved. */
function zodOf(schema: Json): z.ZodType {
  const rewrite = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('#/components/schemas/', '#/$defs/')) as T;
  return z.fromJSONSchema({ $defs: rewrite((doc.components as Json).schemas), ...rewrite(schema) } as Parameters<typeof z.fromJSONSchema>[0]);
}

describe('the OpenAPI document’s descriptions and examples', () => {
  it('describes every property and gives every value that is not a structure an example', () => {
    const visits = allProperties();
    expect(visits.length).toBeGreaterThan(100);
    const missing: string[] = [];
    for (const { where, schema } of visits) {
      const property = unwrapNullable(schema);
      if (typeof property.$ref === 'string' && property.description === undefined) continue; // described where it is defined
      if (!property.description) missing.push(`${where}: description`);
      if (!isComposite(property) && property.$ref === undefined && examplesOf(property).length === 0) missing.push(`${where}: example`);
    }
    expect(missing).toEqual([]);
  });

  it('describes every path, query and header parameter, with an example unless its values depend on the caller', () => {
    const parameters = allParameters();
    expect(parameters.map((p) => p.where)).toEqual(expect.arrayContaining(['get /bookings query cursor', 'delete /bookings/{id} path id']));
    const hasExample = (parameter: Json) => parameter.example !== undefined || examplesOf(parameter.schema as Json).length > 0;
    const missing = parameters
      .filter(({ where, parameter }) => !parameter.description || (!hasExample(parameter) && !callerSpecific(where, parameter)))
      .map(({ where }) => where);
    expect(missing).toEqual([]);
    const prefilled = parameters.filter(({ where, parameter }) => callerSpecific(where, parameter) && hasExample(parameter)).map(({ where }) => where);
    expect(prefilled).toEqual([]);
  });

  it('has examples that are valid values of their own schema', () => {
    const invalid: string[] = [];
    let checked = 0;
    const check = (where: string, schema: Json, examples: unknown[]) => {
      const { examples: _examples, example: _example, ...rules } = schema;
      const validator = zodOf(rules);
      for (const example of examples) {
        checked += 1;
        const result = validator.safeParse(example);
        if (!result.success) invalid.push(`${where}: ${JSON.stringify(example)} (${result.error.issues[0]?.message})`);
      }
    };
    for (const { where, schema } of allProperties()) check(where, schema, examplesOf(schema));
    for (const { where, parameter } of allParameters()) {
      const schema = parameter.schema as Json;
      check(where, schema, [...examplesOf(schema), ...(parameter.example !== undefined ? [parameter.example] : [])]);
    }
    expect(checked).toBeGreaterThan(100);
    expect(invalid).toEqual([]);
  });

  it('catches an invalid example (the check above can fail)', () => {
    expect(zodOf({ type: 'integer', minimum: 1 }).safeParse(-9007199254740991).success).toBe(false);
    expect(zodOf({ $ref: '#/components/schemas/BookingStatus' }).safeParse('done').success).toBe(false);
    expect(zodOf({ type: 'string', format: 'email' }).safeParse('x'.repeat(300)).success).toBe(false);
  });

  it('uses realistic values: ids in the service’s format, near-future instants, real zones', () => {
    const booking = (doc.components as { schemas: Record<string, { properties: Record<string, Json> }> }).schemas.Booking!.properties;
    expect(examplesOf(booking.id!)[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const start = Date.parse(examplesOf(booking.startAt!)[0] as string);
    expect(start).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
    expect(start).toBeLessThan(Date.parse('2028-01-01T00:00:00Z'));
    expect(examplesOf(booking.durationMin!)).toEqual([30]);
    const invitee = unwrapNullable(booking.invitee!) as { properties: Record<string, Json> };
    expect(examplesOf(invitee.properties.email!)[0]).toBe('ines@example.com');
    expect(examplesOf(invitee.properties.timezone!)[0]).toBe('Europe/Berlin');
  });
});
