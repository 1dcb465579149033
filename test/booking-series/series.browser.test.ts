import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { invitee, setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';

const HOURS = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: HOURS, tuesday: HOURS, wednesday: HOURS, thursday: HOURS, friday: HOURS, saturday: HOURS, sunday: HOURS };
const WEEK = 7 * 86_400_000;

/** An invitee books a weekly series on the public page; the host sees it as one in the dashboard and cancels it. */
describe('booking series in a browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let host: PasswordUser;
  let token: string;
  let bookingUrl: string;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser({ timezoneId: 'Europe/Berlin' });
    ({ context, page } = browser);
    host = await createPasswordUser(t.em(), { name: 'Sasha Series', timezone: 'UTC' });
    ({ token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES }));
    await setSchedule(t.em(), host.id, EVERY_DAY);
    eventType = await createEventType(t.em(), host.id, { name: 'Weekly coaching', durationsMin: [30], recurrence: { maxCount: 8 } });
    const slug = (await t.em().findOneOrFail(UserEntity, { id: host.id })).slug;
    bookingUrl = `${t.siteUrl}/book/${slug}/${eventType.slug}`;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const restSeries = async (id: string) => (await t.http.get(`/api/v2/booking-series/${id}`).set(...bearer(token))).body;
  const liveHolds = async () =>
    (await t.em().execute<{ n: number }[]>('select count(*)::int as n from slot_hold where event_type_id = ? and expires_at > now()', [eventType.id]))[0]!.n;

  /** Picks the first offered slot and fills in the details; returns the slot's start. */
  async function pickAndFill(email: string): Promise<string> {
    await page.goto(bookingUrl);
    const slot = page.getByTestId('slot').first();
    await slot.waitFor();
    const start = (await slot.getAttribute('data-start')) as string;
    await slot.click();
    // The page holds the picked time: the series is booked with that hold.
    await page.getByTestId('hold-notice').getByText('reserved for you until').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Rhea Repeat');
    await page.getByLabel('E-mail').fill(email);
    return start;
  }

  it(
    'the invitee repeats weekly, four times: the confirmation lists every date, each its own booking of one series',
    async () => {
      const start = await pickAndFill('rhea@example.test');
      const repeat = page.getByTestId('repeat');
      expect(await repeat.getByLabel('How often').inputValue()).toBe('none');
      await repeat.getByLabel('How often').selectOption('weekly');
      await repeat.getByLabel('Times').selectOption('4');
      // The event type's longest series bounds the choice.
      expect(await repeat.getByLabel('Times').locator('option').allTextContents()).toEqual(['2 times', '3 times', '4 times', '5 times', '6 times', '7 times', '8 times']);
      await screenshotBothWidths(page, 'series-details');
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByRole('heading', { name: 'Your series is booked' }).waitFor();
      const dates = page.getByTestId('series-dates').locator('li');
      expect(await dates.count()).toBe(4);
      expect(await page.getByTestId('series-confirmation').textContent()).toContain('Every week, 4 times');
      const { phoneScrollWidth } = await screenshotBothWidths(page, 'series-confirmation');
      expect(phoneScrollWidth).toBeLessThanOrEqual(390);

      const manage = await page.getByTestId('series-dates').getByRole('link', { name: 'Cancel or reschedule' }).evaluateAll((links) => links.map((link) => link.getAttribute('href')));
      expect(new Set(manage).size).toBe(4);
      const listed = (await t.http.get('/api/v2/bookings').query({ order: 'asc' }).set(...bearer(token))).body.data as { startAt: string; seriesId: string }[];
      expect(listed.map((booking) => booking.startAt)).toEqual([0, 1, 2, 3].map((i) => new Date(Date.parse(start) + i * WEEK).toISOString()));
      const series = await restSeries(listed[0]!.seriesId);
      expect(series).toMatchObject({ recurrence: { frequency: 'weekly', interval: 1, count: 4 }, eventType: { id: eventType.id } });
      // Booking the series with the hold ended it.
      expect(await liveHolds()).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'a series with a taken date books nothing and says which date and why',
    async () => {
      const start = await pickAndFill('theo@example.test');
      const taken = new Date(Date.parse(start) + WEEK).toISOString();
      const single = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(token))
        .send({ eventTypeId: eventType.id, start: taken, durationMin: 30, invitee: invitee() });
      expect(single.status).toBe(201);
      await page.getByTestId('repeat').getByLabel('How often').selectOption('weekly');
      await page.getByTestId('repeat').getByLabel('Times').selectOption('3');
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      const problems = page.getByTestId('series-problems').locator('li');
      await problems.first().waitFor();
      expect(await problems.count()).toBe(1);
      expect(await problems.first().textContent()).toContain('The host already has a booking at that time.');
      await screenshotBothWidths(page, 'series-conflict');
      const theirs = (await t.http.get('/api/v2/bookings').query({ limit: 100 }).set(...bearer(token))).body.data as { invitee: { email: string } }[];
      expect(theirs.filter((booking) => booking.invitee.email === 'theo@example.test')).toEqual([]);
      // The refused series left the picked time held for the invitee, who may change the repeat and try again.
      expect(await liveHolds()).toBe(1);
      expect(await page.getByTestId('hold-notice').textContent()).toContain('reserved for you until');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'the host sees the series as one, with its occurrences, and cancels it from the bookings list',
    async () => {
      await context.clearCookies();
      await page.goto(`${t.siteUrl}/app/bookings`);
      await page.waitForURL(/\/login\?next=/);
      await page.getByLabel('E-mail address').fill(host.email);
      await page.getByLabel('Password').fill(host.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const group = page.getByTestId('booking-series');
      await group.waitFor();
      expect(await group.getByTestId('series-count').textContent()).toBe('4 occurrences');
      // The single booking stays a row of its own beside the series.
      expect(await page.getByTestId('bookings').getByTestId('booking').count()).toBe(1);
      await group.getByRole('button', { name: 'Show dates' }).click();
      expect(await group.getByTestId('booking').count()).toBe(4);
      await screenshotBothWidths(page, 'dashboard-series');

      await group.getByRole('button', { name: 'Cancel series' }).click();
      await group.getByLabel('Reason for canceling (optional)').fill('Coaching ends');
      await group.getByRole('button', { name: 'Cancel the series' }).click();
      await group.getByRole('button', { name: 'Cancel series' }).waitFor({ state: 'detached' });
      await group.getByText('Canceled by the host: “Coaching ends”').first().waitFor();
      const seriesId = (await t.em().execute<{ id: string }[]>('select id from booking_series where owner_id = ?', [host.id]))[0]!.id;
      const series = await restSeries(seriesId);
      expect(series.bookings.map((booking: { status: string }) => booking.status)).toEqual(['canceled', 'canceled', 'canceled', 'canceled']);
      await screenshotBothWidths(page, 'dashboard-series-canceled');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'a series of requests is one entry in "To confirm": Confirm all confirms every occurrence, Decline all declines them',
    async () => {
      const requests = await createEventType(t.em(), host.id, { name: 'Mentoring', durationsMin: [30], requiresConfirmation: true, recurrence: { maxCount: 8 } });
      const day = new Date(Date.now() + 10 * 86_400_000);
      const ids: string[] = [];
      for (const hour of [15, 17]) {
        day.setUTCHours(hour, 0, 0, 0);
        const res = await t.http
          .post('/api/v2/booking-series')
          .set(...bearer(token))
          .send({ eventTypeId: requests.id, startAt: day.toISOString(), durationMin: 30, invitee: invitee(), recurrence: { frequency: 'weekly', interval: 1, count: 3 } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.id);
      }
      await page.goto(`${t.siteUrl}/app/bookings`);
      const toConfirm = page.getByTestId('to-confirm');
      const groups = toConfirm.getByTestId('pending-series');
      await groups.nth(1).waitFor();
      expect(await groups.count()).toBe(2);
      expect(await groups.first().getByTestId('series-count').textContent()).toBe('3 to confirm');
      // Each date can still be decided alone.
      await groups.first().getByRole('button', { name: 'Show dates' }).click();
      expect(await groups.first().getByRole('button', { name: 'Confirm', exact: true }).count()).toBe(3);
      await screenshotBothWidths(page, 'dashboard-series-to-confirm');

      await groups.first().getByRole('button', { name: 'Confirm all' }).click();
      await groups.nth(1).waitFor({ state: 'detached' });
      expect((await restSeries(ids[0]!)).bookings.map((booking: { status: string }) => booking.status)).toEqual(['active', 'active', 'active']);

      await groups.first().getByRole('button', { name: 'Decline all' }).click();
      await groups.first().getByLabel('Reason for declining (optional)').fill('Fully booked');
      await groups.first().getByRole('button', { name: 'Decline the series' }).click();
      await toConfirm.waitFor({ state: 'detached' });
      const declined = await restSeries(ids[1]!);
      expect(declined.bookings.map((booking: { status: string; declineReason: string }) => [booking.status, booking.declineReason])).toEqual(
        Array(3).fill(['declined', 'Fully booked']),
      );
    },
    BROWSER_TEST_TIMEOUT,
  );
});
