import { readFileSync } from 'node:fs';

/**
 * The Node flags the service runs with: those of the `start` script in package.json (`exec node <flags>
 * src/main.ts`), read from there so that the bench's servers and the test workers run on the same runtime.
 */
export function serviceNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  return manifest.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}
