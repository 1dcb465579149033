import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshotBothWidths } from '../helpers/browser.ts';
import type { PasswordUser } from '../oauth/support.ts';

/** Signs the host in through /login, from the dashboard page `path`, and waits for the dashboard. */
export async function signInThroughPage(context: BrowserContext, page: Page, siteUrl: string, user: PasswordUser, path = '/app'): Promise<void> {
  await context.clearCookies();
  await page.goto(`${siteUrl}${path}`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel('E-mail address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('signed-in-as').waitFor();
}

/** Screenshots at 1280 and 390 px (test/artifacts/<name>.png, <name>-390.png), and nothing wider than the phone. */
export async function expectFitsPhone(page: Page, name: string): Promise<void> {
  const { phoneScrollWidth } = await screenshotBothWidths(page, name);
  expect(phoneScrollWidth, `${name} at 390 px`).toBeLessThanOrEqual(390);
}
