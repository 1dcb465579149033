import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from '../helpers/app.ts';
import { BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, launchBrowser, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';
import { eventually, type MailServer, startMailServer } from '../booking-messages/support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };

/** A host with a password and a token, an event type, and one booking three days ahead with a guest. */
async function hostWithBooking(t: TestApp, guest: string): Promise<{ host: PasswordUser; bookingId: string; token: string; eventTypeId: string }> {
  const host = await createPasswordUser(t.em(), { name: 'Hana Host', timezone: 'Europe/Berlin' });
  await setSchedule(t.em(), host.id, EVERY_DAY);
  const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'test', scopes: ALL_SCOPES });
  const eventType = await t.http.post('/api/v2/event-types').set(...bearer(token)).send({ name: 'Consultation', durationsMin: [30] });
  const start = new Date(Math.ceil((Date.now() + 3 * 86_400_000) / 3_600_000) * 3_600_000).toISOString();
  const booking = await t.http
    .post('/api/v2/bookings')
    .set(...bearer(token))
    .send({ eventTypeId: eventType.body.id, start, durationMin: 30, invitee: { name: 'Ines', email: 'ines.browser@example.test', timezone: 'Europe/Lisbon' }, guests: [guest] });
  expect(booking.status).toBe(201);
  return { host, bookingId: booking.body.id, token, eventTypeId: eventType.body.id };
}

async function openBookingMail(browser: Browser, siteUrl: string, host: PasswordUser): Promise<void> {
  const { page, context } = browser;
  await context.clearCookies();
  await page.goto(`${siteUrl}/app`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByLabel('E-mail address').fill(host.email);
  await page.getByLabel('Password').fill(host.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('booking').first().waitFor();
  await page.getByTestId('booking').first().getByRole('button', { name: 'E-mails' }).click();
  await page.getByTestId('booking-messages').waitFor();
}

describe('a booking’s e-mail in the dashboard', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it(
    'without SMTP: the kept mail, each message readable as it would have gone out, invitation included',
    async () => {
      const t = await startListeningApp({ webRoot: builtWebRoot() });
      try {
        const { host, bookingId, token, eventTypeId } = await hostWithBooking(t, 'rui.browser@example.test');
        await eventually(async () => {
          const rows = await t.em().execute("select 1 from booking_message where booking_id = ? and status = 'skipped'", [bookingId]);
          return rows.length === 3 ? true : undefined;
        });
        await openBookingMail(browser, t.siteUrl, host);
        const { page } = browser;
        await page.getByTestId('kept-notice').waitFor();
        expect(await page.getByTestId('booking-message').count()).toBe(5);
        const first = page.getByTestId('booking-message').first();
        expect(await first.textContent()).toContain('ines.browser@example.test');
        await first.getByRole('button', { name: 'View' }).click();
        await page.getByTestId('message-content').waitFor();
        expect(await page.getByTestId('message-subject').textContent()).toBe('Confirmed: Consultation with Hana Host');
        await page.getByText('Invitation (invite.ics)').click();
        expect(await page.getByTestId('message-ics').textContent()).toContain('METHOD:REQUEST');
        const html = page.frameLocator('iframe[title^="HTML part"]');
        await html.getByText('Your meeting is booked').waitFor();
        const { phoneScrollWidth } = await screenshotBothWidths(page, 'dashboard-booking-kept-mail');
        expect(phoneScrollWidth).toBeLessThanOrEqual(390);

        // The event type's reminders are edited in the dashboard too.
        await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Event types', exact: true }).click();
        await page.getByRole('button', { name: 'Edit Consultation' }).click();
        const form = page.getByRole('form', { name: 'Edit Consultation' });
        await form.getByRole('button', { name: 'Add a reminder' }).click();
        const second = form.getByTestId('reminder').nth(1);
        await second.getByLabel('Minutes before').fill('30');
        await second.getByLabel('To').selectOption('host');
        await form.getByRole('button', { name: 'Save changes' }).click();
        await eventually(async () => {
          const res = await t.http.get(`/api/v2/event-types/${eventTypeId}`).set(...bearer(token));
          return res.body.reminders.length === 2 ? res.body.reminders : undefined;
        }).then((reminders) => expect(reminders).toEqual([{ offsetMin: 1440, to: 'invitee' }, { offsetMin: 30, to: 'host' }]));
      } finally {
        await t.close();
      }
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'with SMTP: a refused message shows the server’s reply and can be sent again',
    async () => {
      const refused = 'refused.browser@example.test';
      const mail: MailServer = await startMailServer({ refuseRecipient: (address) => (address === refused ? { code: 550, text: '5.1.1 Unknown user' } : undefined) });
      const t = await startListeningApp({ webRoot: builtWebRoot(), env: { SMTP_URL: mail.url } });
      try {
        const { host, bookingId } = await hostWithBooking(t, refused);
        await eventually(async () => {
          const rows = await t.em().execute("select 1 from booking_message where booking_id = ? and status in ('sent', 'failed')", [bookingId]);
          return rows.length === 3 ? true : undefined;
        });
        await openBookingMail(browser, t.siteUrl, host);
        const { page } = browser;
        const failed = page.getByTestId('booking-message').filter({ hasText: refused }).filter({ hasText: 'failed' });
        expect(await failed.textContent()).toContain('550 5.1.1 Unknown user');
        expect(await page.getByTestId('kept-notice').count()).toBe(0);
        const sent = page.getByTestId('booking-message').filter({ hasText: 'ines.browser@example.test' });
        const queueId = mail.received.find((received) => received.to.includes('ines.browser@example.test'))!.queueId;
        expect(await sent.getByTestId('server-reply').textContent()).toBe(` · the server answered 250 2.0.0 Ok: queued as ${queueId}`);
        await failed.getByRole('button', { name: 'Resend' }).click();
        await eventually(async () => ((await page.getByTestId('booking-message').count()) === 6 ? true : undefined));
        const resent = await t.em().execute<{ resent_from: string | null }[]>('select resent_from from booking_message where booking_id = ? and resent_from is not null', [bookingId]);
        expect(resent).toHaveLength(1);
        const { phoneScrollWidth } = await screenshotBothWidths(page, 'dashboard-booking-mail-failed');
        expect(phoneScrollWidth).toBeLessThanOrEqual(390);
      } finally {
        await t.close();
        await mail.close();
      }
    },
    BROWSER_TEST_TIMEOUT,
  );
});
