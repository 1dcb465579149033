import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { chromiumEnv } from './chromium.ts';

/** Screenshots of browser tests land here (git-ignored); look at them. */
export const ARTIFACTS = path.resolve('test/artifacts');
export const BROWSER_TEST_TIMEOUT = 90_000;
export const DESKTOP = { width: 1280, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** The web app built once for the run by the global setup, from the current source. */
export function builtWebRoot(): string {
  const webRoot = inject('webRoot');
  if (!webRoot) throw new Error('The web app was not built: name browser test files *.browser.test.ts');
  return webRoot;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/**
 * A fresh headless Chromium profile, in the Chromium the global setup provided. The flags keep it off the
 * network this machine does not have (background networking, component updates, sync) and let it run as root.
 */
export async function launchBrowser(options: { timezoneId?: string; locale?: string } = {}): Promise<Browser> {
  const install = inject('chromium');
  if (!install) throw new Error('No Chromium was provided: name browser test files *.browser.test.ts');
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: install.executablePath,
    env: chromiumEnv(install),
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    locale: options.locale ?? 'en-US',
    timezoneId: options.timezoneId ?? 'Europe/Berlin',
    viewport: DESKTOP,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Full-page screenshots at desktop and phone width (`<name>.png`, `<name>-390.png`), and a check that
 * nothing makes the page wider than a phone's screen.
 */
export async function screenshotBothWidths(page: Page, name: string): Promise<{ phoneScrollWidth: number }> {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  const phoneScrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
  return { phoneScrollWidth };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}
