/**
 * The MCP tools, generated from the procedures that serve /api/v2 and /trpc: one tool per scoped procedure with
 * REST meta, named after its operationId, with its zod input and output as JSON Schema (in the portable form of
 * portable-schema.ts, which the strictest clients read). There is no second list.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ProcedureMeta } from '../api/call.ts';
import type { Scope } from '../identity/scopes.ts';
import { portableSchema } from './portable-schema.ts';

type JsonSchema = Record<string, unknown>;

export interface McpTool {
  /** What tools/list shows. */
  definition: Tool;
  /** The tRPC procedure path the tool calls, e.g. `bookings.cancel`. */
  procedurePath: string;
  /** The procedure's kind, which tRPC checks when it is called by path. */
  procedureType: 'query' | 'mutation';
  scope: Scope;
  /** False when the procedure takes no input (`z.void()`): it is called without one, whatever the arguments. */
  takesInput: boolean;
  /** The procedure's input schema, when it takes one. */
  input?: z.ZodType;
  /** True when the procedure's output is not an object, so the result is wrapped as `{ result: … }`. */
  wrapsOutput: boolean;
}

interface ProcedureLike {
  _def: { meta?: ProcedureMeta; inputs: z.ZodType[]; output?: z.ZodType; type: 'query' | 'mutation' | 'subscription' };
}

/** `getAvailability` → `get_availability`. */
export function snakeCase(operationId: string): string {
  return operationId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Every scoped REST procedure of `router` as a tool, in the router's order. */
export function toolsOf(router: { _def: { procedures: object } }): McpTool[] {
  const tools: McpTool[] = [];
  for (const [procedurePath, procedure] of Object.entries(router._def.procedures as Record<string, ProcedureLike>)) {
    const meta = procedure._def.meta;
    if (!meta?.scope || !meta.openapi || meta.openapi.enabled === false) continue;
    tools.push(toolOf(procedurePath, procedure, meta as ProcedureMeta & { scope: Scope; openapi: NonNullable<ProcedureMeta['openapi']> }));
  }
  return tools;
}

function toolOf(
  procedurePath: string,
  procedure: ProcedureLike,
  meta: ProcedureMeta & { scope: Scope; openapi: NonNullable<ProcedureMeta['openapi']> },
): McpTool {
  const { openapi, scope } = meta;
  const method = openapi.method.toUpperCase();
  const input = procedure._def.inputs[0];
  const inputSchema = input ? objectRoot(jsonSchemaOf(input, 'input')) : undefined;
  const takesInput = inputSchema?.type === 'object';
  const output = procedure._def.output ? objectRoot(jsonSchemaOf(procedure._def.output, 'output')) : undefined;
  const wrapsOutput = output !== undefined && output.type !== 'object';
  const outputSchema = wrapsOutput ? { type: 'object', properties: { result: output }, required: ['result'] } : output;
  const readOnly = method === 'GET';
  const destructive = /^(cancel|deactivate|decline)[A-Z]/.test(openapi.operationId);
  return {
    procedurePath,
    procedureType: procedure._def.type === 'mutation' ? 'mutation' : 'query',
    scope,
    takesInput,
    ...(takesInput ? { input } : {}),
    wrapsOutput,
    definition: {
      name: snakeCase(openapi.operationId),
      title: openapi.summary ?? openapi.operationId,
      description: describeTool(openapi, scope, inputSchema, wrapsOutput),
      // Names that are not arguments are refused, as REST refuses unknown parameters (src/mcp/tool-arguments.ts).
      inputSchema: (takesInput ? portableSchema({ additionalProperties: false, ...inputSchema }) : { type: 'object', properties: {} }) as Tool['inputSchema'],
      ...(outputSchema ? { outputSchema: portableSchema(outputSchema) as Tool['outputSchema'] } : {}),
      annotations: {
        title: openapi.summary ?? openapi.operationId,
        readOnlyHint: readOnly,
        destructiveHint: destructive,
        // PUT, PATCH and DELETE set a state (repeating them changes nothing more); a POST is idempotent only when
        // its procedure says so (e.g. marking a no-show).
        idempotentHint: method !== 'POST' || meta.repeatable === true,
        openWorldHint: false,
      },
    },
  };
}

/** The description a model reads: the REST operation's own words, then the conventions and the scope. */
function describeTool(
  openapi: NonNullable<ProcedureMeta['openapi']>,
  scope: Scope,
  inputSchema: JsonSchema | undefined,
  wrapsOutput: boolean,
): string {
  const parts = [openapi.summary ? `${openapi.summary}.` : '', openapi.description ?? ''];
  const inputs = Object.keys((inputSchema?.properties as JsonSchema | undefined) ?? {});
  if (inputs.includes('cursor')) {
    parts.push(
      'Paginated: when the result has a non-null `nextCursor`, call again with `cursor` set to it (and the same ' +
        'filters) for the next page; `limit` sets the page size.',
    );
  }
  parts.push(
    'Instants are RFC 3339 strings (UTC unless an offset is given); durations and buffers are in minutes; ' +
      "local times and dates are in the time zone named next to them (the user's own otherwise).",
  );
  if (wrapsOutput) parts.push('The result is wrapped as `{ "result": … }` (MCP structured content is an object).');
  parts.push(`Requires scope ${scope}.`);
  return parts.filter(Boolean).join('\n\n');
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * MCP wants the schema's root to be the object itself; zod writes a schema registered under an id as a root
 * `$ref` into `$defs`. The referenced definition becomes the root (it stays in `$defs` for references to it).
 */
function objectRoot(schema: JsonSchema): JsonSchema {
  const target = typeof schema.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  const definition = target ? defs?.[target] : undefined;
  if (!definition) return schema;
  const { $ref: _ref, ...rest } = schema;
  return { ...rest, ...definition };
}
