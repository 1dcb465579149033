/**
 * The schema-portability rules MCP Inspector applies to a tool's input and output schemas (its `schemaLint`):
 * a bare `true`/`false` where a schema object is expected (error), `type` written as a list (warning), a schema
 * that constrains nothing (warning) and a `$ref` outside the document (warning). Written here independently of
 * the service's rewrite (src/mcp/portable-schema.ts), so the test checks it rather than repeats it.
 */
type Node = Record<string, unknown>;

export interface Finding {
  rule: 'boolean-schema' | 'type-union' | 'untyped-schema' | 'remote-ref';
  path: string;
}

const BOOLEAN_VALUED = ['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'];
const SINGLE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_VALUED];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const JSON_TYPES = ['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'];

/** The assertion and applicator keywords (annotations, `$defs` and identifiers constrain nothing). */
const ASSERTING = new Set([
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema'],
  ...['maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties'],
  ...['required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items', 'prefixItems', 'contains'],
  ...['additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties'],
  ...['unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref', '$dynamicRef', '$recursiveRef'],
]);

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every finding in one schema, with the path of the position it is at. */
export function lintSchema(schema: unknown): Finding[] {
  const findings: Finding[] = [];
  visit(schema, '', undefined, findings);
  return findings;
}

function visit(node: unknown, path: string, keyword: string | undefined, findings: Finding[]): void {
  if (typeof node === 'boolean') {
    if (keyword === undefined || !BOOLEAN_VALUED.includes(keyword)) findings.push({ rule: 'boolean-schema', path });
    return;
  }
  if (!isNode(node)) return;
  const type = node.type;
  if (Array.isArray(type) && type.length > 0 && type.every((t) => JSON_TYPES.includes(t as string)) && new Set(type).size === type.length) {
    findings.push({ rule: 'type-union', path });
  }
  if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#')) findings.push({ rule: 'remote-ref', path });
  const asserts = Object.keys(node).some((key) => ASSERTING.has(key)) || ('if' in node && ('then' in node || 'else' in node));
  if (!asserts && keyword !== 'not') findings.push({ rule: 'untyped-schema', path });

  for (const key of MAPS) {
    if (isNode(node[key])) for (const [name, child] of Object.entries(node[key])) visit(child, `${path}.${key}.${name}`, key, findings);
  }
  for (const key of LISTS) {
    if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((child, i) => visit(child, `${path}.${key}[${i}]`, key, findings));
  }
  for (const key of SINGLE) {
    if (!(key in node)) continue;
    if (key === 'items' && Array.isArray(node.items)) node.items.forEach((child, i) => visit(child, `${path}.items[${i}]`, key, findings));
    else visit(node[key], `${path}.${key}`, key, findings);
  }
}
