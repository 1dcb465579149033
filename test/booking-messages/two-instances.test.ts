import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BOOKING_CONTENTION } from '../../src/config/timeouts.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { eventually, type MailServer, startMailServer } from './support.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const BOOKINGS = 12;
/**
 * Twelve bookings of one host queue on its lock; on a loaded machine the last would outwait the default 2 s
 * (BOOKING_WAIT_MS, read once at import: both in-process instances share this process's value).
 */
const WAIT_BEFORE = vi.hoisted(() => {
  const before = process.env.BOOKING_WAIT_MS;
  process.env.BOOKING_WAIT_MS = '30000';
  return before;
});
if (WAIT_BEFORE === undefined) delete process.env.BOOKING_WAIT_MS;
else process.env.BOOKING_WAIT_MS = WAIT_BEFORE;
/** Longer than a poll (500 ms): while one instance waits for the server, the other polls again and again. */
const ACCEPT_AFTER_MS = 800;

/**
 * Two app instances on one database, each with its e-mail worker and the same SMTP server, which accepts each
 * message slowly: each message arrives exactly once.
 */
describe('two instances on one database', () => {
  let first: TestApp;
  let second: TestApp;
  let mail: MailServer;
  let host: TestUser;

  beforeAll(async () => {
    expect(BOOKING_CONTENTION.hostLockMs, 'the wait these bookings run with').toBe(30_000);
    mail = await startMailServer({ delayMs: ACCEPT_AFTER_MS });
    const env = { SMTP_URL: mail.url };
    first = await startTestApp({ env });
    second = await startTestApp({ env, database: first.database });
    host = await createUserWithToken(first.em(), { timezone: 'UTC' });
    await setSchedule(first.em(), host.id, EVERY_DAY);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await mail?.close();
  });

  it(`send each message of ${BOOKINGS} bookings exactly once, both sending`, async () => {
    const eventType = await first.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Call', durationsMin: [30], reminders: [] });
    const base = Math.ceil((Date.now() + 86_400_000) / 3_600_000) * 3_600_000;
    const book = async (i: number) => {
      const app = i % 2 === 0 ? first : second;
      const res = await app.http
        .post('/api/v2/bookings')
        .set(...bearer(host.token))
        .send({
          eventTypeId: eventType.body.id,
          start: new Date(base + i * 3_600_000).toISOString(),
          durationMin: 30,
          invitee: { name: `Invitee ${i}`, email: `invitee.${i}@example.test`, timezone: 'UTC' },
          guests: [`guest.${i}@example.test`],
        });
      expect(res.status).toBe(201);
    };
    await Promise.all(Array.from({ length: BOOKINGS }, (_, i) => book(i)));
    const expected = BOOKINGS * 3;
    const ids = await eventually(async () => {
      const rows = await first.em().execute<{ id: string }[]>("select id from booking_message where owner_id = ? and status = 'sent'", [host.id]);
      return rows.length === expected ? rows.map((row) => row.id) : undefined;
    }, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const perId = new Map<string, number>();
    for (const received of mail.received) perId.set(String(received.parsed.messageId), (perId.get(String(received.parsed.messageId)) ?? 0) + 1);
    expect(new Set(perId.keys())).toEqual(new Set(ids.map((id) => `<${id}@localhost>`)));
    expect([...perId.values()].filter((count) => count !== 1)).toEqual([]);
    expect(mail.received).toHaveLength(expected);
    // More than one instance's connections (5) at once: both were sending.
    expect(mail.mostInFlight()).toBeGreaterThan(5);
  });
});
