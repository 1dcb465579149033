/**
 * Tool schemas in the form the strictest MCP clients read (what MCP Inspector's schema-portability check asks
 * for): one `type` per schema, no schema that constrains nothing and no bare `true`/`false` as a schema. Each
 * rewrite accepts exactly the values the original accepts.
 */
type JsonSchema = Record<string, unknown>;

const JSON_TYPES = ['string', 'number', 'boolean', 'object', 'array', 'null'] as const;

/** "Any JSON value" spelled with typed branches: `{}` says the same but some clients reject or misread it. */
const ANY_VALUE: JsonSchema = { anyOf: JSON_TYPES.map((type) => ({ type })) };

/** Where `true`/`false` is the idiomatic value ("anything else" / "nothing else"): left as it is. */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

const SUBSCHEMA = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_VALUED];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/** Keywords that constrain a value; the others (`description`, `examples`, `default`, `title`, …) only annotate it. */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems',
  'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired',
  'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains', 'properties', 'patternProperties',
  'dependentSchemas', 'propertyNames', '$ref', '$dynamicRef', ...BOOLEAN_VALUED,
]);

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `schema` rewritten in the portable form, at every depth; the input is not modified. */
export function portableSchema(schema: JsonSchema): JsonSchema {
  return rewrite(schema, undefined) as JsonSchema;
}

function rewrite(node: unknown, keyword: string | undefined): unknown {
  if (typeof node === 'boolean') {
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword)) return node;
    return node ? ANY_VALUE : { not: {} };
  }
  if (!isObject(node)) return node;
  const out = withRewrittenChildren(node);
  splitTypeList(out);
  if (constrains(out) || keyword === 'not') return out;
  return keyword !== undefined && BOOLEAN_VALUED.has(keyword) ? true : { ...out, ...ANY_VALUE };
}

function withRewrittenChildren(node: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...node };
  for (const key of SUBSCHEMA) {
    if (key in out) out[key] = rewrite(out[key], key);
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((child) => rewrite(child, key));
  }
  for (const key of SUBSCHEMA_MAPS) {
    if (isObject(out[key])) {
      out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, child]) => [name, rewrite(child, key)]));
    }
  }
  return out;
}

/**
 * `type: ["string", "null"]` (zod's spelling of a bare nullable union) becomes `anyOf` branches of one type each.
 * The node's other keywords stay beside it: type-specific ones (`format`, `minLength`…) ignore other types anyway.
 */
function splitTypeList(node: JsonSchema): void {
  if (!Array.isArray(node.type)) return;
  const types = node.type as unknown[];
  delete node.type;
  if (types.length === 1) {
    node.type = types[0];
    return;
  }
  const branches = types.map((type) => ({ type }));
  if (node.anyOf === undefined) node.anyOf = branches;
  else node.allOf = [...((node.allOf as unknown[] | undefined) ?? []), { anyOf: branches }];
}

function constrains(node: JsonSchema): boolean {
  return Object.keys(node).some((key) => CONSTRAINING.has(key)) || ('if' in node && ('then' in node || 'else' in node));
}
