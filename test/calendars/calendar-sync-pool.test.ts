import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { startFeedServer } from './feed-server.ts';
import { until } from '../helpers/until.ts';

const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nEND:VCALENDAR\r\n';

describe('calendar syncs of one instance', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof startFeedServer>>;
  let user: TestUser;

  beforeAll(async () => {
    server = await startFeedServer();
    t = await startTestApp({ env: { CALENDAR_ALLOW_PRIVATE_NETWORKS: 'true', CALENDAR_SYNC_INTERVAL: '1h' } });
    user = await createUserWithToken(t.em(), { timezone: 'UTC' });
  });
  afterAll(async () => {
    await t.close();
    await server.close();
  });

  const connect = async (path: string) => {
    const created = await t.http.post('/api/v2/calendar-connections').set(...bearer(user.token)).send({ kind: 'ics', url: server.url(path) });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const statusOf = async (id: string) =>
    (await t.http.get(`/api/v2/calendar-connections/${id}`).set(...bearer(user.token))).body.status as string;

  it('a hung server delays no other connection: those claimed with it and after it sync at once', async () => {
    const hanging = ['/hang-1.ics', '/hang-2.ics'];
    for (const path of hanging) server.serve(path, () => undefined);
    const quick = Array.from({ length: 8 }, (_, i) => `/quick-${i}.ics`);
    for (const path of quick) server.serve(path, (_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(ICS));

    // Hung servers first, then more connections than one old batch of five held, some claimed with the hung ones.
    const hungIds = [await connect(hanging[0]!), await connect(hanging[1]!)];
    const quickIds: string[] = [];
    for (const path of quick.slice(0, 3)) quickIds.push(await connect(path));
    await until(() => Promise.resolve(hanging.every((path) => server.hits(path) > 0)), (hit) => hit, 3_000, 50);
    for (const path of quick.slice(3)) quickIds.push(await connect(path));

    const started = Date.now();
    const statuses = await until(() => Promise.all(quickIds.map(statusOf)), (all) => all.every((status) => status === 'ok'), 5_000, 50);
    expect(statuses).toEqual(quickIds.map(() => 'ok'));
    // Well inside the hung fetches' 10 s: they are still waiting on their servers.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await Promise.all(hungIds.map(statusOf))).toEqual(['pending', 'pending']);
  });
});
