import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { createBooking, createEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';

/** A host sets booking rules in the event type form, and confirms and declines pending bookings from "To confirm". */
describe('booking rules and confirmations in the dashboard', () => {
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

  async function signIn(user: PasswordUser, path: string): Promise<void> {
    await context.clearCookies();
    await page.goto(`${t.siteUrl}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signed-in-as').waitFor();
  }

  it(
    'saves the rules set in the event type form, and shows them again when editing',
    async () => {
      const host = await createPasswordUser(t.em(), { plan: 'team', name: 'Rita Rules', timezone: 'Europe/Lisbon' });
      const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES });
      await signIn(host, '/app/event-types');
      await page.getByRole('button', { name: 'New event type' }).first().click();
      const form = page.getByRole('form', { name: 'New event type' });
      await form.getByLabel('Name', { exact: true }).fill('Audit review');
      await form.getByLabel('Booking window').selectOption('rolling');
      await form.getByLabel('Days ahead').fill('14');
      await form.getByLabel('Most bookings a day').fill('3');
      await form.getByLabel('Most bookings a week').fill('10');
      await form.getByLabel('Cancel notice (minutes)').fill('1440');
      await form.getByLabel('Requires confirmation').check();
      await screenshotBothWidths(page, 'dashboard-event-type-rules');
      await form.getByRole('button', { name: 'Create event type' }).click();
      await form.waitFor({ state: 'detached' });

      const [created] = (await t.http.get('/api/v2/event-types').set(...bearer(token))).body.data;
      expect(created).toMatchObject({
        name: 'Audit review',
        bookingWindow: { type: 'rolling', days: 14 },
        limits: { perDay: 3, perWeek: 10 },
        cancelNoticeMin: 1440,
        rescheduleNoticeMin: 0,
        requiresConfirmation: true,
        recurrence: null,
      });

      const card = page.getByTestId('event-type').filter({ hasText: 'Audit review' });
      await card.getByRole('button', { name: 'Edit Audit review' }).click();
      const edit = page.getByRole('form', { name: 'Edit Audit review' });
      expect(await edit.getByLabel('Days ahead').inputValue()).toBe('14');
      expect(await edit.getByLabel('Most bookings a day').inputValue()).toBe('3');
      expect(await edit.getByLabel('Requires confirmation').isChecked()).toBe(true);
      await edit.getByLabel('Most bookings a day').fill('');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      const [edited] = (await t.http.get('/api/v2/event-types').set(...bearer(token))).body.data;
      expect(edited).toMatchObject({ limits: { perWeek: 10 }, bookingWindow: { type: 'rolling', days: 14 }, requiresConfirmation: true });
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'lists pending bookings under "To confirm"; Confirm makes one active and Decline (with a reason) declines another',
    async () => {
      const host = await createPasswordUser(t.em(), { plan: 'team', name: 'Carl Confirm', timezone: 'America/Chicago' });
      const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES });
      const eventType = await createEventType(t.em(), host.id, { name: 'Site visit', requiresConfirmation: true });
      const soon = Math.ceil((Date.now() + 2 * 86_400_000) / 3_600_000) * 3_600_000;
      const first = await createBooking(t.em(), { eventType, startAt: new Date(soon), status: 'pending', invitee: { name: 'Petra Pending' } });
      const second = await createBooking(t.em(), {
        eventType,
        startAt: new Date(soon + 3_600_000),
        status: 'pending',
        invitee: { name: 'Dora Declined' },
      });
      await signIn(host, '/app/bookings');

      const toConfirm = page.getByTestId('to-confirm');
      await toConfirm.getByText('Petra Pending').waitFor();
      await toConfirm.getByText('Dora Declined').waitFor();
      await screenshotBothWidths(page, 'dashboard-to-confirm');

      await toConfirm.getByTestId('booking').filter({ hasText: 'Petra Pending' }).getByRole('button', { name: 'Confirm' }).click();
      await toConfirm.getByText('Petra Pending').waitFor({ state: 'detached' });
      const rest = async (id: string) => (await t.http.get(`/api/v2/bookings/${id}`).set(...bearer(token))).body;
      expect(await rest(first.id)).toMatchObject({ status: 'active' });
      await page.getByTestId('bookings').getByTestId('booking').filter({ hasText: 'Petra Pending' }).getByText('Active', { exact: true }).waitFor();

      const row = toConfirm.getByTestId('booking').filter({ hasText: 'Dora Declined' });
      await row.getByRole('button', { name: 'Decline' }).click();
      await row.getByLabel('Reason for declining (optional)').fill('Fully booked that week');
      await row.getByRole('button', { name: 'Decline booking' }).click();
      await toConfirm.waitFor({ state: 'detached' });
      expect(await rest(second.id)).toMatchObject({ status: 'declined', declineReason: 'Fully booked that week' });
      await page.getByTestId('bookings').getByText('Declined: “Fully booked that week”').waitFor();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
