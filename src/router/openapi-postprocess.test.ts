import { generateOpenApiDocument } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SCOPE_DESCRIPTIONS } from '../identity/scopes.ts';
import { collectOperations, postProcessOpenApi } from './openapi-postprocess.ts';
import { publicProcedure as procedure, router } from '../api/trpc.ts';

// A router of its own, only for generating a document: nothing here is served.
const ThingSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Thing' });
const CreateThingSchema = z.object({ ownerId: z.string(), name: z.string() }).meta({ id: 'CreateThingInput' });
const exampleRouter = router({
  things: router({
    list: procedure
      .meta({ scope: 'read:bookings', openapi: { method: 'GET', path: '/things', operationId: 'listThings', tags: ['Things'], summary: 'List things' } })
      .input(z.object({ limit: z.coerce.number().int().optional() }))
      .output(z.object({ data: z.array(ThingSchema) }))
      .query(() => ({ data: [] })),
    create: procedure
      .meta({
        scope: 'write:bookings',
        successStatus: 201,
        idempotent: true,
        errorStatuses: [422],
        openapi: { method: 'POST', path: '/things', operationId: 'createThing', tags: ['Things'], summary: 'Create a thing' },
      })
      .input(CreateThingSchema)
      .output(ThingSchema)
      .mutation(({ input }) => ({ id: 'x', name: input.name })),
    cancel: procedure
      .meta({
        scope: 'write:bookings',
        openapi: {
          method: 'DELETE',
          path: '/things/{id}',
          operationId: 'cancelThing',
          tags: ['Things'],
          summary: 'Cancel a thing',
          description: 'Idempotent.',
        },
      })
      .input(z.object({ id: z.string(), reason: z.string().optional() }))
      .output(ThingSchema)
      .mutation(({ input }) => ({ id: input.id, name: '' })),
  }),
  status: procedure
    .meta({ openapi: { method: 'GET', path: '/status/', operationId: 'getStatus', summary: 'Public status' } })
    .input(z.void())
    .output(z.object({ ok: z.boolean() }))
    .query(() => ({ ok: true })),
  internal: procedure.input(z.void()).query(() => 'not on REST'),
});

function build() {
  const generated = generateOpenApiDocument(exampleRouter, {
    title: 'Example',
    version: '1.0.0',
    baseUrl: 'https://api.acme.dev/api/v2',
  });
  const before = JSON.stringify(generated);
  const doc = postProcessOpenApi(generated, {
    siteUrl: 'https://api.acme.dev',
    basePath: '/api/v2',
    scopes: SCOPE_DESCRIPTIONS,
    operations: collectOperations(exampleRouter),
    guideUrl: (name) => `https://api.acme.dev/docs/${name}.md`,
  }) as unknown as Doc;
  return { doc, generatedUnchanged: JSON.stringify(generated) === before };
}

interface Doc {
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    headers: Record<string, { required?: boolean; schema: { type: string } }>;
    parameters?: Record<string, { name: string; in: string }>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

interface Operation {
  operationId: string;
  description?: string;
  security: Record<string, string[]>[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  responses: Record<string, { description: string; headers?: Record<string, { $ref: string }>; content?: unknown }>;
}

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

describe('collectOperations', () => {
  it('lists only procedures with openapi meta, with their meta facts', () => {
    expect(collectOperations(exampleRouter)).toEqual([
      { procedurePath: 'things.list', method: 'get', path: '/things', operationId: 'listThings', scope: 'read:bookings' },
      {
        procedurePath: 'things.create',
        method: 'post',
        path: '/things',
        operationId: 'createThing',
        scope: 'write:bookings',
        successStatus: 201,
        idempotent: true,
        errorStatuses: [422],
      },
      {
        procedurePath: 'things.cancel',
        method: 'delete',
        path: '/things/{id}',
        operationId: 'cancelThing',
        scope: 'write:bookings',
      },
      { procedurePath: 'status', method: 'get', path: '/status', operationId: 'getStatus' },
    ]);
  });
});

describe('postProcessOpenApi', () => {
  it('leaves its input alone', () => {
    expect(build().generatedUnchanged).toBe(true);
  });

  it('sets the server, a bearer and an OAuth 2.0 scheme with every scope', () => {
    const { doc } = build();
    expect(doc.servers).toEqual([{ url: 'https://api.acme.dev/api/v2', description: expect.any(String) }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://api.acme.dev/oauth/authorize',
          tokenUrl: 'https://api.acme.dev/oauth/token',
          scopes: SCOPE_DESCRIPTIONS,
        },
      },
    });
  });

  it('requires the procedure scope through both schemes and says so in the description', () => {
    const { doc } = build();
    const cancel = doc.paths['/things/{id}']!.delete!;
    expect(cancel.security).toEqual([{ bearerAuth: ['write:bookings'] }, { oauth2: ['write:bookings'] }]);
    expect(cancel.description).toBe('Idempotent.\n\nRequires scope `write:bookings`.');
    expect(doc.paths['/status']!.get!.security).toEqual([]);
  });

  it('documents the real success status with the rate-limit headers', () => {
    const { doc } = build();
    const create = doc.paths['/things']!.post!;
    expect(Object.keys(create.responses)).not.toContain('200');
    expect(create.responses['201']).toMatchObject({
      description: 'Created',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
      headers: {
        'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
        'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
        'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
        'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' },
      },
    });
    expect(doc.paths['/things']!.get!.responses['200']!.description).toBe('OK');
  });

  it('derives the error statuses from the operation shape and meta', () => {
    const { doc } = build();
    const statuses = (method: string, path: string) => Object.keys(doc.paths[path]![method]!.responses);
    expect(statuses('get', '/things')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('post', '/things')).toEqual(['201', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503']);
    expect(statuses('delete', '/things/{id}')).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(statuses('get', '/status')).toEqual(['200', '429', '500', '503']);
  });

  it('gives every error response the one Error schema, and drops the generator’s error components', () => {
    const { doc } = build();
    for (const item of Object.values(doc.paths)) {
      for (const operation of Object.values(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) >= 400) expect(response.content).toEqual(errorContent);
        }
      }
    }
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['title', 'message'],
      properties: { title: { type: 'string' }, message: { type: 'string' }, details: { type: 'array' } },
    });
  });

  it('puts Retry-After on 429 and 503 and the rate-limit headers where the limiter has run', () => {
    const { doc } = build();
    const responses = doc.paths['/things']!.get!.responses;
    expect(Object.keys(responses['429']!.headers!)).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
    ]);
    expect(Object.keys(responses['503']!.headers!)).toEqual(['Retry-After']);
    expect(Object.keys(responses['401']!.headers!)).toEqual(['WWW-Authenticate']);
    expect(Object.keys(responses['403']!.headers!)).toContain('X-RateLimit-Remaining');
    expect(doc.components.headers['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
      expect(doc.components.headers[name]!.schema.type).toBe('integer');
    }
    // The public operation has no token to count or challenge.
    expect(doc.paths['/status']!.get!.responses['429']!.headers).toEqual({
      'Retry-After': { $ref: '#/components/headers/Retry-After' },
    });
  });

  it('documents Idempotency-Key only where the procedure honours it', () => {
    const { doc } = build();
    expect(doc.paths['/things']!.post!.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(doc.paths['/things']!.get!.parameters ?? []).not.toContainEqual({
      $ref: '#/components/parameters/IdempotencyKey',
    });
    expect(doc.components.parameters?.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  });

  it('names each operation by the operationId its procedure declares', () => {
    const { doc } = build();
    expect(doc.paths['/things']!.get!.operationId).toBe('listThings');
    expect(doc.paths['/things']!.post!.operationId).toBe('createThing');
    expect(doc.paths['/things/{id}']!.delete!.operationId).toBe('cancelThing');
    expect(doc.paths['/status']!.get!.operationId).toBe('getStatus');
  });

  it('refuses a REST procedure without an operationId: names are declared, never derived', () => {
    const unnamed = procedure
      .meta({ openapi: { method: 'GET', path: '/unnamed' } } as never)
      .input(z.void())
      .output(z.object({ ok: z.boolean() }))
      .query(() => ({ ok: true }));
    expect(() => collectOperations(router({ unnamed }))).toThrow('unnamed: a REST procedure needs meta.openapi.operationId');
  });

  it('describes every tag in use', () => {
    const { doc } = build();
    expect(doc.tags).toEqual([{ name: 'Things', description: expect.any(String) }]);
  });

  it('leaves out header and parameter components nothing refers to', () => {
    const generated = generateOpenApiDocument(router({ status: exampleRouter.status }), {
      title: 'Example',
      version: '1.0.0',
      baseUrl: 'https://api.acme.dev/api/v2',
    });
    const doc = postProcessOpenApi(generated, {
      siteUrl: 'https://api.acme.dev',
      basePath: '/api/v2',
      scopes: SCOPE_DESCRIPTIONS,
      operations: collectOperations(router({ status: exampleRouter.status })),
      guideUrl: (name) => `https://api.acme.dev/docs/${name}.md`,
    }) as unknown as Doc;
    expect(Object.keys(doc.components.headers)).toEqual(['Retry-After']);
    expect(doc.components.parameters).toBeUndefined();
  });
});
