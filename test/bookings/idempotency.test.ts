import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

describe('POST /api/v2/bookings with an Idempotency-Key', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;

  const post = (body: object, key?: string, user: TestUser = owner) => {
    const req = t.http.post('/api/v2/bookings').set(...bearer(user.token));
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const bodyAt = (start: string) => ({ eventTypeId, start, durationMin: 30, invitee: invitee('ida@example.test') });
  const bookingCount = async () =>
    ((await t.em().execute('select count(*)::int as n from booking where event_type_id = ?', [eventTypeId]))[0] as { n: number }).n;

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock('2026-03-01T12:00:00Z') });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id)).id;
  });
  afterAll(() => t.close());

  it('a retry with the same key and body returns the first 201 again instead of a 409', async () => {
    const first = await post(bodyAt('2026-03-02T09:00:00Z'), 'retry-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await post(bodyAt('2026-03-02T09:00:00Z'), 'retry-1');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await bookingCount()).toBe(1);
    // Without the key the same request is a plain conflict.
    expect((await post(bodyAt('2026-03-02T09:00:00Z'))).status).toBe(409);
  });

  it('compares bodies by content, not by key order', async () => {
    const body = bodyAt('2026-03-02T09:30:00Z');
    expect((await post(body, 'order')).status).toBe(201);
    const reordered = { invitee: body.invitee, durationMin: 30, start: body.start, eventTypeId };
    const replay = await post(reordered, 'order');
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('the same key with another body is 422 and books nothing', async () => {
    expect((await post(bodyAt('2026-03-02T10:00:00Z'), 'reused')).status).toBe(201);
    const before = await bookingCount();
    const res = await post(bodyAt('2026-03-02T10:30:00Z'), 'reused');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ title: 'Unprocessable Content', message: expect.stringContaining('Idempotency-Key') });
    expect(await bookingCount()).toBe(before);
  });

  it('forgets a key after 24 hours: it may then be used for a new request', async () => {
    expect((await post(bodyAt('2026-03-02T11:00:00Z'), 'yesterday')).status).toBe(201);
    await t.em().execute("update idempotency_key set created_at = now() - interval '25 hours' where key = 'yesterday'");
    const fresh = await post(bodyAt('2026-03-02T11:30:00Z'), 'yesterday');
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.startAt).toBe('2026-03-02T11:30:00.000Z');
    const replay = await post(bodyAt('2026-03-02T11:30:00Z'), 'yesterday');
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('prunes expired keys of every credential as new keys are claimed', async () => {
    await t.em().execute(
      `insert into idempotency_key (principal, key, request_hash, response_status, response_body, created_at)
       select 'pat:gone', 'old-' || n, 'x', 201, '{}'::jsonb, now() - interval '2 days' from generate_series(1, 10) n`,
    );
    expect((await post(bodyAt('2026-03-02T12:00:00Z'), 'prune-trigger')).status).toBe(201);
    const [left] = await t.em().execute("select count(*)::int as n from idempotency_key where principal = 'pat:gone'");
    expect((left as { n: number }).n).toBe(0);
  });

  it('keys belong to the credential: another token may use the same key for its own request', async () => {
    const token2 = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), token2.id, WEEKDAYS_9_TO_5);
    const theirs = (await createEventType(t.em(), token2.id)).id;
    const res = await post({ ...bodyAt('2026-03-02T10:00:00Z'), eventTypeId: theirs }, 'reused', token2);
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a failed attempt is not stored: the retry runs again', async () => {
    const res = await post({ ...bodyAt('2026-03-02T11:00:00Z'), durationMin: 45 }, 'failed');
    expect(res.status).toBe(409);
    const again = await post({ ...bodyAt('2026-03-02T11:00:00Z'), durationMin: 45 }, 'failed');
    expect(again.status).toBe(409);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('concurrent requests with one key book once and all get the same booking', async () => {
    const body = bodyAt('2026-03-02T13:00:00Z');
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(body, 'concurrent')));
    expect(responses.map((res) => res.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((res) => res.body.id)).size).toBe(1);
    expect(responses.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    const [row] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from booking where start_at = ? and event_type_id = ?', [
      new Date(body.start),
      eventTypeId,
    ]);
    expect(row!.n).toBe(1);
  });

  it('refuses an empty or over-long key with 400', async () => {
    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const res = await post(bodyAt('2026-03-02T14:00:00Z'), key);
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body.details[0].path).toEqual(['Idempotency-Key']);
    }
    expect((await post(bodyAt('2026-03-02T14:00:00Z'), 'k'.repeat(255))).status).toBe(201);
  });

  it('is read only by procedures whose meta says idempotent: elsewhere the header is ignored', async () => {
    const res = await t.http
      .post('/api/v2/event-types')
      .set(...bearer(owner.token))
      .set('Idempotency-Key', 'with space')
      .send({ name: 'Not idempotent', durationsMin: [30] });
    expect(res.status, res.text).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
  });

  it('documents the header in the OpenAPI document', async () => {
    const res = await t.http.get('/api/docs/openapi.json');
    expect(res.status).toBe(200);
    const operation = res.body.paths['/bookings'].post;
    const parameters = JSON.stringify(operation.parameters ?? []);
    const resolved = parameters.includes('$ref')
      ? JSON.stringify(res.body.components.parameters)
      : parameters;
    expect(resolved).toContain('Idempotency-Key');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['201', '400', '404', '409', '422']));
  });
});
