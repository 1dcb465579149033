import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/router/openapi.ts';

/**
 * The reviewed OpenAPI document of /api/v2. A change to any schema, field name, status, header or description
 * shows here as a diff; when the change is intended, rewrite the snapshot and review it in the commit:
 *   UPDATE_OPENAPI_SNAPSHOT=1 npx vitest run test/openapi/snapshot.test.ts
 */
const SNAPSHOT = new URL('./openapi.snapshot.json', import.meta.url);
const SITE_URL = 'https://scheduling.example';

describe('the OpenAPI document', () => {
  it('is exactly the reviewed snapshot', () => {
    const emitted = `${JSON.stringify(buildOpenApiDocument(SITE_URL), null, 2)}\n`;
    if (process.env.UPDATE_OPENAPI_SNAPSHOT === '1') writeFileSync(SNAPSHOT, emitted);
    expect(existsSync(SNAPSHOT), 'no snapshot yet: run with UPDATE_OPENAPI_SNAPSHOT=1').toBe(true);
    expect(JSON.parse(emitted)).toStrictEqual(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });
});
