import type { z } from 'zod';

type Def = { type: string; coerce?: boolean; innerType?: unknown; element?: unknown; shape?: Record<string, unknown> };
type Node = { _zod: { def: Def } };

const COERCIBLE = new Set(['number', 'boolean', 'bigint', 'date']);

/**
 * trpc-to-openapi coerces the number, boolean, bigint and date fields of every REST input, a JSON body
 * included, by setting `coerce = true` on the schema objects themselves at request time: `"30"` would pass
 * as 30 and `"false"` as true (also on /trpc afterwards, the schema being shared). A JSON body carries real
 * types, so for a body schema this pins `coerce` to false on those fields (the library's assignment is then
 * ignored) and the body is validated as written. Returns the same schema.
 */
function strictJsonBody<T extends z.ZodType>(schema: T): T {
  pin(schema as unknown as Node);
  return schema;
}

function pin(node: Node): void {
  const def = node._zod.def;
  if (COERCIBLE.has(def.type)) {
    if (!Object.getOwnPropertyDescriptor(def, 'coerce')?.get) {
      Object.defineProperty(def, 'coerce', { get: () => false, set: () => {}, configurable: false });
    }
    return;
  }
  if (def.type === 'object') {
    for (const child of Object.values(def.shape ?? {})) pin(child as Node);
    return;
  }
  if (def.type === 'array' && def.element) pin(def.element as Node);
  else if (def.innerType) pin(def.innerType as Node);
}

interface ProcedureWithInputs {
  _def: { inputs?: unknown[]; meta?: { openapi?: { method?: string } } };
}

/**
 * Pins every JSON-body input of the REST surface (POST, PUT and PATCH procedures) with strictJsonBody, so
 * no body is ever coerced; query-string inputs keep the adapter's coercion, which they need.
 */
export function keepJsonBodiesStrict(router: { _def: { procedures: object } }): void {
  for (const procedure of Object.values(router._def.procedures as Record<string, ProcedureWithInputs>)) {
    const method = procedure._def.meta?.openapi?.method;
    if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') continue;
    for (const input of procedure._def.inputs ?? []) strictJsonBody(input as z.ZodType);
  }
}
