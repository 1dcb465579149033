import path from 'node:path';
import type { Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ARTIFACTS, BROWSER_TEST_TIMEOUT, type Browser, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { createPasswordUser, startListeningApp } from '../oauth/support.ts';

/**
 * The API reference in a real headless Chromium: it renders from this site alone, pre-fills "Try it" with the
 * document's examples, and its "Authorize" button completes the OAuth sign-in (popup, sign-in, consent, code,
 * token) so that a request sent from the reference is authenticated.
 */
describe('the API reference in a browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let page: Page;
  const elsewhere: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startListeningApp();
    browser = await launchBrowser();
    page = browser.page;
    browser.context.on('request', (request: Request) => {
      const url = request.url();
      if (!url.startsWith(`${t.siteUrl}/`) && !url.startsWith('data:')) elsewhere.push(url);
    });
    browser.context.on('response', (response: Response) => {
      // Chromium asks every site for /favicon.ico by itself; nothing on the page refers to it.
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'renders from this site alone, at 1280 and 390 px, with the document’s examples',
    async () => {
      await page.goto(`${t.siteUrl}/api/docs`, { waitUntil: 'networkidle' });
      await page.getByRole('heading', { name: 'Scheduling API', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'quickstart' }).first().waitFor();
      const { phoneScrollWidth } = await screenshotBothWidths(page, 'api-reference');
      expect(phoneScrollWidth).toBeLessThanOrEqual(390);

      await page.getByRole('button', { name: /Test Request.*get \/availability/ }).click();
      const eventTypeId = page.getByRole('dialog').getByText('0b7d2e94-5c1a-4f3e-8d6b-9a2c4e7f1b05').first();
      await eventTypeId.waitFor();
      await page.getByRole('dialog').getByText('2026-12-01T00:00:00Z').first().waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'api-reference-try-it.png') });
      await page.keyboard.press('Escape');

      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'signs in with OAuth from "Authorize" and sends an authenticated request',
    async () => {
      const user = await createPasswordUser(t.em(), { plan: 'team', name: 'Ana Reference' });
      await page.goto(`${t.siteUrl}/api/docs`, { waitUntil: 'networkidle' });

      const popupOpened = page.waitForEvent('popup');
      const tokenAnswered = page.waitForResponse((response) => response.url() === `${t.siteUrl}/oauth/token`);
      await page.getByRole('button', { name: 'Authorize', exact: true }).first().click();
      const popup = await popupOpened;
      const popupClosed = popup.waitForEvent('close');
      await popup.waitForURL(/\/login\?next=%2Foauth%2Fauthorize/);
      await popup.getByLabel('E-mail address').fill(user.email);
      await popup.getByLabel('Password').fill(user.password);
      await popup.getByRole('button', { name: 'Sign in' }).click();
      await popup.getByText('API reference').first().waitFor();
      await popup.screenshot({ path: path.join(ARTIFACTS, 'api-reference-consent.png'), fullPage: true });
      await popup.getByRole('button', { name: 'Allow access' }).click();

      const token = await tokenAnswered;
      expect(token.status()).toBe(200);
      expect(await token.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.stringMatching(/^oat_/) });
      await page.getByText('Access Token').first().waitFor();
      await popupClosed; // the reference closes it once it has read the code

      await page.getByRole('button', { name: 'Open Group - User' }).click();
      await page.getByRole('link', { name: 'Get the authenticated user' }).first().click();
      await page.getByRole('button', { name: /Test Request.*get \/me/ }).click();
      const meAnswered = page.waitForResponse((response) => response.url() === `${t.siteUrl}/api/v2/me`);
      await page.getByRole('dialog').getByRole('button', { name: /Send/ }).first().click();
      const me = await meAnswered;
      expect(me.request().headers().authorization).toMatch(/^Bearer oat_/);
      expect(me.status()).toBe(200);
      expect(await me.json()).toMatchObject({ email: user.email, name: 'Ana Reference' });
      await page.screenshot({ path: path.join(ARTIFACTS, 'api-reference-signed-in-call.png') });

      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
