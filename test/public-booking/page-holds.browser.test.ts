import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshot, screenshotBothWidths } from '../helpers/browser.ts';
import { createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { startListeningApp } from '../oauth/support.ts';

const ALL_DAY = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

/** Two invitees in two real Chromium profiles: the one who picked a time holds it while the other cannot take it. */
describe('slot holds on the booking page', () => {
  let t: TestApp & { siteUrl: string };
  let first: Browser;
  let second: Browser;
  let host: TestUser;
  let hostSlug: string;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot(), publicRateLimitPerMinute: 10_000 });
    [first, second] = await Promise.all([launchBrowser({ timezoneId: 'Europe/Berlin' }), launchBrowser({ timezoneId: 'Europe/Berlin' })]);
    host = await createUserWithToken(t.em(), { name: 'Hanna Host', timezone: 'UTC' });
    hostSlug = (await t.em().findOneOrFail(UserEntity, { id: host.id })).slug;
    await setSchedule(t.em(), host.id, EVERY_DAY);
    eventType = await createEventType(t.em(), host.id, { name: 'Portfolio review', durationsMin: [30] });
  }, 180_000);

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await t?.close();
  });

  const bookingUrl = () => `${t.siteUrl}/book/${hostSlug}/${eventType.slug}`;
  const slotAt = (page: Page, start: string) => page.locator(`[data-testid="slot"][data-start="${start}"]`);
  const liveHolds = async () =>
    (await t.em().execute<{ n: number }[]>('select count(*)::int as n from slot_hold where event_type_id = ? and expires_at > now()', [eventType.id]))[0]!.n;

  it(
    'holds the picked time while the invitee fills in the form; another browser cannot pick it until it is let go',
    async () => {
      const a = first.page;
      const b = second.page;
      await Promise.all([a.goto(bookingUrl()), b.goto(bookingUrl())]);
      const firstSlot = a.getByTestId('slot').first();
      await firstSlot.waitFor();
      const start = (await firstSlot.getAttribute('data-start')) as string;
      await slotAt(b, start).waitFor();

      // The first invitee picks the time: the page holds it and says until when.
      await firstSlot.click();
      await a.getByRole('heading', { name: 'Your details' }).waitFor();
      const notice = a.getByTestId('hold-notice');
      await notice.getByText('reserved for you until').waitFor();
      expect(await notice.textContent()).toMatch(/reserved for you until \d{1,2}:\d{2}/);
      expect(await liveHolds()).toBe(1);
      await a.getByLabel('Name', { exact: true }).fill('Alma Early');
      await a.getByLabel('E-mail').fill('alma.early@example.test');
      const { phoneScrollWidth } = await screenshotBothWidths(a, 'page-hold-details');
      expect(phoneScrollWidth).toBeLessThanOrEqual(390);

      // The second browser still shows the time from before: picking it now says it was taken, and it is gone.
      await slotAt(b, start).click();
      await b.getByText('that time has just been taken').waitFor();
      await b.getByTestId('slot').first().waitFor();
      expect(await slotAt(b, start).count()).toBe(0);
      await screenshot(b, 'page-hold-second-browser');
      // Loaded afresh, the page does not offer it either.
      await b.reload();
      await b.getByTestId('slot').first().waitFor();
      expect(await slotAt(b, start).count()).toBe(0);

      // The first invitee goes back: the hold is let go, and the second browser can have the time.
      await a.getByRole('button', { name: 'Pick another time' }).click();
      await a.getByTestId('slot').first().waitFor();
      await expect.poll(liveHolds).toBe(0);
      await b.reload();
      await slotAt(b, start).click();
      await b.getByTestId('hold-notice').getByText('reserved for you until').waitFor();
      await b.getByLabel('Name', { exact: true }).fill('Bo Second');
      await b.getByLabel('E-mail').fill('bo.second@example.test');
      await b.getByRole('button', { name: 'Confirm booking' }).click();
      await b.getByRole('heading', { name: 'You are booked' }).waitFor();
      await screenshot(b, 'page-hold-booked');

      const [row] = await t.em().execute<{ n: number; email: string }[]>(
        `select count(*)::int as n, min(invitee_email) as email from booking where event_type_id = ? and start_at = ?`,
        [eventType.id, start],
      );
      expect(row).toEqual({ n: 1, email: 'bo.second@example.test' });
      // Booking with the hold ended it; its time is the booking's own.
      expect(await liveHolds()).toBe(0);
      const blocks = await t.em().execute('select id from busy_block where hold_id is not null and event_type_id = ?', [eventType.id]);
      expect(blocks).toEqual([]);
      // And the first browser no longer offers that time.
      await a.reload();
      await a.getByTestId('slot').first().waitFor();
      expect(await slotAt(a, start).count()).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
