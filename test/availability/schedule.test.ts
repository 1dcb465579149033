import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';

const workday = [{ start: '09:00', end: '12:00' }, { start: '13:00', end: '17:00' }];
const weekly = {
  monday: workday,
  tuesday: workday,
  wednesday: [],
  thursday: workday,
  friday: [{ start: '10:00', end: '14:00' }],
  saturday: [],
  sunday: [],
};

describe('GET and PUT /api/v2/schedule', () => {
  let t: TestApp;
  let owner: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await createUserWithToken(t.em(), { timezone: 'Europe/Berlin' });
  });
  afterAll(() => t.close());

  it('starts as Monday to Friday 09:00-17:00 in the owner time zone', async () => {
    const res = await t.http.get('/api/v2/schedule').set(...bearer(owner.token));
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('Europe/Berlin');
    expect(res.body.weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
    expect(res.body.weekly.saturday).toEqual([]);
    expect(res.body.overrides).toEqual([]);
  });

  it('replaces weekly hours and overrides, returning them sorted', async () => {
    const overrides = [
      { date: '2026-12-31', intervals: [{ start: '09:00', end: '11:00' }] },
      { date: '2026-12-24', intervals: [] },
    ];
    const put = await t.http.put('/api/v2/schedule').set(...bearer(owner.token)).send({ weekly, overrides });
    expect(put.status).toBe(200);
    expect(put.body.weekly).toEqual(weekly);
    expect(put.body.overrides.map((o: { date: string }) => o.date)).toEqual(['2026-12-24', '2026-12-31']);
    const get = await t.http.get('/api/v2/schedule').set(...bearer(owner.token));
    expect(get.body.weekly).toEqual(weekly);
    expect(get.body.overrides).toHaveLength(2);
  });

  it('rejects overlapping intervals, duplicate dates and bad times with 400 details', async () => {
    const overlapping = { ...weekly, monday: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '13:00' }] };
    const res1 = await t.http.put('/api/v2/schedule').set(...bearer(owner.token)).send({ weekly: overlapping });
    expect(res1.status).toBe(400);
    expect(res1.body.details[0].path).toEqual(['weekly', 'monday', 1]);

    const duplicate = [
      { date: '2026-12-24', intervals: [] },
      { date: '2026-12-24', intervals: [] },
    ];
    const res2 = await t.http.put('/api/v2/schedule').set(...bearer(owner.token)).send({ weekly, overrides: duplicate });
    expect(res2.status).toBe(400);
    expect(res2.body.details[0].path).toEqual(['overrides', 1, 'date']);

    const badTime = { ...weekly, monday: [{ start: '9:00', end: '25:00' }] };
    const res3 = await t.http.put('/api/v2/schedule').set(...bearer(owner.token)).send({ weekly: badTime });
    expect(res3.status).toBe(400);
    expect(res3.body.title).toBe('Bad Request');
    expect(res3.body.details.length).toBeGreaterThan(0);

    const reversed = { ...weekly, monday: [{ start: '12:00', end: '09:00' }] };
    const res4 = await t.http.put('/api/v2/schedule').set(...bearer(owner.token)).send({ weekly: reversed });
    expect(res4.status).toBe(400);
  });

  it('needs write:availability to replace and read:availability to read', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:availability'] });
    const put = await t.http.put('/api/v2/schedule').set(...bearer(reader.token)).send({ weekly });
    expect(put.status).toBe(403);
    expect(put.body.message).toContain('write:availability');
    const writer = await createUserWithToken(t.em(), { scopes: ['write:availability'] });
    const get = await t.http.get('/api/v2/schedule').set(...bearer(writer.token));
    expect(get.status).toBe(403);
    expect(get.body.message).toContain('read:availability');
  });

  it('keeps each user to their own schedule', async () => {
    const other = await createUserWithToken(t.em(), { timezone: 'Asia/Tokyo' });
    const res = await t.http.get('/api/v2/schedule').set(...bearer(other.token));
    expect(res.body.timezone).toBe('Asia/Tokyo');
    expect(res.body.weekly.monday).toEqual([{ start: '09:00', end: '17:00' }]);
  });
});
