import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { createBooking, createEventType, createLead } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, DESKTOP, launchBrowser, PHONE, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer, uniqueEmail } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/app.ts';
import { createClient, createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';

/** Every dashboard page at 1280 and 390 px, and a host's day-to-day work done through it, checked on REST. */
describe('the host dashboard in a browser', () => {
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

  async function expectFitsPhone(name: string): Promise<void> {
    const { phoneScrollWidth } = await screenshotBothWidths(page, name);
    expect(phoneScrollWidth, `${name} at 390 px`).toBeLessThanOrEqual(390);
  }

  async function signIn(user: PasswordUser, path = '/app'): Promise<void> {
    await context.clearCookies();
    await page.goto(`${t.siteUrl}${path}`);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel('E-mail address').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signed-in-as').waitFor();
  }

  async function openPage(label: string): Promise<void> {
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    if (!(await nav.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  }

  it(
    'shows the landing page, signs a new host up into /app, and tells them what to do next on every page',
    async () => {
      await context.clearCookies();
      await page.goto(`${t.siteUrl}/`);
      await page.getByRole('heading', { name: 'Scheduling' }).waitFor();
      await expectFitsPhone('landing');
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      // The tiny script picked the browser's zone.
      expect(await page.getByLabel('Time zone').inputValue()).toBe('Europe/Berlin');
      await expectFitsPhone('signup');
      const email = uniqueEmail('newhost');
      await page.getByLabel('Name').fill('Nina Newhost');
      await page.getByLabel('E-mail address').fill(email);
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(`${t.siteUrl}/app`);
      expect(await page.getByTestId('signed-in-as').textContent()).toBe(email);
      const user = await t.em().findOneOrFail(UserEntity, { email });
      expect(user.timezone).toBe('Europe/Berlin');

      await page.getByTestId('bookings-empty').getByRole('link', { name: 'Go to event types' }).waitFor();
      await expectFitsPhone('dashboard-bookings-empty');
      await openPage('Event types');
      await page.getByTestId('event-types-empty').waitFor();
      await expectFitsPhone('dashboard-event-types-empty');
      await openPage('Leads');
      await page.getByTestId('leads-empty').waitFor();
      await expectFitsPhone('dashboard-leads-empty');
      await openPage('Contacts');
      await page.getByTestId('contacts-empty').waitFor();
      await expectFitsPhone('dashboard-contacts-empty');

      // On a phone the navigation and the account hide behind Menu.
      await page.setViewportSize(PHONE);
      const nav = page.getByRole('navigation', { name: 'Dashboard' });
      expect(await nav.isVisible()).toBe(false);
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav.getByRole('link', { name: 'Availability' }).waitFor();
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      await page.screenshot({ path: 'test/artifacts/dashboard-menu-open-390.png', fullPage: true });
      await nav.getByRole('link', { name: 'Availability' }).click();
      await page.getByRole('heading', { level: 1, name: 'Availability' }).waitFor();
      // The menu closes in an effect after the new page has rendered, so it can trail the heading.
      await nav.waitFor({ state: 'hidden' });
      await page.setViewportSize(DESKTOP);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'creates an event type, and a booking made on its page is rescheduled and canceled through the dashboard, as REST sees',
    async () => {
      const host = await createPasswordUser(t.em(), { plan: 'team', name: 'Hana Host', timezone: 'America/New_York' });
      const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES });
      await signIn(host);

      await openPage('Event types');
      await page.getByRole('button', { name: 'New event type' }).click();
      const form = page.getByRole('form', { name: 'New event type' });
      await form.getByLabel('Name', { exact: true }).fill('Strategy session');
      await form.getByLabel('Durations (minutes)').fill('45, 30');
      await form.getByLabel('Buffer after (minutes)').fill('15');
      await form.getByLabel('Minimum notice (minutes)').fill('60');
      await page.screenshot({ path: 'test/artifacts/dashboard-event-type-form.png', fullPage: true });
      await form.getByRole('button', { name: 'Create event type' }).click();
      const card = page.getByTestId('event-type').filter({ hasText: 'Strategy session' });
      await card.waitFor();
      const link = await card.getByLabel('Booking link for Strategy session').inputValue();
      expect(link).toMatch(new RegExp(`^${t.siteUrl}/book/[^/]+/strategy-session$`));
      await card.getByRole('button', { name: 'Copy Embed snippet for Strategy session' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        `<div data-scheduling-embed="${link}"></div>\n<script async src="${t.siteUrl}/embed.js"></script>`,
      );
      await expectFitsPhone('dashboard-event-types');

      const rest = async (path: string) => (await t.http.get(path).set(...bearer(token))).body;
      const created = (await rest('/api/v2/event-types')).data.find((e: { slug: string }) => e.slug === 'strategy-session');
      expect(created).toMatchObject({ durationsMin: [45, 30], bufferAfterMin: 15, active: true });

      // Edit: rename and change a buffer; then deactivate and reactivate.
      await card.getByRole('button', { name: 'Edit Strategy session' }).click();
      const edit = page.getByRole('form', { name: 'Edit Strategy session' });
      await edit.getByLabel('Buffer before (minutes)').fill('5');
      await edit.getByRole('button', { name: 'Save changes' }).click();
      await edit.waitFor({ state: 'detached' });
      expect((await rest('/api/v2/event-types')).data.find((e: { id: string }) => e.id === created.id).bufferBeforeMin).toBe(5);
      await card.getByRole('button', { name: 'Deactivate Strategy session' }).click();
      await card.getByText('Inactive').waitFor();
      await card.getByRole('button', { name: 'Activate Strategy session' }).click();
      await card.getByText('Active', { exact: true }).waitFor();

      // The invitee books on the public page.
      await page.goto(link);
      await page.getByTestId('slot').first().click();
      await page.getByLabel('Name', { exact: true }).fill('Ivo Invitee');
      await page.getByLabel('E-mail').fill('ivo.invitee@example.test');
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByRole('heading', { name: 'You are booked' }).waitFor();
      const [booked] = (await rest('/api/v2/bookings')).data as { id: string; startAt: string }[];
      expect(booked).toBeDefined();

      // Reschedule to another slot the engine offers, shown in the host's zone.
      await page.goto(`${t.siteUrl}/app/bookings`);
      const row = page.getByTestId('booking').filter({ hasText: 'Ivo Invitee' });
      await row.waitFor();
      await page.getByText('Times are shown in your time zone, America/New_York.').waitFor();
      await expectFitsPhone('dashboard-bookings');
      await row.getByRole('button', { name: 'Reschedule' }).click();
      const slots = row.getByRole('group', { name: /Free times on .* \(America\/New_York\)/ });
      // Late in the host's day the booked time may be the day's last free one: look on the following days.
      const newDay = row.getByLabel('New day');
      for (let day = 1; day <= 7; day++) {
        const free = slots.getByRole('button').first();
        const none = row.getByText('No free times that day. Try another day.');
        await free.or(none).waitFor();
        if (await free.isVisible()) break;
        const next = new Date(`${await newDay.inputValue()}T12:00:00Z`);
        next.setUTCDate(next.getUTCDate() + 1);
        await newDay.fill(next.toISOString().slice(0, 10));
      }
      await slots.getByRole('button').first().waitFor();
      const newTime = (await slots.getByRole('button').first().textContent()) ?? '';
      await page.screenshot({ path: 'test/artifacts/dashboard-reschedule.png', fullPage: true });
      await slots.getByRole('button').first().click();
      await row.getByTestId('reschedule').waitFor({ state: 'detached' });
      const moved = await rest(`/api/v2/bookings?status=active`);
      const movedBooking = moved.data.find((b: { id: string }) => b.id === booked!.id);
      expect(movedBooking.startAt).not.toBe(booked!.startAt);
      const shown = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: 'numeric', minute: '2-digit' }).format(
        new Date(movedBooking.startAt),
      );
      expect(shown).toBe(newTime);

      // Cancel with a reason.
      await row.getByRole('button', { name: 'Cancel booking' }).click();
      await row.getByLabel('Reason for canceling (optional)').fill('Host is travelling');
      await row.getByRole('button', { name: 'Confirm cancellation' }).click();
      await row.getByText('Canceled by the host: “Host is travelling”').waitFor();
      const canceled = (await rest('/api/v2/bookings?status=canceled')).data as { id: string; cancelReason: string; canceledBy: string }[];
      expect(canceled).toEqual([expect.objectContaining({ id: booked!.id, cancelReason: 'Host is travelling', canceledBy: 'host' })]);

      // Filter by event type and status.
      await page.getByLabel('Event type').selectOption({ label: 'Strategy session' });
      await row.waitFor();
      await page.getByLabel('Status').selectOption('active');
      await page.getByTestId('bookings-empty').getByText('No bookings match these filters.').waitFor();

      // Developer settings with a token and an OAuth app listed fit a phone too.
      await createClient(t.em(), host.id, { name: 'Acme CRM with a fairly long application name' });
      await openPage('Developer settings');
      await page.getByTestId('tokens-table').getByText('check').waitFor();
      await expectFitsPhone('dashboard-developer-settings-team');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'lets a Pro host mark a past booking as a no-show and back, change a lead’s status, edit the schedule and find contacts',
    async () => {
      const host = await createPasswordUser(t.em(), { plan: 'pro', name: 'Pia Pro', timezone: 'Asia/Tokyo' });
      const eventType = await createEventType(t.em(), host.id, { name: 'Office hours' });
      const past = await createBooking(t.em(), {
        eventType,
        startAt: new Date(Date.now() - 3 * 86_400_000),
        invitee: { name: 'Paula Past', email: 'paula.past@example.test' },
      });
      await createLead(t.em(), { eventType, name: 'Leo Lead', email: 'leo.lead@example.test' });
      await signIn(host);

      await page.getByRole('button', { name: 'Past' }).click();
      const row = page.getByTestId('booking').filter({ hasText: 'Paula Past' });
      await row.getByRole('button', { name: 'Mark as no-show' }).click();
      await row.getByText('No-show', { exact: true }).waitFor();
      const noShows = async () =>
        (await t.em().execute<{ no_show: boolean }[]>('select no_show from booking where id = ?', [past.id]))[0]?.no_show;
      expect(await noShows()).toBe(true);
      await expectFitsPhone('dashboard-bookings-past');
      await row.getByRole('button', { name: 'Undo no-show' }).click();
      await row.getByRole('button', { name: 'Mark as no-show' }).waitFor();
      expect(await noShows()).toBe(false);

      await openPage('Leads');
      await page.getByLabel('Status of Leo Lead').selectOption('qualified');
      await expect
        .poll(async () => (await t.em().execute<{ status: string }[]>('select status from lead where owner_id = ?', [host.id]))[0]?.status)
        .toBe('qualified');
      await expectFitsPhone('dashboard-leads');

      await openPage('Availability');
      await page.getByText('Asia/Tokyo').first().waitFor();
      await page.getByRole('button', { name: 'Add hours on Saturday' }).click();
      await page.getByLabel('Saturday from').fill('10:00');
      await page.getByLabel('Saturday until').fill('12:30');
      await page.getByLabel('Date', { exact: true }).fill('2031-12-24');
      await page.getByRole('button', { name: 'Add override' }).click();
      await page.getByRole('button', { name: 'Save availability' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      const [schedule] = await t
        .em()
        .execute<{ weekly: { saturday: unknown[] }; overrides: unknown[] }[]>('select weekly, overrides from availability_schedule where user_id = ?', [host.id]);
      expect(schedule?.weekly.saturday).toEqual([{ start: '10:00', end: '12:30' }]);
      expect(schedule?.overrides).toEqual([{ date: '2031-12-24', intervals: [] }]);
      await expectFitsPhone('dashboard-availability');

      await openPage('Contacts');
      await page.getByLabel('Search by name or e-mail').fill('leo');
      await page.getByTestId('contacts-range').filter({ hasText: '1–1 of 1' }).waitFor();
      expect(await page.getByTestId('contact').textContent()).toContain('leo.lead@example.test');
      // Paging: 25 a page.
      for (let i = 0; i < 26; i++) await createLead(t.em(), { eventType, name: `Pager ${i}`, email: `pager.${i}@example.test` });
      await page.getByLabel('Search by name or e-mail').fill('pager.');
      await page.getByTestId('contacts-range').filter({ hasText: '1–25 of 26' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await page.getByTestId('contacts-range').filter({ hasText: '26–26 of 26' }).waitFor();
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous' }).click();
      await page.getByTestId('contacts-range').filter({ hasText: '1–25 of 26' }).waitFor();
      await expectFitsPhone('dashboard-contacts');

      await openPage('Developer settings');
      await page.getByTestId('plan-notice').waitFor();
      await expectFitsPhone('dashboard-developer-settings');
    },
    BROWSER_TEST_TIMEOUT,
  );
});
