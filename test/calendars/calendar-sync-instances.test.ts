import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken } from '../helpers/factories.ts';
import { startFeedServer } from './feed-server.ts';

const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('calendar sync across instances', () => {
  let first: TestApp;
  let second: TestApp;
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  const env = { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '2s' };

  beforeAll(async () => {
    server = await startFeedServer();
    first = await startTestApp({ env });
    second = await startTestApp({ env, database: first.database });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    await server.close();
  });

  it('two instances sync a connection once per interval', async () => {
    const user = await createUserWithToken(first.em());
    server.serve('/shared.ics', (_req, res) => res.writeHead(200).end(ICS));
    const created = await first.http.post('/api/v2/calendar-connections').set(...bearer(user.token)).send({ kind: 'ics', url: server.url('/shared.ics') });
    expect(created.status).toBe(201);
    const started = Date.now();
    await pause(5_000);
    const elapsed = Date.now() - started;
    // The first sync at once, then one per 2 s interval: never one per instance.
    expect(server.hits('/shared.ics')).toBeGreaterThanOrEqual(2);
    expect(server.hits('/shared.ics')).toBeLessThanOrEqual(Math.floor(elapsed / 2_000) + 1);
  });

  it('a sync cut short by a killed instance is taken over when its lease ends', async () => {
    const user = await createUserWithToken(first.em());
    server.serve('/orphan.ics', (_req, res) => res.writeHead(200).end(ICS));
    const created = await first.http.post('/api/v2/calendar-connections').set(...bearer(user.token)).send({ kind: 'ics', url: server.url('/orphan.ics') });
    // As an instance that claimed it and died leaves it: due, leased for 2 more seconds, never finished.
    await first.em().execute(
      "update calendar_connection set lease_until = now() + interval '2 seconds', next_sync_at = now() where id = ? and status = 'pending'",
      [created.body.id],
    );
    const hitsAtClaim = server.hits('/orphan.ics');
    await pause(1_000);
    expect(server.hits('/orphan.ics')).toBe(hitsAtClaim);
    await pause(2_500);
    const read = await second.http.get(`/api/v2/calendar-connections/${created.body.id}`).set(...bearer(user.token));
    expect(read.body.status).toBe('ok');
    expect(server.hits('/orphan.ics')).toBeGreaterThan(hitsAtClaim);
  });
});
