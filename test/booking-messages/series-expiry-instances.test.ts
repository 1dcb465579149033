/**
 * Series of requests nobody answers lapse on two instances at once: two app instances on one database, on one
 * clock, each running the pending-expiry worker's batch at the same moment (besides their own workers). Each
 * occurrence is declined exactly once: one `booking.declined` each, one decline e-mail per recipient and series,
 * and no run fails. Each series is declined in its own transaction holding its row (`for update skip locked`),
 * so the instances share the series instead of declining one twice.
 */
import { Writable } from 'node:stream';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_EXPIRY } from '../../src/config/timeouts.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { SKIPPED } from '../../src/modules/booking-messages/message-plan.ts';
import { declineUnconfirmedSeries, UNCONFIRMED_SERIES_REASON } from '../../src/modules/booking-series/booking-series.service.ts';
import { declineUnconfirmed, UNCONFIRMED_REASON } from '../../src/modules/bookings/booking-confirmation.service.ts';
import { setSchedule } from '../bookings/fixtures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { EVERY_DAY, eventually, LISBON, type MailServer, mailsTo, startMailServer, startIn } from './support.ts';

const SERIES = 6;
const OCCURRENCES = 3;

/** The real clock, moved by `shift`, shared by both instances. */
const clock: Clock & { shift: number } = { shift: 0, now: () => new Date(Date.now() + clock.shift) };

interface Occurrence {
  id: string;
  startAt: string;
  status: string;
  declinedAt: string | null;
  declineReason: string | null;
}

describe('series of requests lapsing on two instances at once', () => {
  let first: TestApp;
  let second: TestApp;
  let mail: MailServer;
  let host: TestUser;
  let requestsId: string;
  /** Both instances' log lines at warn and above. */
  const warnings: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      warnings.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    mail = await startMailServer();
    const env = { SMTP_URL: mail.url, TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'warn' };
    first = await startTestApp({ clock, env, logStream });
    second = await startTestApp({ clock, env, logStream, database: first.database });
    host = await createUserWithToken(first.em(), { timezone: 'America/New_York', name: 'Hana Host' });
    await setSchedule(first.em(), host.id, EVERY_DAY);
    // Deliveries fail (nothing listens there): only the events written count here.
    const hook = await first.http.post('/api/v2/webhooks').set(...bearer(host.token)).send({ url: 'http://127.0.0.1:9/hook', events: ['booking.declined'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const requests = await first.http
      .post('/api/v2/event-types')
      .set(...bearer(host.token))
      .send({ name: 'Consultation', durationsMin: [30], reminders: [], requiresConfirmation: true, recurrence: { maxCount: OCCURRENCES } });
    expect(requests.status, JSON.stringify(requests.body)).toBe(201);
    requestsId = requests.body.id;
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await mail?.close();
  });

  async function bookSeries(t: TestApp, i: number) {
    const invitee = { name: `Inês ${i}`, email: `ines.${i}@example.test`, timezone: LISBON };
    const guest = `rui.${i}@example.test`;
    const res = await t.http
      .post('/trpc/publicBooking.bookSeries')
      .set('X-Forwarded-For', `203.0.113.${70 + i}`)
      .send(
        superjson.serialize({
          eventTypeId: requestsId,
          startAt: startIn(6, 8 + i),
          durationMin: 30,
          invitee,
          guests: [guest],
          recurrence: { frequency: 'weekly', interval: 1, count: OCCURRENCES },
        }) as object,
      );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const series = res.body.result.data.json as { id: string; bookings: Occurrence[] };
    return { ...series, invitee: invitee.email, guest };
  }

  /** The mails each invitee and guest (`each`) and the host (`host`) should have received. */
  const mailCounts = (people: string[], each: number, hostCount: number) =>
    new Map<string, number>([...people.map((address): [string, number] => [address, each]), [host.email, hostCount]]);

  /** Waits until each address has received `count` mails, then a moment more for any straggler, and checks no more came. */
  async function expectMails(counts: Map<string, number>): Promise<void> {
    await eventually(() => ([...counts].every(([address, count]) => mailsTo(mail, address).length >= count) ? true : undefined), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const [address, count] of counts) expect(mailsTo(mail, address), address).toHaveLength(count);
  }

  it(`${SERIES} series lapse at one moment on both instances: each occurrence declined once, one decline mail per recipient`, async () => {
    // One after another (at once, they would queue on the host's lock past its wait), on both instances in turn.
    const series = [];
    for (let i = 0; i < SERIES; i++) series.push(await bookSeries(i % 2 === 0 ? first : second, i));
    const people = series.flatMap((one) => [one.invitee, one.guest]);
    await expectMails(mailCounts(people, 1, SERIES));

    // A minute after the last series' first start, on both instances' clock; both run the worker's batch at once.
    const lastFirstStart = Math.max(...series.map((one) => Date.parse(one.bookings[0]!.startAt)));
    clock.shift = lastFirstStart + 60_000 - Date.now();
    const now = clock.now();
    const runs = await Promise.all(
      [first, second].map((t) => declineUnconfirmed(t.orm.em.fork(), now, PENDING_EXPIRY.batch, declineUnconfirmedSeries)),
    );
    // Each series counts its one started occurrence once, whoever declined it (the instances' own workers may
    // have taken some first).
    expect(runs[0]! + runs[1]!).toBeLessThanOrEqual(SERIES);

    await eventually(async () => {
      const rows = await first.em().execute<{ n: number }[]>(`select count(*)::int as n from booking where owner_id = ? and status = 'pending'`, [host.id]);
      return rows[0]!.n === 0 ? true : undefined;
    });
    for (const one of series) {
      const res = await first.http.get(`/api/v2/booking-series/${one.id}`).set(...bearer(host.token));
      const firstStart = one.bookings[0]!.startAt;
      expect((res.body.bookings as Occurrence[]).map((booking) => [booking.status, booking.declinedAt, booking.declineReason])).toEqual([
        ['declined', firstStart, UNCONFIRMED_REASON],
        ['declined', firstStart, UNCONFIRMED_SERIES_REASON],
        ['declined', firstStart, UNCONFIRMED_SERIES_REASON],
      ]);
    }

    // One booking.declined per occurrence.
    const events = await first.em().execute<{ id: string }[]>(
      `select body::jsonb -> 'data' ->> 'id' as id from webhook_event where owner_id = ? and type = 'booking.declined'`,
      [host.id],
    );
    const occurrences = series.flatMap((one) => one.bookings.map((booking) => booking.id));
    expect(events.map((event) => event.id).sort()).toEqual([...occurrences].sort());

    await expectMails(mailCounts(people, 2, 2 * SERIES));
    // One decline per recipient and series, on its first occurrence; the others a skipped row saying so.
    const declines = await first.em().execute<{ booking_id: string; audience: string; status: string; last_error: string | null }[]>(
      `select booking_id, audience, status, last_error from booking_message where owner_id = ? and kind = 'decline' order by booking_id, audience`,
      [host.id],
    );
    for (const one of series) {
      const [head, ...rest] = one.bookings.map((booking) => booking.id);
      expect(declines.filter((row) => row.booking_id === head).map((row) => [row.audience, row.status])).toEqual([
        ['guest', 'sent'],
        ['host', 'sent'],
        ['invitee', 'sent'],
      ]);
      for (const id of rest) {
        expect(declines.filter((row) => row.booking_id === id).map((row) => [row.audience, row.status, row.last_error])).toEqual([
          ['invitee', 'skipped', SKIPPED.inSeriesDecline],
        ]);
      }
    }
    for (const address of people) expect(mailsTo(mail, address)[1]!.parsed.subject).toBe(`Declined: Consultation with Hana Host (${OCCURRENCES} meetings)`);
    const hostDeclines = mailsTo(mail, host.email)
      .map((received) => received.parsed.subject)
      .filter((subject) => subject?.startsWith('Declined:'));
    expect(hostDeclines.sort()).toEqual(series.map((_, i) => `Declined: Inês ${i}, Consultation (${OCCURRENCES} meetings)`).sort());

    // No worker of either instance failed meanwhile.
    expect(warnings.filter((line) => /pending booking expiry|e-mail worker/.test(line))).toEqual([]);
  });
});
