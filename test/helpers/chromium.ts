import { existsSync } from 'node:fs';

/** Debian's Chromium by default; CHROMIUM_PATH names another build (playwright-core downloads none). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Browser test files end with this; the global setup builds the web app once when a run includes one. */
export const BROWSER_TEST_SUFFIX = '.browser.test.ts';

/** Why the browser tests cannot run here and how to fix it, or undefined when Chromium is in place. */
export function missingChromiumAdvice(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return [
    `The browser tests (test/**/*${BROWSER_TEST_SUFFIX}) need Chromium, and ${CHROMIUM} is missing.`,
    'Install it with `sudo apt-get install -y chromium` (Debian/Ubuntu; .ci/run does this),',
    'or point CHROMIUM_PATH at a Chromium or Chrome binary, then run `npm test` again.',
    `To run everything else meanwhile: npx vitest run --exclude 'test/**/*${BROWSER_TEST_SUFFIX}'`,
  ].join('\n');
}
