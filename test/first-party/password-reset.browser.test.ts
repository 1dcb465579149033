import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { eventually, type MailServer, mailsTo, startMailServer } from '../booking-messages/support.ts';
import { createPasswordUser, startListeningApp } from '../oauth/support.ts';

/** "Forgot password?" from the sign-in page to the dashboard, as a person does it, at desktop and phone width. */
describe('password reset in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it(
    'asks for the address, mails the link, sets a new password by the rule, then signs in to the dashboard; the link is spent',
    async () => {
      const mail: MailServer = await startMailServer();
      const t = await startListeningApp({ webRoot: builtWebRoot(), env: { SMTP_URL: mail.url } });
      try {
        const user = await createPasswordUser(t.em(), { name: 'Petra Forgetful', timezone: 'Europe/Berlin' });
        const { page, context } = browser;
        await context.clearCookies();
        await page.goto(`${t.siteUrl}/app`);
        await page.waitForURL(/\/login\?next=/);
        await page.getByRole('link', { name: 'Forgot password?' }).click();
        await page.waitForURL(/\/login\/forgot$/);
        await page.getByLabel('E-mail address').fill(user.email);
        const { phoneScrollWidth: forgotWidth } = await screenshotBothWidths(page, 'password-forgot');
        expect(forgotWidth).toBeLessThanOrEqual(390);
        expect(await page.locator('#kept-mail').count()).toBe(0);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
        expect(await page.getByRole('status').textContent()).toContain(user.email);
        await screenshotBothWidths(page, 'password-forgot-sent');

        const [received] = await eventually(() => (mailsTo(mail, user.email).length > 0 ? mailsTo(mail, user.email) : undefined));
        const link = /Choose a new password: (\S+)/.exec(received!.parsed.text ?? '')?.[1];
        expect(link).toContain(`${t.siteUrl}/login/reset/pwr_`);
        await page.goto(link!);
        await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
        expect(await page.locator('main').textContent()).toContain(user.email);
        await screenshotBothWidths(page, 'password-reset-form');

        await page.getByLabel('New password').fill('password12');
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.getByRole('alert').waitFor();
        expect(await page.getByRole('alert').textContent()).toContain('Choose another password.');
        const { phoneScrollWidth: weakWidth } = await screenshotBothWidths(page, 'password-reset-weak');
        expect(weakWidth).toBeLessThanOrEqual(390);

        const newPassword = 'harbour lantern quietly 31';
        await page.getByLabel('New password').fill(newPassword);
        await page.getByRole('button', { name: 'Set the new password' }).click();
        await page.waitForURL(/\/login\?reset=done/);
        expect(await page.getByRole('status').textContent()).toContain('Your password is changed');
        await screenshotBothWidths(page, 'password-reset-done');
        await page.getByLabel('E-mail address').fill(user.email);
        await page.getByLabel('Password').fill(newPassword);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByTestId('signed-in-as').waitFor();
        expect(new URL(page.url()).pathname).toBe('/app');

        await page.goto(link!);
        await page.getByRole('heading', { name: 'This link no longer works' }).waitFor();
        const { phoneScrollWidth: goneWidth } = await screenshotBothWidths(page, 'password-reset-link-gone');
        expect(goneWidth).toBeLessThanOrEqual(390);
      } finally {
        await t.close();
        await mail.close();
      }
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'without SMTP: the forms say the link is kept and how its operator reads it',
    async () => {
      const t = await startListeningApp({ webRoot: builtWebRoot() });
      try {
        const user = await createPasswordUser(t.em());
        const { page, context } = browser;
        await context.clearCookies();
        await page.goto(`${t.siteUrl}/login/forgot`);
        await page.getByLabel('E-mail address').fill(user.email);
        await page.getByRole('button', { name: 'Send the link' }).click();
        await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
        expect(await page.locator('#kept-mail').textContent()).toContain('npm run -s cli -- mail list');
        const { phoneScrollWidth } = await screenshotBothWidths(page, 'password-forgot-kept');
        expect(phoneScrollWidth).toBeLessThanOrEqual(390);
      } finally {
        await t.close();
      }
    },
    BROWSER_TEST_TIMEOUT,
  );
});
