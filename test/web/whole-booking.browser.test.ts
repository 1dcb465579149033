import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, createLead, type TestEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';
import { expectFitsPhone, signInThroughPage } from './support.ts';

const ALL_DAY = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const DAY_MS = 86_400_000;

/** What a host sees of a booking and of a person, and what an invitee who canceled can do next. */
describe('the whole booking in view', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let host: PasswordUser;
  let token: string;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser();
    ({ context, page } = browser);
    host = await createPasswordUser(t.em(), { name: 'Hanna Host', timezone: 'UTC' });
    token = (await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES })).token;
    await setSchedule(t.em(), host.id, EVERY_DAY);
    eventType = await createEventType(t.em(), host.id, { name: 'Strategy session', durationsMin: [30] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'shows the invitee’s notes, answers and guests on the host’s booking card',
    async () => {
      const from = new Date(Date.now() + DAY_MS);
      const slots = await t.http
        .get('/api/v2/availability')
        .query({ eventTypeId: eventType.id, from: from.toISOString(), to: new Date(from.getTime() + 7 * DAY_MS).toISOString() })
        .set(...bearer(token));
      const start = (slots.body.data as { start: string }[])[0]?.start;
      const created = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(token))
        .send({
          eventTypeId: eventType.id,
          start,
          durationMin: 30,
          invitee: { name: 'Nadia Notes', email: 'nadia.notes@example.test', timezone: 'Europe/Lisbon' },
          notes: 'We would like to talk about the Q1 plan.\nAnd the hiring budget.',
          answers: [
            { questionId: 'company_size', value: '50–200 people' },
            { questionId: 'referral', value: 'A friend' },
          ],
          guests: ['rui.guest@example.test', 'a.very.long.guest.address.that.must.wrap@subdomain.example.test'],
        });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      // A booking with nothing written shows no details at all.
      await createBooking(t.em(), { eventType, startAt: new Date(Date.now() + 9 * DAY_MS), invitee: { name: 'Quiet Quinn' } });

      await signInThroughPage(context, page, t.siteUrl, host, '/app/bookings');
      const card = page.getByTestId('booking').filter({ hasText: 'Nadia Notes' });
      const details = card.getByTestId('booking-details');
      await details.waitFor();
      expect(await card.getByTestId('booking-notes').innerText()).toBe('We would like to talk about the Q1 plan.\nAnd the hiring budget.');
      const terms = await details.locator('dt').allInnerTexts();
      const values = await details.locator('dd').allInnerTexts();
      expect(terms).toEqual(['Notes', 'Company size', 'Referral', 'Guests']);
      expect(values.slice(1, 3)).toEqual(['50–200 people', 'A friend']);
      expect(await card.getByRole('list', { name: 'Guests' }).getByRole('listitem').allInnerTexts()).toEqual([
        'rui.guest@example.test',
        'a.very.long.guest.address.that.must.wrap@subdomain.example.test',
      ]);
      const quiet = page.getByTestId('booking').filter({ hasText: 'Quiet Quinn' });
      await quiet.waitFor();
      expect(await quiet.getByTestId('booking-details').count()).toBe(0);
      await expectFitsPhone(page, 'whole-booking-card');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'opens a contact to their history: bookings, lead events, and back to the list as it was',
    async () => {
      const person = { name: 'Cora Contact', email: 'Cora.Contact@example.test' };
      await createLead(t.em(), { eventType, email: 'cora.contact@example.test', name: 'Cora', status: 'contacted', createdAt: new Date(Date.now() - 20 * DAY_MS) });
      await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - 10 * DAY_MS), invitee: person, noShow: true });
      await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - 5 * DAY_MS), invitee: person, status: 'canceled' });
      await createBooking(t.em(), { eventType, startAt: new Date(Date.now() + 3 * DAY_MS), invitee: { ...person, email: 'CORA.contact@example.test' } });
      await createLead(t.em(), { eventType, email: 'someone.else@example.test', name: 'Sam Else' });

      await signInThroughPage(context, page, t.siteUrl, host, '/app/contacts');
      await page.getByLabel('Search by name or e-mail').fill('cora');
      await page.getByTestId('contacts-range').filter({ hasText: '1–1 of 1' }).waitFor();
      await page.getByRole('link', { name: 'Cora Contact' }).click();

      await page.waitForURL(`${t.siteUrl}/app/contacts/CORA.contact%40example.test`);
      const heading = page.getByRole('heading', { level: 1, name: 'Cora Contact' });
      await heading.waitFor();
      expect(await heading.evaluate((element) => element === document.activeElement)).toBe(true);
      const summary = page.getByTestId('contact-summary');
      expect(await summary.innerText()).toMatch(/Meetings\s+2\s+No-shows\s+1/);
      const bookings = page.getByTestId('contact-booking');
      expect(await bookings.count()).toBe(3);
      // Latest start first: the upcoming one, the canceled one, the no-show.
      expect(await bookings.nth(0).getByText('Upcoming').count()).toBe(1);
      expect(await bookings.nth(1).getByText('Canceled by the invitee').count()).toBe(1);
      expect(await bookings.nth(2).getByText('No-show').count()).toBe(1);
      const leads = page.getByTestId('contact-lead');
      expect(await leads.count()).toBe(1);
      expect(await leads.innerText()).toContain('Left their details for Strategy session');
      expect(await leads.innerText()).toContain('Contacted');
      await expectFitsPhone(page, 'contact-history');

      // Back to the list, still searching for Cora; the browser's back button works too.
      await page.getByRole('link', { name: 'All contacts' }).click();
      await page.getByRole('heading', { level: 1, name: 'Contacts' }).waitFor();
      expect(await page.getByLabel('Search by name or e-mail').inputValue()).toBe('cora');
      await page.getByTestId('contacts-range').filter({ hasText: '1–1 of 1' }).waitFor();
      await page.goBack();
      await heading.waitFor();

      // An address that is nobody's contact says so.
      await page.goto(`${t.siteUrl}/app/contacts/${encodeURIComponent('nobody@example.test')}`);
      await page.getByTestId('contact-missing').getByRole('heading', { name: 'No such contact' }).waitFor();
      await expectFitsPhone(page, 'contact-history-missing');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'offers the invitee who canceled to book again, on the event type’s booking page',
    async () => {
      const hostSlug = (await t.em().findOneOrFail(UserEntity, { id: host.id })).slug;
      const bookingUrl = `${t.siteUrl}/book/${hostSlug}/${eventType.slug}`;
      await context.clearCookies();
      await page.goto(bookingUrl);
      await page.getByTestId('slot').first().click();
      await page.getByLabel('Name', { exact: true }).fill('Ivo Invitee');
      await page.getByLabel('E-mail').fill('ivo.again@example.test');
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByRole('heading', { name: 'You are booked' }).waitFor();
      const manageUrl = (await page.getByTestId('manage-link').getAttribute('href')) as string;

      await page.goto(manageUrl);
      await page.getByRole('heading', { name: 'Your booking' }).waitFor();
      expect(await page.getByTestId('book-again').count()).toBe(0);
      await page.getByRole('button', { name: 'Cancel booking' }).click();
      await page.getByRole('heading', { name: 'Your booking is canceled' }).waitFor();
      expect(await page.getByTestId('book-again').getAttribute('href')).toBe(bookingUrl);
      await expectFitsPhone(page, 'invitee-canceled-book-again');

      // Opening the link again later: the canceled booking, and the same offer.
      await page.goto(manageUrl);
      expect(await page.getByTestId('managed-status').textContent()).toBe('Canceled by you');
      const again = page.getByTestId('book-again');
      expect(await again.getAttribute('href')).toBe(bookingUrl);
      await expectFitsPhone(page, 'invitee-manage-canceled-book-again');
      await again.click();
      await page.waitForURL(bookingUrl);
      await page.getByTestId('slot').first().waitFor();
    },
    BROWSER_TEST_TIMEOUT,
  );
});
