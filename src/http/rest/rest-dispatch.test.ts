import fc from 'fast-check';
import { normalizePath } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { dispatchPath } from './rest-dispatch.ts';

/** What trpc-to-openapi's handler chose the procedure by: the path through the URL parser, then normalized. */
const parsed = (path: string) => `/api/v2${normalizePath(new URL(`http://127.0.0.1${path.slice('/api/v2'.length)}`).pathname)}`;

describe('dispatchPath', () => {
  it('is the path less its trailing slash when the URL parser would not change it', () => {
    expect(dispatchPath('/api/v2/event-types/0b6f-4a2c/', '/api/v2')).toBe('/api/v2/event-types/0b6f-4a2c');
    expect(dispatchPath('/api/v2/contacts', '/api/v2')).toBe('/api/v2/contacts');
  });

  it('resolves dot segments, %2e included, as the URL parser does', () => {
    expect(dispatchPath('/api/v2/bookings/./', '/api/v2')).toBe('/api/v2/bookings');
    expect(dispatchPath('/api/v2/webhooks/%2E%2e/me', '/api/v2')).toBe('/api/v2/me');
    expect(dispatchPath('/api/v2/event-types/..', '/api/v2')).toBe('/api/v2/');
  });

  it('agrees with the URL parser on any path', () => {
    const segment = fc.oneof(
      fc.constantFrom('.', '..', '%2e', '.%2E', 'a.b', '..a', '%2F', '%', '%zz', '\\', 'a b', '#', '"', '{x}', '^', '|', '~', 'é'),
      fc.string({ unit: fc.constantFrom('a', '.', '%', '2', 'e', '\\', '+', ':', '@', '!', "'", '*', '`', '[', ']'), maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean(), (segments, trailingSlash) => {
        const path = `/api/v2/${segments.join('/')}${trailingSlash ? '/' : ''}`;
        expect(dispatchPath(path, '/api/v2')).toBe(parsed(path));
      }),
      { numRuns: 2000 },
    );
  });
});
