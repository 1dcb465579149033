import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import ICAL from 'ical.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { embedSnippet } from '../../web/src/embed.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import {
  ARTIFACTS,
  BROWSER_TEST_TIMEOUT,
  type Browser,
  builtWebRoot,
  DESKTOP,
  launchBrowser,
  PHONE,
  screenshotBothWidths,
} from '../helpers/browser.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { startListeningApp } from '../oauth/support.ts';

const ALL_DAY = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

interface RestBooking { id: string; startAt: string; endAt: string; status: string; canceledBy: string | null; cancelReason: string | null }

/** The invitee's side in a real Chromium: confirmation links, the .ics, the private manage page, the embed. */
describe('invitee self-service in a browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let page: Page;
  let host: TestUser;
  let hostSlug: string;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser({ timezoneId: 'Europe/Berlin' });
    page = browser.page;
    host = await createUserWithToken(t.em(), { name: 'Hedda Host', timezone: 'UTC' });
    hostSlug = (await t.em().findOneOrFail(UserEntity, { id: host.id })).slug;
    await setSchedule(t.em(), host.id, EVERY_DAY);
    eventType = await createEventType(t.em(), host.id, { name: 'Strategy session', durationsMin: [30] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const bookingUrl = () => `${t.siteUrl}/book/${hostSlug}/${eventType.slug}`;
  const restBookings = async () =>
    (await t.http.get(`/api/v2/bookings?limit=100`).set(...bearer(host.token))).body.data as (RestBooking & { invitee: { email: string } })[];
  const bookingOf = async (email: string) => (await restBookings()).find((booking) => booking.invitee.email === email) as RestBooking;

  async function bookThroughThePage(email: string, slotIndex = 0): Promise<void> {
    await page.goto(bookingUrl());
    await page.getByTestId('slot').nth(slotIndex).click();
    await page.getByLabel('Name', { exact: true }).fill('Ida Invitee');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Confirm booking' }).click();
    await page.getByRole('heading', { name: 'You are booked' }).waitFor();
  }

  it(
    'confirms with add-to-calendar links and a private manage link; the .ics parses back to the booking',
    async () => {
      await bookThroughThePage('ida.ics@example.test');
      await page.getByTestId('add-to-calendar').waitFor();
      expect(await page.getByRole('link', { name: 'Google Calendar' }).getAttribute('href')).toMatch(/^https:\/\/calendar\.google\.com\//);
      expect(await page.getByRole('link', { name: 'Outlook' }).getAttribute('href')).toMatch(/^https:\/\/outlook\.live\.com\//);
      expect(await page.getByTestId('manage-link').getAttribute('href')).toMatch(new RegExp(`^${t.siteUrl}/book/manage/bkm_[a-z2-7]{59}$`));
      const { phoneScrollWidth } = await screenshotBothWidths(page, 'invitee-confirmation');
      expect(phoneScrollWidth).toBeLessThanOrEqual(390);

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('ics-link').click()]);
      const ics = readFileSync((await download.path()) as string, 'utf8');
      const calendar = new ICAL.Component(ICAL.parse(ics));
      const event = new ICAL.Event(calendar.getFirstSubcomponent('vevent') as ICAL.Component);
      const booking = await bookingOf('ida.ics@example.test');
      expect(event.startDate.toJSDate().toISOString()).toBe(booking.startAt);
      expect(event.endDate.toJSDate().toISOString()).toBe(booking.endAt);
      expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Berlin');
      expect(event.organizer).toBe(`mailto:${host.email}`);
      expect(event.summary).toBe('Strategy session with Hedda Host');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'reschedules, then cancels through the private link; REST shows the new time, then canceledBy: invitee',
    async () => {
      await bookThroughThePage('ida.manage@example.test');
      const manageUrl = (await page.getByTestId('manage-link').getAttribute('href')) as string;
      const before = await bookingOf('ida.manage@example.test');

      await page.goto(manageUrl);
      await page.getByRole('heading', { name: 'Your booking' }).waitFor();
      expect(await page.getByTestId('managed-status').textContent()).toBe('Confirmed');
      await screenshotBothWidths(page, 'invitee-manage');

      await page.getByRole('button', { name: 'Reschedule' }).click();
      await page.getByTestId('slot').nth(3).click();
      await page.getByRole('heading', { name: 'Move your booking?' }).waitFor();
      await screenshotBothWidths(page, 'invitee-manage-confirm-move');
      await page.getByRole('button', { name: 'Confirm new time' }).click();
      await page.getByRole('heading', { name: 'Your booking is moved' }).waitFor();
      const moved = await bookingOf('ida.manage@example.test');
      expect(moved).toMatchObject({ id: before.id, status: 'active' });
      expect(Date.parse(moved.startAt)).toBeGreaterThan(Date.parse(before.startAt));

      await page.goto(manageUrl);
      await page.getByLabel(/Reason for canceling/).fill('Double-booked on my side');
      await page.getByRole('button', { name: 'Cancel booking' }).click();
      await page.getByRole('heading', { name: 'Your booking is canceled' }).waitFor();
      expect(await page.getByTestId('managed-status').textContent()).toBe('Canceled by you');
      await screenshotBothWidths(page, 'invitee-manage-canceled');
      const rest = await t.http.get(`/api/v2/bookings/${before.id}`).set(...bearer(host.token));
      expect(rest.body).toMatchObject({ status: 'canceled', canceledBy: 'invitee', cancelReason: 'Double-booked on my side' });
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'keeps the week the invitee was on when their time was taken after the page showed it',
    async () => {
      await page.goto(bookingUrl());
      await page.getByTestId('slot').first().waitFor();
      await page.getByRole('button', { name: 'Next week' }).click();
      const week = page.getByTestId('week-label');
      const secondWeek = (await week.textContent()) ?? '';
      const slot = page.getByTestId('slot').first();
      await slot.waitFor();
      const start = await slot.getAttribute('data-start');
      // Someone else takes that very time while the page still shows it. (Once picked, the page holds it.)
      const taker = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(host.token))
        .send({ eventTypeId: eventType.id, start, durationMin: 30, invitee: { name: 'Quick', email: 'quick@example.test', timezone: 'UTC' } });
      expect(taker.status).toBe(201);
      await slot.click();
      await page.getByText('that time has just been taken').waitFor();
      expect(await week.textContent()).toBe(secondWeek);
      expect(await page.locator(`[data-start="${start}"]`).count()).toBe(0);
    },
    BROWSER_TEST_TIMEOUT,
  );

  describe('the embed on another site', () => {
    let hostSite: Server;
    let hostSiteUrl: string;

    beforeAll(async () => {
      const snippet = embedSnippet(bookingUrl(), t.siteUrl);
      hostSite = createServer((_request, response) => {
        response.setHeader('Content-Type', 'text/html; charset=utf-8');
        response.end(`<!doctype html><html><head><title>Acme</title></head><body style="font-family:sans-serif;margin:24px">
<h1>Acme Consulting</h1><p>Book a session with us below.</p>${snippet}<p>Footer of the host site</p></body></html>`);
      });
      await new Promise<void>((resolve) => hostSite.listen(0, 'localhost', resolve));
      hostSiteUrl = `http://localhost:${(hostSite.address() as AddressInfo).port}/`;
    });
    afterAll(async () => {
      // The browser still holds its keep-alive connections; close() alone would wait for them.
      hostSite.closeAllConnections();
      await new Promise<void>((resolve) => hostSite.close(() => resolve()));
    });

    it(
      'loads in an iframe of another origin and resizes it to the booking page’s height',
      async () => {
        expect(new URL(hostSiteUrl).origin).not.toBe(new URL(t.siteUrl).origin);
        await page.goto(hostSiteUrl);
        const iframe = page.locator('iframe[title="Booking page"]');
        await iframe.waitFor();
        expect(await iframe.getAttribute('src')).toBe(`${bookingUrl()}?embed=1`);
        const frame = page.frameLocator('iframe[title="Booking page"]');
        await frame.getByTestId('slot').first().waitFor();
        const contentHeight = async () => frame.locator('#root').evaluate((root) => Math.ceil(root.getBoundingClientRect().height));
        const fitsContent = () =>
          expect
            .poll(async () => Math.abs((await iframe.evaluate((element) => element.clientHeight)) - (await contentHeight())), { timeout: 10_000 })
            .toBeLessThanOrEqual(1);
        await fitsContent();
        expect(await iframe.evaluate((element) => element.style.height)).not.toBe('640px');
        expect(await frame.getByText('Powered by Scheduling').isVisible()).toBe(false);
        await page.screenshot({ path: path.join(ARTIFACTS, 'invitee-embed.png'), fullPage: true });
        // At phone width the content is taller, and the frame follows.
        const desktopHeight = await iframe.evaluate((element) => element.clientHeight);
        await page.setViewportSize(PHONE);
        await fitsContent();
        expect(await iframe.evaluate((element) => element.clientHeight)).toBeGreaterThan(desktopHeight);
        await page.screenshot({ path: path.join(ARTIFACTS, 'invitee-embed-390.png'), fullPage: true });
        await page.setViewportSize(DESKTOP);
        await fitsContent();
        // The frame follows its content: opening the details form changes the height again.
        const before = await iframe.evaluate((element) => element.clientHeight);
        await frame.getByTestId('slot').first().click();
        await frame.getByRole('heading', { name: 'Your details' }).waitFor();
        await expect.poll(async () => iframe.evaluate((element) => element.clientHeight), { timeout: 10_000 }).not.toBe(before);
        await screenshotBothWidths(page, 'invitee-embed-details');
      },
      BROWSER_TEST_TIMEOUT,
    );
  });
});
