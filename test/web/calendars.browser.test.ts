import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../../src/identity/personal-access-tokens.ts';
import { ALL_SCOPES } from '../../src/identity/scopes.ts';
import { newId } from '../../src/lib/ids.ts';
import { mondayOf } from '../../web/src/dashboard/availability/week.ts';
import { formatDateTime } from '../../web/src/time.ts';
import { addDays, dateKey, type LocalDate, localDateOf, localInstant, weekdayIndex } from '../../web/src/time.ts';
import { type FeedHandler, startFeedServer } from '../calendars/feed-server.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType } from '../helpers/booking-factories.ts';
import { ARTIFACTS, BROWSER_TEST_TIMEOUT, type Browser, builtWebRoot, DESKTOP, launchBrowser, PHONE, screenshotBothWidths } from '../helpers/browser.ts';
import { bearer } from '../helpers/factories.ts';
import { createPasswordUser, type PasswordUser, startListeningApp } from '../oauth/support.ts';

const ZONE = 'Europe/Berlin';
/** A secret-looking feed path, as providers hand them out. */
const SECRET = 'private-4d1c8e2a9b7f3e5a';
const icsTime = (instant: number) => new Date(instant).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

function feed(events: [number, number][]): string {
  const body = events.map(
    ([start, end], i) =>
      `BEGIN:VEVENT\r\nUID:e${i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${icsTime(start)}\r\nDTEND:${icsTime(end)}\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n`,
  );
  return `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body.join('')}END:VCALENDAR\r\n`;
}

/** Serves a feed of `events`, after `delayMs` (so a test can see the connection pending first). */
function serveFeed(events: [number, number][], delayMs = 0): FeedHandler {
  return (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/calendar' }).end(feed(events)), delayMs);
  };
}

/** A weekday at least two days ahead in Berlin: its working hours are bookable whatever the time now. */
function bookableWeekday(): LocalDate {
  let day = addDays(localDateOf(Date.now(), ZONE), 2);
  while (weekdayIndex(day) > 4) day = addDays(day, 1);
  return day;
}

/** The Calendars page and the availability week in Chromium at 1280 and 390 px, against a local feed server. */
describe('connected calendars in the dashboard (browser)', () => {
  let t: TestApp & { siteUrl: string };
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    server = await startFeedServer();
    t = await startListeningApp({ webRoot: builtWebRoot(), env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' } });
    browser = await launchBrowser();
    ({ context, page } = browser);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await server?.close();
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

  async function expectFitsPhone(name: string): Promise<void> {
    const { phoneScrollWidth } = await screenshotBothWidths(page, name);
    expect(phoneScrollWidth, `${name} at 390 px`).toBeLessThanOrEqual(390);
  }

  async function hostWithToken(name: string) {
    const host = await createPasswordUser(t.em(), { plan: 'team', name, timezone: ZONE });
    const { token } = await createPersonalAccessToken(t.em(), { userId: host.id, name: 'check', scopes: ALL_SCOPES });
    return { host, token, rest: (path: string) => t.http.get(path).set(...bearer(token)) };
  }

  it(
    'connects a feed and sees it turn ok, toggles busy, syncs now, renames and removes it, and shows the API’s refusals',
    async () => {
      const { host, token, rest } = await hostWithToken('Cleo Calendar');
      const path = `/google/${SECRET}/basic.ics`;
      const day = bookableWeekday();
      server.serve(path, serveFeed([[localInstant(day, 600, ZONE), localInstant(day, 660, ZONE)]], 1500));
      await signIn(host, '/app/calendars');
      await page.getByRole('heading', { level: 1, name: 'Calendars' }).waitFor();
      await page.getByTestId('calendars-empty').waitFor();
      await expectFitsPhone('calendars-empty');

      // A CalDAV account the API refuses: the form says what the API says.
      await page.getByRole('button', { name: 'Connect a calendar' }).click();
      const form = page.getByRole('form', { name: 'Connect a calendar' });
      await form.getByRole('radio', { name: /CalDAV account/ }).check();
      const caldav = { kind: 'caldav', serverUrl: 'ftp://caldav.example.com/', username: 'cleo@example.com', password: 'app-password-1234' };
      await form.getByLabel('Server URL', { exact: true }).fill(caldav.serverUrl);
      await form.getByLabel('Username', { exact: true }).fill(caldav.username);
      await form.getByLabel('App password', { exact: true }).fill(caldav.password);
      const refused = await t.http.post('/api/v2/calendar-connections').set(...bearer(token)).send(caldav);
      expect(refused.status).toBe(400);
      await form.getByRole('button', { name: 'Connect' }).click();
      expect(await form.getByRole('alert').textContent()).toBe(refused.body.message);
      await expectFitsPhone('calendars-connect-caldav');

      // A feed: pending at once, then ok as its first sync ends (the page polls).
      await form.getByRole('radio', { name: /iCalendar feed/ }).check();
      await form.getByLabel('Feed URL', { exact: true }).fill(server.url(path));
      await form.getByLabel('Name (optional)').fill('Work');
      await form.getByRole('button', { name: 'Connect' }).click();
      const item = page.getByTestId('calendar-connection').filter({ hasText: 'Work' });
      await item.getByText('Pending', { exact: true }).waitFor();
      await item.getByText('Synced', { exact: true }).waitFor();
      const [connection] = (await rest('/api/v2/calendar-connections')).body.data as { id: string; lastSyncedAt: string }[];
      expect(await item.getByTestId('last-sync').textContent()).toBe(formatDateTime(connection!.lastSyncedAt, ZONE));
      expect(await item.textContent()).toContain('/….ics');
      expect(await page.content()).not.toContain(SECRET);
      expect(await item.getByRole('checkbox', { name: 'Receives bookings (read-only feed) for Work' }).isDisabled()).toBe(true);

      // Counts as busy, off and on again, as REST sees it.
      const counts = item.getByRole('checkbox', { name: 'Counts as busy for Work' });
      const busyOnServer = async () => (await rest(`/api/v2/calendar-connections/${connection!.id}`)).body.calendars[0].busy;
      await counts.click();
      await expect.poll(() => counts.isChecked()).toBe(false);
      expect(await busyOnServer()).toBe(false);
      await counts.click();
      await expect.poll(() => counts.isChecked()).toBe(true);
      expect(await busyOnServer()).toBe(true);

      // Sync now: the feed is fetched again; a feed that stops being a calendar turns the connection to error.
      const hits = server.hits(path);
      await item.getByRole('button', { name: 'Sync now Work' }).click();
      await expect.poll(() => server.hits(path)).toBeGreaterThan(hits);
      server.serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in to continue</html>'));
      await item.getByRole('button', { name: 'Sync now Work' }).click();
      await item.getByText('Sync failed', { exact: true }).waitFor();
      await item.getByText(/^The last sync failed: .+ Busy times from the last good sync still count\.$/).waitFor();
      await expectFitsPhone('calendars-feed-error');
      server.serve(path, serveFeed([]));
      await item.getByRole('button', { name: 'Sync now Work' }).click();
      await item.getByText('Synced', { exact: true }).waitFor();

      await item.getByRole('button', { name: 'Rename Work' }).click();
      await item.getByLabel('Name', { exact: true }).fill('Work calendar');
      await item.getByRole('button', { name: 'Save name' }).click();
      await item.getByRole('heading', { name: 'Work calendar' }).waitFor();
      expect((await rest(`/api/v2/calendar-connections/${connection!.id}`)).body.name).toBe('Work calendar');

      // Two calendars of a CalDAV account: one may receive bookings, a second is the API's 400, shown as it says.
      const account = newId();
      const [personal, team] = [newId(), newId()];
      await t.em().execute(
        `insert into calendar_connection (id, owner_id, kind, name, secret, masked_url, status, last_synced_at, next_sync_at, created_at)
         values (?, ?, 'caldav', 'Fastmail', 'v1.unused', 'https://caldav.fastmail.com/…', 'ok', now(), '2100-01-01', now())`,
        [account, host.id],
      );
      await t.em().execute(`insert into connected_calendar (id, connection_id, name) values (?, ?, 'Personal'), (?, ?, 'Team')`, [personal, account, team, account]);
      await page.reload();
      const fastmail = page.getByTestId('calendar-connection').filter({ hasText: 'Fastmail' });
      const receives = (name: string) => fastmail.getByRole('checkbox', { name: `Receives bookings for ${name}`, exact: true });
      await receives('Personal').click();
      await expect.poll(() => receives('Personal').isChecked()).toBe(true);
      const second = await t.http
        .patch(`/api/v2/calendar-connections/${account}`)
        .set(...bearer(token))
        .send({ calendars: [{ id: team, bookingTarget: true }] });
      expect(second.status).toBe(400);
      await receives('Team').click();
      await fastmail.getByRole('alert').filter({ hasText: second.body.message }).waitFor();
      expect(await receives('Team').isChecked()).toBe(false);
      await expectFitsPhone('calendars-list');

      const workItem = page.getByTestId('calendar-connection').filter({ hasText: 'Work calendar' });
      await workItem.getByRole('button', { name: 'Remove the calendar Work calendar' }).click();
      await workItem.getByRole('group', { name: 'Remove the calendar Work calendar' }).getByRole('button', { name: 'Remove', exact: true }).click();
      await workItem.waitFor({ state: 'detached' });
      expect((await rest(`/api/v2/calendar-connections/${connection!.id}`)).status).toBe(404);
    },
    BROWSER_TEST_TIMEOUT,
  );

  it(
    'greys a booking and a connected calendar’s busy time in the week, and explains a time on click',
    async () => {
      const { host, token, rest } = await hostWithToken('Wanda Week');
      const eventType = await createEventType(t.em(), host.id, { name: 'Intro call', durationsMin: [30] });
      const day = bookableWeekday();
      const at = (hour: number, date = day) => localInstant(date, hour * 60, ZONE);
      server.serve('/week/work.ics', serveFeed([[at(10), at(11)]]));
      const created = await t.http
        .post('/api/v2/calendar-connections')
        .set(...bearer(token))
        .send({ kind: 'ics', url: server.url('/week/work.ics'), name: 'Work' });
      await expect.poll(async () => (await rest(`/api/v2/calendar-connections/${created.body.id}`)).body.status, { timeout: 10_000 }).toBe('ok');
      await createBooking(t.em(), { eventType, startAt: new Date(at(14)).toISOString(), invitee: { name: 'Ivo Invitee' } });

      await signIn(host, '/app/availability');
      await page.getByRole('heading', { level: 1, name: 'Availability' }).waitFor();
      if (dateKey(mondayOf(day)) !== dateKey(mondayOf(localDateOf(Date.now(), ZONE)))) await page.getByRole('button', { name: 'Next week' }).click();
      await page.getByRole('button', { name: `Show ${new Intl.DateTimeFormat('en-US', { timeZone: ZONE, weekday: 'long', month: 'short', day: 'numeric' }).format(at(12))}` }).click();
      await page.getByTestId('busy-block').filter({ hasText: 'Work' }).waitFor();
      await page.getByTestId('busy-block').filter({ hasText: 'Booked' }).waitFor();
      await page.getByTestId('calendars-note').filter({ hasText: 'Includes 1 connected calendar' }).waitFor();

      const cell = (instant: number, state = '') => page.getByRole('button', { name: `${formatDateTime(new Date(instant).toISOString(), ZONE)}${state}`, exact: true });
      const panel = page.getByTestId('explain-panel');
      await cell(at(10), ', busy: Work').click();
      await panel.getByText('Busy in your calendar “Work” (calendar connection).').waitFor();
      await cell(at(14), ', busy: Booked').click();
      await panel.getByText('You already have a booking at this time.').waitFor();
      await cell(at(15), ', offered').click();
      await panel.getByText('Offered: this time can be booked.').waitFor();
      await cell(at(10, addDays(mondayOf(day), 5))).click();
      await panel.getByText('Outside your working hours.').waitFor();
      await cell(at(10), ', busy: Work').click();
      await panel.getByText('Busy in your calendar “Work” (calendar connection).').waitFor();
      await expectFitsPhone('availability-week');
      await page.getByRole('region', { name: 'Your week' }).screenshot({ path: join(ARTIFACTS, 'availability-week-card.png') });

      // On a phone the chosen day shows alone, with its busy blocks, and a click still explains.
      await page.setViewportSize(PHONE);
      expect(await page.getByTestId('busy-block').filter({ hasText: 'Work' }).isVisible()).toBe(true);
      await page.getByRole('region', { name: 'Your week' }).screenshot({ path: join(ARTIFACTS, 'availability-week-card-390.png') });
      await cell(at(14), ', busy: Booked').click();
      await panel.getByText('You already have a booking at this time.').waitFor();
      await page.setViewportSize(DESKTOP);
    },
    BROWSER_TEST_TIMEOUT,
  );
});
