import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, builtWebRoot, launchBrowser } from '../helpers/browser.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';
import { expectFitsPhone, signInThroughPage } from './support.ts';

const ALL_DAY = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

/** Each locale: the booking card's time (14:30 UTC), the 14:00 UTC slot on the booking page, an override's weekday. */
const LOCALES = [
  { locale: 'en-US', bookingTime: /\b2:30\sPM\b/, slotTime: /^2:00\sPM$/, override: /^Wed, Dec 24, 2031$/ },
  { locale: 'en-GB', bookingTime: /\b14:30\b/, slotTime: /^14:00$/, override: /^Wed,? 24 Dec 2031$/ },
  { locale: 'de-DE', bookingTime: /\b14:30\b/, slotTime: /^14:00$/, override: /^Mi\.?, 24\. Dez\.? 2031$/ },
] as const;

/** One way of writing dates and times across the dashboard and the invitee pages: the browser's locale's. */
describe('dates and times in the browser’s locale', () => {
  let t: TestApp & { siteUrl: string };
  let host: PasswordUser;
  let eventType: TestEventType;
  let bookingUrl: string;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    host = await createPasswordUser(t.em(), { name: 'Lena Locale', timezone: 'UTC' });
    await setSchedule(t.em(), host.id, EVERY_DAY, [{ date: '2031-12-24', intervals: [] }]);
    eventType = await createEventType(t.em(), host.id, { name: 'Intro call', durationsMin: [30] });
    await createBooking(t.em(), { eventType, startAt: '2031-03-04T14:30:00Z', invitee: { name: 'Tim Time' } });
    bookingUrl = `${t.siteUrl}/book/${(await t.em().findOneOrFail(UserEntity, { id: host.id })).slug}/${eventType.slug}`;
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  for (const expected of LOCALES) {
    it(
      `writes ${expected.locale} times and dates on the dashboard and the booking page`,
      async () => {
        const browser = await launchBrowser({ locale: expected.locale, timezoneId: 'UTC' });
        const { context, page } = browser;
        try {
          await signInThroughPage(context, page, t.siteUrl, host, '/app/bookings');
          const card = page.getByTestId('booking').filter({ hasText: 'Tim Time' });
          const when = (await card.getByRole('heading').innerText()).trim();
          expect(when).toMatch(expected.bookingTime);
          if (expected.locale !== 'en-US') expect(when).not.toMatch(/AM|PM/i);
          await expectFitsPhone(page, `locale-${expected.locale}-bookings`);

          await page.goto(`${t.siteUrl}/app/availability`);
          const override = page.getByRole('group', { name: expected.override });
          await override.waitFor();
          expect(await override.innerText()).toContain('Unavailable all day');
          await expectFitsPhone(page, `locale-${expected.locale}-availability`);

          // Next week has every day's slots, 14:00 among them (the visitor's zone is UTC, as the host's).
          await page.goto(bookingUrl);
          await page.getByTestId('slot').first().waitFor();
          await page.getByRole('button', { name: 'Next week' }).click();
          const slot = page.locator('[data-testid="slot"][data-start*="T14:00:00"]').first();
          await slot.waitFor();
          expect((await slot.innerText()).trim()).toMatch(expected.slotTime);
          await expectFitsPhone(page, `locale-${expected.locale}-booking-page`);
        } finally {
          await browser.close();
        }
      },
      BROWSER_TEST_TIMEOUT,
    );
  }
});
