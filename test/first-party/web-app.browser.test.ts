import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { ARTIFACTS, BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser } from '../helpers/browser.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { createClient, createPasswordUser, obtainTokens, startListeningApp } from '../oauth/support.ts';

/**
 * The web app in a real headless Chromium (Debian's package, driven by playwright-core) against the
 * running service, serving the bundle the global setup built from the current source.
 */
describe('the web app in a browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser();
    ({ context, page } = browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.siteUrl });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'signs in, creates a token that is shown once, and creates an OAuth app',
    async () => {
      const user = await createPasswordUser(t.em(), { plan: 'team', name: 'Bea Browser' });

      await page.goto(`${t.siteUrl}/app/settings/developer`);
      await page.waitForURL(/\/login\?next=%2Fapp%2Fsettings%2Fdeveloper/);
      await page.getByLabel('E-mail address').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${t.siteUrl}/app/settings/developer`);
      await page.getByRole('heading', { name: 'Developer settings' }).waitFor();
      expect(await page.getByTestId('signed-in-as').textContent()).toBe(user.email);
      await page.getByText('You have no personal access tokens yet.').waitFor();

      await page.getByRole('button', { name: 'Generate new token' }).click();
      await page.getByLabel('Token name').fill('Deploy bot');
      await page.getByRole('button', { name: 'Select all' }).click();
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-new-token-form.png'), fullPage: true });
      await page.getByRole('button', { name: 'Generate token', exact: true }).click();

      const secretField = page.getByLabel('Your new personal access token', { exact: true });
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      expect(secret).toMatch(/^pat_[a-z2-7]{59}$/);
      expect(await page.getByTestId('secret-reveal').textContent()).toContain('will not be shown again');
      await page.getByRole('button', { name: 'Copy Your new personal access token' }).click();
      await page.getByTestId('secret-reveal').getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-token-created.png'), fullPage: true });

      // The secret works on the REST API.
      const me = await t.http.get('/api/v2/me').set(...bearer(secret));
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(user.email);

      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByTestId('tokens-table').getByText('Deploy bot').waitFor();
      expect(await page.content()).not.toContain(secret);
      await page.reload();
      await page.getByTestId('tokens-table').getByText('Deploy bot').waitFor();
      expect(await page.content()).not.toContain(secret);
      expect(await page.getByTestId('tokens-table').textContent()).toContain(`${secret.slice(0, 10)}…`);

      await page.getByRole('button', { name: 'New OAuth app' }).click();
      await page.getByLabel('App name').fill('Acme CRM sync');
      await page.getByLabel('Redirect URIs').fill('https://crm.example.test/oauth/callback\nhttp://localhost:5173/callback');
      await page.getByRole('button', { name: 'Create app' }).click();
      const clientSecret = await page.getByLabel('Client secret', { exact: true }).inputValue();
      expect(clientSecret).toMatch(/^ocs_/);
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-app-created.png'), fullPage: true });
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await page.getByTestId('oauth-app').getByRole('heading', { name: 'Acme CRM sync' }).waitFor();
      expect(await page.content()).not.toContain(clientSecret);

      // An app this user authorized (through the real consent screen) is listed, and revoking it ends its tokens.
      const cookie = (await context.cookies(t.siteUrl)).map((c) => `${c.name}=${c.value}`).join('; ');
      const developer = await createPasswordUser(t.em(), { plan: 'team' });
      const calendarSync = await createClient(t.em(), developer.id, { name: 'Calendar Sync' });
      const granted = await obtainTokens(t.http, cookie, calendarSync, { scope: 'read:profile read:bookings' });
      await page.reload();
      const grantItem = page.getByTestId('granted-app').filter({ hasText: 'Calendar Sync' });
      await grantItem.waitFor();
      expect(await grantItem.textContent()).toContain('read:bookings');
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-authorized-app.png'), fullPage: true });
      await page.getByRole('button', { name: 'Revoke access of Calendar Sync' }).click();
      await page.getByRole('group', { name: 'Revoke access of Calendar Sync' }).getByRole('button', { name: 'Revoke access' }).click();
      await page.getByText('You have not authorized any apps.').waitFor();
      expect((await t.http.get('/api/v2/me').set(...bearer(granted.access_token))).status).toBe(401);

      await page.getByRole('button', { name: 'Revoke token Deploy bot' }).click();
      await page.getByRole('group', { name: 'Revoke token Deploy bot' }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('You have no personal access tokens yet.').waitFor();
      expect((await t.http.get('/api/v2/me').set(...bearer(secret))).status).toBe(401);
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-overview.png'), fullPage: true });
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'shows a Free-plan user why creating tokens is not available',
    async () => {
      await context.clearCookies();
      const user = await createPasswordUser(t.em(), { plan: 'free' });
      await page.goto(`${t.siteUrl}/app/settings/developer`);
      await page.waitForURL(/\/login/);
      await page.getByLabel('E-mail address').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('plan-notice').waitFor();
      expect(await page.getByTestId('plan-notice').textContent()).toContain('Team plan');
      expect(await page.getByRole('button', { name: 'Generate new token' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'New OAuth app' }).isDisabled()).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, 'settings-free-plan.png'), fullPage: true });
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'books a slot on the public booking page, shown in the visitor’s time zone',
    async () => {
      const host = await createUserWithToken(t.em(), { name: 'Hugo Host', timezone: 'America/New_York' });
      const { slug: hostSlug } = await t.em().findOneOrFail(UserEntity, { id: host.id });
      const eventType = await createEventType(t.em(), host.id, { name: 'Discovery call', durationsMin: [30, 60] });

      await page.goto(`${t.siteUrl}/book/${hostSlug}/${eventType.slug}`);
      await page.getByRole('heading', { name: 'Discovery call' }).waitFor();
      await page.getByText('Times in Europe/Berlin').waitFor();
      await page.getByRole('radio', { name: '1 h' }).check();
      const firstSlot = page.getByTestId('slot').first();
      await firstSlot.waitFor();
      const shownTime = (await firstSlot.textContent()) ?? '';
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-slots.png'), fullPage: true });

      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-slots-mobile.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });

      // Keyboard only: the slot is a button; choosing it moves focus to the details form's heading.
      await firstSlot.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Your details' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Your details');
      await page.getByLabel('Name', { exact: true }).fill('Ines Invitee');
      await page.getByLabel('E-mail').fill('ines.invitee@example.test');
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-details.png'), fullPage: true });
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByRole('heading', { name: 'You are booked' }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('You are booked');
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-confirmed.png'), fullPage: true });

      const [row] = await t
        .em()
        .execute<{ start_at: string | Date; duration_min: number; invitee_timezone: string; invitee_name: string }[]>(
          'select start_at, duration_min, invitee_timezone, invitee_name from booking where event_type_id = ? and lower(invitee_email) = ?',
          [eventType.id, 'ines.invitee@example.test'],
        );
      expect(row).toMatchObject({ duration_min: 60, invitee_timezone: 'Europe/Berlin', invitee_name: 'Ines Invitee' });
      const start = new Date(row?.start_at ?? 0);
      const inBerlin = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Berlin', hour: 'numeric', minute: '2-digit' });
      expect(shownTime).toBe(inBerlin.format(start));
      // The host works 09:00–17:00 in New York; the visitor sees those hours in Berlin.
      const hourInNewYork = Number(
        new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', hourCycle: 'h23' }).format(start),
      );
      expect(hourInNewYork).toBeGreaterThanOrEqual(9);
      expect(hourInNewYork).toBeLessThan(17);

      await page.getByRole('button', { name: 'Book another time' }).click();
      await page.getByRole('button', { name: 'Leave your details' }).click();
      await page.getByLabel('E-mail').fill('lena.lead@example.test');
      await page.getByRole('button', { name: 'Send my details' }).click();
      await page.getByRole('heading', { name: 'Thanks, we have your details' }).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-lead-captured.png'), fullPage: true });
      const leads = await t
        .em()
        .execute<{ email: string; timezone: string }[]>('select email, timezone from lead where event_type_id = ?', [eventType.id]);
      expect(leads).toEqual([{ email: 'lena.lead@example.test', timezone: 'Europe/Berlin' }]);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'says so when a booking page does not exist',
    async () => {
      await page.goto(`${t.siteUrl}/book/nobody-here/nothing`);
      await page.getByRole('heading', { name: 'This booking page is not available' }).waitFor();
      await page.screenshot({ path: path.join(ARTIFACTS, 'booking-not-found.png'), fullPage: true });
    },
    BROWSER_TEST_TIMEOUT,
  );
});
