import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { UserEntity } from '../../src/identity/user.entity.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';
import { expectFitsPhone, signInThroughPage } from './support.ts';

const ALL_DAY = [{ start: '08:00', end: '20:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const OFFICE = 'Torstraße 1\n10119 Berlin';
const LINK = 'https://meet.example.com/hanna-host-with-a-rather-long-room-name';
const DESCRIPTION = 'A first conversation about your project.\nBring your questions, and the plan if you have one.';

/** Where the meeting happens: the host edits it on the event type, the invitee chooses, both see the booking's place. */
describe('where the meeting happens, in the browser', () => {
  let t: TestApp & { siteUrl: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let host: PasswordUser;
  let token: string;
  let hostSlug: string;
  let eventType: TestEventType;

  beforeAll(async () => {
    t = await startListeningApp({ webRoot: builtWebRoot() });
    browser = await launchBrowser();
    ({ context, page } = browser);
    host = await createPasswordUser(t.em(), { name: 'Hanna Host', timezone: 'UTC' });
    hostSlug = (await t.em().findOneOrFail(UserEntity, { id: host.id })).slug;
    token = (await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES })).token;
    await setSchedule(t.em(), host.id, EVERY_DAY);
    eventType = await createEventType(t.em(), host.id, { name: 'Strategy session', durationsMin: [30] });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const readEventType = async () => (await t.http.get(`/api/v2/event-types/${eventType.id}`).set(...bearer(token))).body;

  it(
    'the event type editor writes a description and places: an address, a link, a call to the invitee',
    async () => {
      await signInThroughPage(context, page, t.siteUrl, host, '/app/event-types');
      await page.getByRole('button', { name: 'Edit Strategy session' }).click();
      const form = page.getByRole('form', { name: 'Edit Strategy session' });
      await form.getByLabel(/Description/).fill(DESCRIPTION);
      const places = form.getByRole('group', { name: 'Where the meeting happens' });
      expect(await places.getByText('No place yet').count()).toBe(1);

      await places.getByRole('button', { name: 'Add a place' }).click();
      await places.getByTestId('location').nth(0).getByLabel('Address').fill(OFFICE.replace('\n', ', '));
      await places.getByRole('button', { name: 'Add a place' }).click();
      await places.getByTestId('location').nth(1).getByLabel('Kind').selectOption('link');
      await places.getByTestId('location').nth(1).getByLabel('Meeting link').fill('http://not-secure.example.com');
      await places.getByRole('button', { name: 'Add a place' }).click();
      await places.getByTestId('location').nth(2).getByLabel('Kind').selectOption('invitee_phone');
      expect(await places.getByText('The invitee chooses one of these places when booking.').count()).toBe(1);

      // The server's word on a bad link is shown, and nothing is saved.
      await form.getByRole('button', { name: 'Save changes' }).click();
      await form.getByText(/locations\.1\.url/).waitFor();
      expect((await readEventType()).locations).toEqual([]);
      await expectFitsPhone(page, 'locations-editor');

      await places.getByTestId('location').nth(1).getByLabel('Meeting link').fill(LINK);
      await form.getByRole('button', { name: 'Save changes' }).click();
      await form.waitFor({ state: 'detached' });
      const saved = await readEventType();
      expect(saved.description).toBe(DESCRIPTION);
      expect(saved.locations).toEqual([
        { kind: 'in_person', address: 'Torstraße 1, 10119 Berlin' },
        { kind: 'link', url: LINK },
        { kind: 'invitee_phone' },
      ]);
      expect(await page.getByTestId('event-type-places').innerText()).toBe('Where: In person, Online, Phone (you call)');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'the booking page shows the description and the places; the invitee chooses one, and sees it booked',
    async () => {
      await t.http
        .patch(`/api/v2/event-types/${eventType.id}`)
        .set(...bearer(token))
        .send({ description: DESCRIPTION, locations: [{ kind: 'in_person', address: OFFICE }, { kind: 'link', url: LINK }, { kind: 'invitee_phone' }] });
      await page.goto(`${t.siteUrl}/book/${hostSlug}/${eventType.slug}`);
      expect(await page.getByTestId('event-description').innerText()).toBe(DESCRIPTION);
      expect(await page.getByTestId('event-places').innerText()).toBe('In person · Online meeting · Phone call');
      await page.getByTestId('slot').first().click();
      await page.getByLabel('Name', { exact: true }).fill('Ida Invitee');
      await page.getByLabel('E-mail').fill('ida.places@example.test');

      // Several places: the invitee must choose; the host's link is not shown before booking.
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByText('Choose where to meet.').waitFor();
      expect(await page.getByText(LINK).count()).toBe(0);
      await page.getByRole('radio', { name: /Hanna Host calls you/ }).check();
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByText('Enter the number to call you at.').waitFor();
      await page.getByLabel('Your phone number').fill('+351 912 345 678');
      await expectFitsPhone(page, 'locations-booking-choice');

      await page.getByRole('radio', { name: /Online meeting/ }).check();
      expect(await page.getByLabel('Your phone number').count()).toBe(0);
      await page.getByRole('button', { name: 'Confirm booking' }).click();
      await page.getByRole('heading', { name: 'You are booked' }).waitFor();
      const where = page.getByTestId('booking-confirmation').getByTestId('booking-where');
      expect(await where.innerText()).toBe(`Online: ${LINK}`);
      expect(await where.getByRole('link').getAttribute('href')).toBe(LINK);
      await expectFitsPhone(page, 'locations-booked');

      const manage = (await page.getByTestId('manage-link').getAttribute('href')) as string;
      await page.goto(manage);
      await page.getByRole('heading', { name: 'Your booking' }).waitFor();
      expect(await page.getByTestId('booking-where').innerText()).toBe(`Online: ${LINK}`);
      await expectFitsPhone(page, 'locations-manage');
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'the host’s booking card says where, with the number to call',
    async () => {
      const from = new Date(Date.now() + 86_400_000);
      const slots = await t.http
        .get('/api/v2/availability')
        .query({ eventTypeId: eventType.id, from: from.toISOString(), to: new Date(from.getTime() + 7 * 86_400_000).toISOString() })
        .set(...bearer(token));
      const created = await t.http
        .post('/api/v2/bookings')
        .set(...bearer(token))
        .send({
          eventTypeId: eventType.id,
          start: slots.body.data[5].start,
          durationMin: 30,
          invitee: { name: 'Paula Phone', email: 'paula.phone@example.test', timezone: 'Europe/Lisbon' },
          location: { kind: 'invitee_phone', value: '+351 912 345 678' },
        });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await signInThroughPage(context, page, t.siteUrl, host, '/app/bookings');
      const card = page.getByTestId('booking').filter({ hasText: 'Paula Phone' });
      const where = card.getByTestId('booking-where');
      await where.waitFor();
      expect(await where.innerText()).toBe('Phone: Call Paula Phone at +351 912 345 678');
      expect(await where.getByRole('link').getAttribute('href')).toBe('tel:+351912345678');
      const online = page.getByTestId('booking').filter({ hasText: 'Ida Invitee' }).getByTestId('booking-where');
      expect(await online.innerText()).toBe(`Online: ${LINK}`);
      await expectFitsPhone(page, 'locations-booking-card');
    },
    BROWSER_TEST_TIMEOUT,
  );
});
