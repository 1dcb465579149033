/**
 * The CalDAV tests' hosts and days: a host of its own in UTC, open 06:00–22:00 every day, with a Radicale account
 * of its own; days counted from UTC midnight three days ahead.
 */
import { expect } from 'vitest';
import { setSchedule } from '../bookings/fixtures.ts';
import type { TestApp } from './app.ts';
import { bearer, createUserWithToken, type TestUser } from './factories.ts';
import type { Radicale, RadicaleAccount } from './radicale.ts';
import { until } from './until.ts';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const SIX_TO_TEN = Object.fromEntries(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '06:00', end: '22:00' }]]),
);

/** UTC midnight of day 0: three days ahead, so every test's days are bookable. */
export const base = Math.floor(Date.now() / DAY) * DAY + 3 * DAY;
export const at = (day: number, hour: number) => new Date(base + day * DAY + hour * HOUR);

export async function caldavHost(t: TestApp, radicale: Radicale, accountIndex: number): Promise<{ host: TestUser; account: RadicaleAccount }> {
  const host = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), host.id, SIX_TO_TEN);
  return { host, account: radicale.account(accountIndex) };
}

/** Connects the account for the host and waits for the first sync, which must end `ok`; the connection as then read. */
export async function connectedAccount(t: TestApp, host: TestUser, radicale: Radicale, account: RadicaleAccount) {
  const created = await t.http
    .post('/api/v2/calendar-connections')
    .set(...bearer(host.token))
    .send({ kind: 'caldav', serverUrl: radicale.url, username: account.username, password: account.password });
  const id = created.body.id as string;
  const synced = await until(
    () => t.http.get(`/api/v2/calendar-connections/${id}`).set(...bearer(host.token)),
    (res) => res.body.status !== 'pending',
  );
  expect(synced.body.status).toBe('ok');
  return synced.body as { id: string; calendars: { id: string }[] };
}
