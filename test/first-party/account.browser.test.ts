import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { createBooking, createEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPasswordUser, type PasswordUser, signIn, startListeningApp } from '../oauth/support.ts';
import { trpcClient } from './support.ts';

/** The account settings page at 1280 and 390 px, used as a host would, each change checked through the API. */
describe('account settings in a browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser();
    ({ context, page } = browser);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function expectFitsPhone(name: string): Promise<void> {
    const { phoneScrollWidth } = await screenshotBothWidths(page, name);
    expect(phoneScrollWidth, `${name} at 390 px`).toBeLessThanOrEqual(390);
  }

  async function openAccount(user: PasswordUser): Promise<void> {
    await context.clearCookies();
    await page.goto(`${t.siteUrl}/app`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signed-in-as').waitFor();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Account' }).waitFor();
  }

  const card = (name: string) => page.getByTestId(`account-${name}`);

  it(
    'changes the profile and the booking address (the old one redirects), refusing a reserved slug under its field',
    async () => {
      const host = await createPasswordUser(t.em(), { name: 'Hanna Host', timezone: 'Europe/Berlin' });
      const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ['read:profile'] });
      const me = async () => (await t.http.get('/api/v2/me').set(...bearer(token))).body;
      const oldSlug = (await me()).slug;
      const eventType = await createEventType(t.em(), host.id, { slug: 'intro-call', name: 'Intro call' });
      await openAccount(host);
      expect(await card('profile').getByLabel('Booking page address').inputValue()).toBe(oldSlug);
      await expectFitsPhone('account');

      const profile = card('profile');
      await profile.getByLabel('Booking page address').fill('API');
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await profile.getByText('"api" is reserved; choose another').waitFor();
      await expectFitsPhone('account-slug-error');

      const slug = `hanna-${Date.now().toString(36)}`;
      await profile.getByLabel('Name').fill('Hanna Hostova');
      await profile.getByLabel('Time zone').selectOption('America/New_York');
      await profile.getByLabel('Booking page address').fill(slug);
      await profile.getByRole('button', { name: 'Save profile' }).click();
      await profile.getByText('Saved. Your booking pages have their new address').waitFor();
      expect(await me()).toMatchObject({ name: 'Hanna Hostova', timezone: 'America/New_York', slug });

      await page.goto(`${t.siteUrl}/book/${oldSlug}/${eventType.slug}`);
      await page.waitForURL(`${t.siteUrl}/book/${slug}/${eventType.slug}`);
      await page.getByRole('heading', { name: 'Intro call' }).waitFor();
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'changes the e-mail address and the password, saying under the field what was wrong, and signs out the other sessions',
    async () => {
      const host = await createPasswordUser(t.em());
      const elsewhere = await signIn(t.http, host);
      await openAccount(host);

      const password = card('password');
      await password.getByLabel('Current password').fill('not my password');
      await password.getByLabel('New password', { exact: true }).fill('password1234');
      await password.getByLabel('New password again').fill('password1234');
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByText('Is not your current password').waitFor();
      await password.getByLabel('Current password').fill(host.password);
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.locator('.field-error').filter({ hasText: /common|guess/i }).waitFor();
      await expectFitsPhone('account-password-errors');

      const newPassword = 'tangerine orbit lantern 42';
      await password.getByLabel('New password', { exact: true }).fill(newPassword);
      await password.getByLabel('New password again').fill(newPassword);
      await password.getByRole('button', { name: 'Change password' }).click();
      await password.getByText('Password changed. 1 other session was signed out').waitFor();
      await expect(trpcClient(t.siteUrl, { cookie: elsewhere }).users.me.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });

      const email = card('email');
      const address = `moved.${Date.now()}@example.test`;
      await email.getByLabel('E-mail address').fill(address);
      await email.getByLabel('Current password').fill(newPassword);
      await email.getByRole('button', { name: 'Change e-mail address' }).click();
      await email.getByText(`Saved. Sign in with ${address} from now on.`).waitFor();
      expect(await page.getByTestId('signed-in-as').textContent()).toBe(address);

      const again = await signIn(t.http, { email: address, password: newPassword });
      const sessions = card('sessions');
      await sessions.getByRole('button', { name: 'Sign out everywhere' }).click();
      await sessions.getByText('Signed out of 1 other session.').waitFor();
      await expect(trpcClient(t.siteUrl, { cookie: again }).users.me.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await sessions.getByLabel('Stay signed in on this browser').uncheck();
      await sessions.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.waitForURL(/\/login\?next=/);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'downloads the data as JSON, then deletes the account after the password and a second question',
    async () => {
      const host = await createPasswordUser(t.em(), { name: 'Dora Delete' });
      const eventType = await createEventType(t.em(), host.id);
      const booking = await createBooking(t.em(), { eventType, startAt: new Date(Date.now() + 86_400_000) });
      await openAccount(host);

      const download = page.waitForEvent('download');
      await card('export').getByRole('button', { name: 'Download your data (JSON)' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/^scheduling-account-\d{4}-\d{2}-\d{2}\.json$/);
      const exported = JSON.parse(readFileSync(await file.path(), 'utf8'));
      expect(exported.user).toMatchObject({ id: host.id, email: host.email, name: 'Dora Delete' });
      expect(exported.bookings.map((entry: { id: string }) => entry.id)).toEqual([booking.id]);
      await card('export').getByText('Downloaded: 1 event type, 1 booking, 0 leads and 1 contact.').waitFor();

      const remove = card('delete');
      await remove.getByLabel('Your password').fill('wrong password');
      await remove.getByRole('button', { name: 'Delete account…' }).click();
      await remove.getByRole('button', { name: 'Delete for good' }).click();
      await remove.getByText('Is not your current password').waitFor();
      await remove.getByLabel('Your password').fill(host.password);
      await remove.getByRole('button', { name: 'Delete account…' }).click();
      await remove.getByRole('group', { name: 'Confirm deleting your account' }).waitFor();
      await expectFitsPhone('account-delete-confirm');
      await remove.getByRole('button', { name: 'Delete for good' }).click();
      await page.waitForURL(`${t.siteUrl}/`);
      const [row] = await t.em().execute<{ count: string }[]>('select count(*) from app_user where id = ?', [host.id]);
      expect(Number(row?.count)).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
