import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_INPUT_DEPTH, findUnsafeInput, jsonNestsDeeperThan } from '../lib/unsafe-text.ts';

/** A request the service refuses before any handler: a 400 in each surface's own error vocabulary. */
export class UnacceptableInputError extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_UNACCEPTABLE_INPUT';
}

/**
 * JSON bodies everywhere (REST, tRPC, OAuth registration) are parsed by Fastify's own parser (which refuses
 * `__proto__` and `constructor` keys), after one pass that refuses nesting deeper than MAX_INPUT_DEPTH.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parse = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
}

type BodyParser = (request: FastifyRequest, body: string, done: (error: Error | null, body?: unknown) => void) => void;

/** The JSON body parser of registerJsonBodyParser, for a scope that adds rules of its own around it. */
export function jsonBodyParser(app: FastifyInstance): BodyParser {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    if (jsonNestsDeeperThan(body, MAX_INPUT_DEPTH)) {
      return done(new UnacceptableInputError(`The request body nests deeper than ${MAX_INPUT_DEPTH} levels.`), undefined);
    }
    return parse(request, body, done);
  };
}

/**
 * Text PostgreSQL cannot store (NUL, unpaired surrogates) in the path, query or body of the routes outside the
 * API procedures (OAuth endpoints, sign-in, the booking page) is refused before their handlers run; each
 * surface's error handler words the 400 its own way (OAuth: `invalid_request`). Procedure inputs (/api/v2, /mcp,
 * /trpc) are checked by the procedures themselves, which see them decoded (superjson included).
 */
export function registerTextGuard(app: FastifyInstance, procedurePrefixes: string[]): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const path = request.url.split('?')[0] ?? '';
    if (procedurePrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return done();
    for (const [part, value] of [['path', request.params], ['query', request.query], ['body', request.body]] as const) {
      const problem = findUnsafeInput(value);
      if (problem) {
        const where = [part, ...problem.path].join('.');
        return done(new UnacceptableInputError(`Parameter ${where} ${problem.message}.`));
      }
    }
    done();
  });
}
