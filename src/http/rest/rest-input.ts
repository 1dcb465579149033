import type { ErrorDetail } from '../../lib/errors.ts';

/** What the REST surface needs to know about one operation of the OpenAPI document to police its requests. */
export interface RestOperation {
  /** Query parameter name → its JSON Schema type (`integer`, `string`, …; undefined for a `$ref`). */
  query: Map<string, string | undefined>;
  takesBody: boolean;
}

type PathsLike = Record<string, Record<string, { parameters?: { name?: string; in?: string; schema?: { type?: unknown } }[]; requestBody?: unknown }>>;

/** Every operation of the document, by method and path template as the document writes them (`GET /event-types/{id}`). */
export function restOperations(document: { paths?: object }): Map<string, RestOperation> {
  const operations = new Map<string, RestOperation>();
  for (const [path, item] of Object.entries((document.paths ?? {}) as PathsLike)) {
    for (const [method, operation] of Object.entries(item)) {
      const query = new Map<string, string | undefined>();
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.name) {
          query.set(parameter.name, typeof parameter.schema?.type === 'string' ? parameter.schema.type : undefined);
        }
      }
      operations.set(`${method.toUpperCase()} ${path}`, { query, takesBody: operation.requestBody !== undefined });
    }
  }
  return operations;
}

const NUMBER_SYNTAX: Record<string, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ };

function decodeStrictly(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * A query string is held to the same standard as a JSON body: every name a parameter of the operation, given
 * once, with a non-empty value that is valid percent-encoded UTF-8, and numbers written as decimal digits (the
 * adapter's Number() coercion would read `0x10` as 16 and `1e1` as 10). One detail per problem.
 */
export function queryStringProblems(rawQuery: string, operation: RestOperation): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const rawName = separator === -1 ? pair : pair.slice(0, separator);
    const rawValue = separator === -1 ? '' : pair.slice(separator + 1);
    const name = decodeStrictly(rawName);
    if (name === undefined) {
      problems.push({ code: 'invalid_format', path: [rawName], message: 'is not valid percent-encoded UTF-8' });
      continue;
    }
    if (!operation.query.has(name)) {
      problems.push({ code: 'unrecognized_keys', path: [name], message: 'is not a query parameter of this operation' });
      continue;
    }
    if (seen.has(name)) {
      problems.push({ code: 'invalid_type', path: [name], message: 'must be given at most once' });
      continue;
    }
    seen.add(name);
    const value = decodeStrictly(rawValue);
    if (value === undefined) {
      problems.push({ code: 'invalid_format', path: [name], message: 'is not valid percent-encoded UTF-8' });
    } else if (value === '') {
      problems.push({ code: 'too_small', path: [name], message: 'must not be empty (leave the parameter out instead)' });
    } else {
      const syntax = NUMBER_SYNTAX[operation.query.get(name) ?? ''];
      if (syntax && !syntax.test(value)) {
        problems.push({ code: 'invalid_type', path: [name], message: 'must be a number written in decimal digits' });
      }
    }
  }
  return problems;
}

/**
 * A DELETE's JSON body (e.g. `{"reason": "…"}`) carries the same fields as its query string: the adapter reads a
 * DELETE's input from the query alone, so the body's fields join the query's. Each must be a query parameter of
 * the operation, not also given in the query, and a string (query values are strings; a number or an object
 * would otherwise be coerced into one). Returns the fields to add, or the problems.
 */
export function deleteBodyFields(
  body: unknown,
  operation: RestOperation,
  queryNames: Iterable<string>,
): { fields: Record<string, string>; problems: ErrorDetail[] } {
  const fields: Record<string, string> = {};
  const problems: ErrorDetail[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { fields, problems: [{ code: 'invalid_type', path: [], message: 'The request body must be a JSON object.' }] };
  }
  const inQuery = new Set(queryNames);
  for (const [name, value] of Object.entries(body)) {
    if (!operation.query.has(name)) {
      problems.push({ code: 'unrecognized_keys', path: [name], message: 'is not a field of this operation' });
    } else if (inQuery.has(name)) {
      problems.push({ code: 'invalid_type', path: [name], message: 'must be given once: in the query string or in the body' });
    } else if (typeof value !== 'string') {
      problems.push({ code: 'invalid_type', path: [name], message: 'must be a string' });
    } else {
      fields[name] = value;
    }
  }
  return { fields, problems };
}

/**
 * What is wrong with the JSON body of an operation that takes one, before its schema looks at the values: it
 * must be an object, and must not repeat a path parameter (the path's value would silently win).
 */
export function bodyProblems(body: unknown, pathParameters: readonly string[]): ErrorDetail[] {
  if (!isPlainObject(body)) return [{ code: 'invalid_type', path: [], message: 'The request body must be a JSON object.' }];
  return pathParameters
    .filter((name) => Object.hasOwn(body, name))
    .map((name) => ({ code: 'unrecognized_keys', path: [name], message: 'is a path parameter: give it in the path only' }));
}

/** An operation without a request body accepts none, an empty one, or `{}`; anything else is refused, never ignored. */
export function unexpectedBodyProblems(body: unknown): ErrorDetail[] {
  if (!isPlainObject(body)) {
    return [{ code: 'invalid_type', path: [], message: 'This operation takes no request body: send none, or {}.' }];
  }
  return Object.keys(body).map((name) => ({ code: 'unrecognized_keys', path: [name], message: 'is not a field of this operation, which takes no request body' }));
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sub-delimiters RFC 3986 allows literally in a path segment, which encodeURIComponent would encode. */
const PATH_SAFE_ESCAPES = /%(2B|3A|40|24|26|3D|2C|3B)/g;

/** A path of these characters alone (no `%` among them) is canonical already: decoding and re-encoding gives it back. */
const CANONICAL_AS_IS = /^[\w\-.~!*'()+:@$&=,;/]*$/;

/**
 * The request path with each segment percent-decoded and re-encoded canonically, so `%38` is `8` before the
 * adapter matches the route and hands the segment to validation (it does not decode path parameters itself).
 * Characters that must stay encoded in a path (`/`, `?`, `%`, controls, non-ASCII…) stay encoded.
 */
export function canonicalPath(path: string): string {
  // Most paths: the per-segment work below was most of the cost of routing a request.
  if (CANONICAL_AS_IS.test(path)) return path;
  return path
    .split('/')
    .map((segment) => {
      const decoded = decodeStrictly(segment.replace(/\+/g, '%2B'));
      return decoded === undefined ? segment : encodeURIComponent(decoded).replace(PATH_SAFE_ESCAPES, decodeURIComponent);
    })
    .join('/');
}
