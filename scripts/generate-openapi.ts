/**
 * Writes the OpenAPI 3.1 document of /api/v2, as the service serves it at /api/docs/openapi.json.
 *   npm run openapi                 → stdout
 *   npm run openapi -- openapi.json → that file
 * Absolute URLs in it derive from SITE_URL (default http://localhost:$PORT), as in the running service.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument } from '../src/router/openapi.ts';
import { loadEnv } from '../src/config/env.ts';

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
if (positionals.length > 1) {
  console.error('usage: npm run openapi -- [output-file]');
  process.exit(2);
}
const json = `${JSON.stringify(buildOpenApiDocument(loadEnv().SITE_URL), null, 2)}\n`;
const target = positionals[0];
if (target) {
  writeFileSync(target, json);
  console.error(`wrote ${target}`);
} else {
  process.stdout.write(json);
}
