import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { inflate } from '@sparticuz/chromium';

/** Browser test files end with this; the global setup builds the web app once when a run includes one. */
export const BROWSER_TEST_SUFFIX = '.browser.test.ts';

/** A Chromium the browser tests can start: its binary, and the folder of the shared libraries it ships with. */
export interface ChromiumInstall {
  executablePath: string;
  libraryPath?: string;
}

const DEFAULT_CACHE = path.resolve('node_modules/.cache/chromium');

/**
 * CHROMIUM_PATH when set, otherwise the Chromium build shipped inside the @sparticuz/chromium npm package
 * (no browser download, no system package), checked to start before any test runs.
 */
export async function provideChromium(cacheRoot = DEFAULT_CACHE): Promise<ChromiumInstall> {
  const override = process.env.CHROMIUM_PATH;
  if (!override && (process.platform !== 'linux' || process.arch !== 'x64')) {
    throw new Error(advice(`the Chromium shipped in @sparticuz/chromium runs on Linux x64 only, not ${process.platform} ${process.arch}.`));
  }
  if (override && !existsSync(override)) throw new Error(advice(`CHROMIUM_PATH names ${override}, which does not exist.`));
  const install = override ? { executablePath: override } : await unpackBundledChromium(cacheRoot);
  try {
    await promisify(execFile)(install.executablePath, ['--version'], { env: chromiumEnv(install), timeout: 30_000 });
  } catch (error) {
    throw new Error(advice(`${install.executablePath} does not start: ${(error as Error).message.trim()}`), { cause: error });
  }
  return install;
}

/** The environment Chromium starts in: the bundled shared libraries come before the system's. */
export function chromiumEnv(install: ChromiumInstall): NodeJS.ProcessEnv {
  if (!install.libraryPath) return process.env;
  const { LD_LIBRARY_PATH: systemPath } = process.env;
  return { ...process.env, LD_LIBRARY_PATH: systemPath ? `${install.libraryPath}:${systemPath}` : install.libraryPath };
}

/**
 * Unpacks the package's Brotli-compressed binary and the libraries it needs (NSS, NSPR, expat) once per
 * package version. Each run unpacks into a folder of its own and renames it into place, so a folder that
 * exists is complete, and runs starting together neither race nor leave a half-written binary behind.
 */
async function unpackBundledChromium(cacheRoot: string): Promise<ChromiumInstall> {
  const bin = bundledBinFolder();
  const { version } = JSON.parse(readFileSync(path.join(bin, '..', 'package.json'), 'utf8')) as { version: string };
  const target = path.join(cacheRoot, version);
  const install = { executablePath: path.join(target, 'chromium'), libraryPath: path.join(target, 'al2023', 'lib') };
  if (existsSync(target)) return install;

  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(path.join(cacheRoot, `${version}.partial-`));
  try {
    await Promise.all(inflateInto(staging, [path.join(bin, 'chromium.br'), path.join(bin, 'al2023.tar.br')]));
    renameSync(staging, target);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another run renamed its complete copy into place first.
    if (!existsSync(target)) throw error;
  }
  return install;
}

/** inflate() writes into os.tmpdir(), which it reads before its first await: point it at the staging folder. */
function inflateInto(folder: string, archives: string[]): Promise<string>[] {
  const { TMPDIR } = process.env;
  process.env.TMPDIR = folder;
  try {
    return archives.map((archive) => inflate(archive));
  } finally {
    if (TMPDIR === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = TMPDIR;
  }
}

function bundledBinFolder(): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  return path.join(path.dirname(entry), '..', 'bin');
}

function advice(problem: string): string {
  return [
    `The browser tests (test/**/*${BROWSER_TEST_SUFFIX}) need Chromium: ${problem}`,
    'Without CHROMIUM_PATH they unpack the Linux x64 build shipped in the @sparticuz/chromium npm package (installed by `npm ci`);',
    'elsewhere, point CHROMIUM_PATH at a Chromium or Chrome binary, then run `npm test` again.',
    `To run everything else meanwhile: npx vitest run --exclude 'test/**/*${BROWSER_TEST_SUFFIX}'`,
  ].join('\n');
}
