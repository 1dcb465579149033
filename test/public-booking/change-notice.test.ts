/**
 * `cancelNoticeMin` and `rescheduleNoticeMin`: the invitee's own manage page refuses to cancel or move a booking
 * once the notice before its start has begun (409, saying until when it was possible, in the invitee's zone),
 * while the host may still do both through REST; before the notice the invitee may.
 */
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { createEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

// Sunday 1 March 2026, 12:00 UTC; the host works 9 to 5 UTC on weekdays.
const NOW = '2026-03-01T12:00:00Z';

let t: TestApp;
let host: TestUser;
let eventTypeId: string;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW), env: BEHIND_PROXY });
  host = await createUserWithToken(t.em(), { timezone: 'UTC' });
  await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
  // 24 hours to cancel, 30 hours to reschedule.
  eventTypeId = (await createEventType(t.em(), host.id, { cancelNoticeMin: 1440, rescheduleNoticeMin: 1800 })).id;
});
afterAll(() => t.close());

const call = (procedure: string, input: unknown) =>
  t.http.post(`/trpc/publicBooking.${procedure}`).set('X-Forwarded-For', '203.0.113.40').send(superjson.serialize(input) as object);
const query = (procedure: string, input: unknown) =>
  t.http.get(`/trpc/publicBooking.${procedure}`).set('X-Forwarded-For', '203.0.113.40').query({ input: JSON.stringify(superjson.serialize(input)) });

async function bookPublicly(start: string): Promise<{ id: string; token: string }> {
  const res = await call('book', { eventTypeId, start, durationMin: 30, invitee: { ...invitee(), timezone: 'Europe/Paris' } });
  expect(res.status).toBe(200);
  const booking = res.body.result.data.json;
  return { id: booking.id, token: booking.links.manage.split('/').at(-1) };
}
const errorOf = (res: { status: number; body: { error: { json: { message: string; data: { httpStatus: number } } } } }) => ({
  status: res.body.error.json.data.httpStatus,
  message: res.body.error.json.message,
});

describe('inside the notice', () => {
  // Monday 2 March 10:00 UTC is 22 hours away: inside both notices.
  const soon = '2026-03-02T10:00:00Z';

  it('the invitee may not cancel; the message says until when (in their zone); the host still may', async () => {
    const { id, token } = await bookPublicly(soon);
    const refused = await call('cancelManaged', { token, reason: 'sorry' });
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toEqual({
      status: 409,
      message: 'This booking can no longer be canceled here: that was possible until 2026-03-01 11:00 (Europe/Paris), 1440 minutes before its start. Please contact the host.',
    });
    expect((await t.http.get(`/api/v2/bookings/${id}`).set(...bearer(host.token))).body.status).toBe('active');
    const byHost = await t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(host.token));
    expect(byHost.body).toMatchObject({ status: 'canceled', canceledBy: 'host' });
    // Once canceled, the invitee's repeated cancel answers as before, with the booking as it is.
    const repeated = await call('cancelManaged', { token });
    expect(repeated.status).toBe(200);
  });

  it('the invitee may not reschedule; the host still may', async () => {
    const { id, token } = await bookPublicly('2026-03-02T10:30:00Z');
    const refused = await call('rescheduleManaged', { token, start: '2026-03-04T10:00:00Z' });
    expect(errorOf(refused)).toEqual({ status: 409, message: expect.stringContaining('can no longer be rescheduled here: that was possible until 2026-03-01 05:30 (Europe/Paris)') });
    const byHost = await t.http.post(`/api/v2/bookings/${id}/reschedule`).set(...bearer(host.token)).send({ start: '2026-03-04T10:00:00Z' });
    expect(byHost.status).toBe(200);
  });

  it('the manage page is told until when changes were possible', async () => {
    const { token } = await bookPublicly('2026-03-02T11:00:00Z');
    const managed = (await query('managed', { token })).body.result.data.json;
    expect(managed.changesUntil).toEqual({ cancel: '2026-03-01T11:00:00.000Z', reschedule: '2026-03-01T05:00:00.000Z' });
  });
});

describe('before the notice', () => {
  it('the invitee may cancel and reschedule', async () => {
    // Wednesday 4 March is more than 30 hours away.
    const first = await bookPublicly('2026-03-04T09:00:00Z');
    expect((await call('rescheduleManaged', { token: first.token, start: '2026-03-05T09:00:00Z' })).status).toBe(200);
    const second = await bookPublicly('2026-03-04T11:00:00Z');
    expect((await call('cancelManaged', { token: second.token })).status).toBe(200);
  });

  it('without a notice the rules are as before: the page shows no limit', async () => {
    const plain = await createEventType(t.em(), host.id);
    const res = await call('book', { eventTypeId: plain.id, start: '2026-03-02T13:00:00Z', durationMin: 30, invitee: invitee() });
    const token = res.body.result.data.json.links.manage.split('/').at(-1);
    expect((await query('managed', { token })).body.result.data.json.changesUntil).toEqual({ cancel: null, reschedule: null });
    expect((await call('cancelManaged', { token })).status).toBe(200);
  });
});
