import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, DESKTOP, launchBrowser, PHONE, screenshotBothWidths } from '../helpers/browser.ts';
import { createPasswordUser, startListeningApp } from '../oauth/support.ts';
import { eventually, type Receiver, startReceiver } from '../webhooks/support.ts';

/** The Webhooks section of the developer settings in Chromium, delivering to a real receiver on 127.0.0.1. */
describe('webhooks in the developer settings (browser)', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let page: Page;
  let receiver: Receiver;
  let answer = 200;

  beforeAll(async () => {
    t = await startListeningApp({
      webRoot: builtWebRoot(),
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' },
    });
    receiver = await startReceiver(() => ({ status: answer }));
    browser = await launchBrowser();
    ({ page } = browser);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  const section = () => page.getByRole('region', { name: 'Webhooks' });
  const endpointItem = () => page.getByTestId('webhook-endpoint');
  /**
   * What in the Webhooks section reaches past a 390 px screen (the section only: the top bar is the app shell's).
   * Empty when everything fits.
   */
  const sectionOverflowAtPhoneWidth = async () => {
    await page.setViewportSize(PHONE);
    const overflowing = await section().evaluate((root) =>
      [root, ...root.querySelectorAll('*')]
        .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
    );
    await page.setViewportSize(DESKTOP);
    return overflowing;
  };
  /** Clicks Refresh in the delivery log until it shows `count` deliveries in `status`. */
  const waitForDeliveries = (status: string, count: number) =>
    eventually(async () => {
      await endpointItem().getByRole('button', { name: 'Refresh' }).click();
      const shown = await page.getByTestId('delivery').filter({ hasText: status }).count();
      return shown >= count ? true : undefined;
    });

  it(
    'adds an endpoint (secret shown once), tests, redelivers, edits, disables, rotates and deletes it',
    async () => {
      const user = await createPasswordUser(t.em(), { plan: 'team', name: 'Wendy Webhooks' });
      await page.goto(`${t.siteUrl}/app/settings/developer`);
      await page.waitForURL(/\/login/);
      await page.getByLabel('E-mail address').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await section().getByText('You have no webhook endpoints yet.').waitFor();

      await section().getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description (optional)').fill('CRM sync');
      await page.getByRole('checkbox', { name: /lead\.created/ }).check();
      await screenshotBothWidths(page, 'webhooks-new-endpoint-form');
      expect(await sectionOverflowAtPhoneWidth()).toEqual([]);
      await section().getByRole('button', { name: 'Add endpoint' }).click();

      const secretField = page.getByLabel('Signing secret', { exact: true });
      await secretField.waitFor();
      const secret = await secretField.inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await endpointItem().getByText(receiver.url).waitFor();
      expect(await endpointItem().textContent()).toContain('booking.created');
      expect(await endpointItem().textContent()).toContain('lead.created');
      expect(await page.content()).not.toContain(secret);

      await endpointItem().getByRole('button', { name: 'Send test event' }).click();
      await waitForDeliveries('succeeded', 1);
      const [ping] = receiver.received;
      expect(new Webhook(secret).verify(ping!.body, ping!.headers as Record<string, string>)).toMatchObject({ type: 'ping' });
      const delivery = page.getByTestId('delivery').first();
      await delivery.getByText('Body sent').click();
      expect(JSON.parse(await delivery.getByTestId('delivery-body').innerText())).toEqual(JSON.parse(ping!.body));
      await screenshotBothWidths(page, 'webhooks-delivery-body');
      expect(await sectionOverflowAtPhoneWidth()).toEqual([]);

      await endpointItem().getByRole('button', { name: /^Redeliver ping/ }).click();
      await waitForDeliveries('succeeded', 2);
      expect(receiver.received.map((request) => request.headers['webhook-id'])).toEqual([ping!.headers['webhook-id'], ping!.headers['webhook-id']]);

      await endpointItem().getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Description (optional)').fill('CRM sync (EU)');
      await page.getByRole('checkbox', { name: /booking\.created/ }).uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await endpointItem().getByText('CRM sync (EU)').waitFor();
      expect(await endpointItem().textContent()).not.toContain('booking.created');

      await endpointItem().getByRole('button', { name: 'Disable' }).click();
      await endpointItem().getByText('Disabled', { exact: true }).waitFor();
      await endpointItem().getByRole('button', { name: 'Enable' }).click();
      await endpointItem().getByText('Active', { exact: true }).waitFor();

      // The receiver says 410 Gone: the service disables the endpoint and says why.
      answer = 410;
      await endpointItem().getByRole('button', { name: 'Send test event' }).click();
      await waitForDeliveries('failed', 1);
      await page.reload();
      await endpointItem().getByText(/The endpoint answered 410 Gone on/).waitFor();
      await endpointItem().getByRole('button', { name: 'Deliveries' }).click();
      await page.getByTestId('delivery').first().waitFor();
      await screenshotBothWidths(page, 'webhooks-endpoint-and-log');
      expect(await sectionOverflowAtPhoneWidth()).toEqual([]);

      await endpointItem().getByRole('button', { name: /^Rotate the secret/ }).click();
      await endpointItem().getByRole('button', { name: 'Rotate', exact: true }).click();
      const rotated = await page.getByLabel('Signing secret', { exact: true }).inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'I have saved it' }).click();

      await endpointItem().getByRole('button', { name: /^Delete the endpoint/ }).click();
      await endpointItem().getByRole('button', { name: 'Delete', exact: true }).click();
      await section().getByText('You have no webhook endpoints yet.').waitFor();
      expect((await t.em().execute('select id from webhook_endpoint')).length).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
