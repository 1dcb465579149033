import ICAL from 'ical.js';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { hashToken } from '../../src/lib/secrets.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

// Sunday 2026-03-01 12:00 UTC; the host works 9 to 5 UTC on weekdays.
const NOW = '2026-03-01T12:00:00Z';
const SITE = 'http://localhost:3000';

function trpc(t: TestApp) {
  return {
    query: (path: string, input: unknown) =>
      t.http.get(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.9').query({ input: JSON.stringify(superjson.serialize(input)) }),
    mutate: (path: string, input: unknown) =>
      t.http.post(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.9').send(superjson.serialize(input) as object),
  };
}
const data = <T>(res: { body: { result: { data: { json: unknown } } } }) => res.body.result.data.json as T;

interface Links { manage: string; ics: string; google: string; outlook: string }
interface Managed {
  booking: { id: string; startAt: string; status: string; canceledBy: string | null };
  eventType: { url: string | null };
  links: Links;
}

let t: TestApp;
let host: TestUser;
let eventTypeId: string;
let api: ReturnType<typeof trpc>;

beforeAll(async () => {
  t = await startTestApp({ clock: fixedClock(NOW), env: BEHIND_PROXY });
  api = trpc(t);
  host = await createUserWithToken(t.em(), { timezone: 'UTC', name: 'Hana Host' });
  await setSchedule(t.em(), host.id, WEEKDAYS_9_TO_5);
  eventTypeId = (await createEventType(t.em(), host.id, { name: 'Consultation', slug: 'consult', durationsMin: [30] })).id;
});
afterAll(() => t.close());

async function bookPublicly(start: string, person = { ...invitee(), timezone: 'Europe/Paris' }) {
  const res = await api.mutate('publicBooking.book', { eventTypeId, start, durationMin: 30, invitee: person, locationInput: 'Café Lumen' });
  expect(res.status).toBe(200);
  return data<{ id: string; links?: Links }>(res);
}
const tokenOf = (links: Links) => links.manage.split('/').at(-1) as string;

describe('the invitee’s private manage link', () => {
  it('comes with the public booking, once, as a 256-bit secret stored only as its SHA-256', async () => {
    const booking = await bookPublicly('2026-03-02T10:00:00Z');
    expect(booking.links?.manage).toMatch(new RegExp(`^${SITE}/book/manage/bkm_[a-z2-7]{59}$`));
    expect(booking.links?.ics).toBe(`${booking.links?.manage}/event.ics`);
    const token = tokenOf(booking.links as Links);
    const [row] = await t.em().execute<{ manage_token_hash: string }[]>('select manage_token_hash from booking where id = ?', [booking.id]);
    expect(row?.manage_token_hash).toBe(hashToken(token));
    expect(JSON.stringify(await t.em().execute('select * from booking where id = ?', [booking.id]))).not.toContain(token);
    // The third-party calendar links never carry the secret.
    expect(booking.links?.google).not.toContain(token);
    expect(booking.links?.outlook).not.toContain(token);
    expect(new URL(booking.links?.google as string).searchParams.get('dates')).toBe('20260302T100000Z/20260302T103000Z');
    expect(new URL(booking.links?.outlook as string).searchParams.get('startdt')).toBe('2026-03-02T10:00:00.000Z');
  });

  it('is not in the host’s API answers', async () => {
    const booking = await bookPublicly('2026-03-02T10:30:00Z');
    const rest = await t.http.get(`/api/v2/bookings/${booking.id}`).set(...bearer(host.token));
    expect(JSON.stringify(rest.body)).not.toContain(tokenOf(booking.links as Links));
    expect(rest.body).not.toHaveProperty('links');
  });

  it('opens the booking; anything else is 404', async () => {
    const booking = await bookPublicly('2026-03-02T11:00:00Z');
    const managed = data<Managed>(await api.query('publicBooking.managed', { token: tokenOf(booking.links as Links) }));
    expect(managed.booking).toMatchObject({ id: booking.id, startAt: '2026-03-02T11:00:00.000Z', status: 'active' });
    expect(managed).toMatchObject({ eventType: { id: eventTypeId, name: 'Consultation', durationsMin: [30] }, host: { name: 'Hana Host' } });
    // The booking page, to book again.
    const [owner] = await t.em().execute<{ slug: string }[]>('select slug from app_user where id = ?', [host.id]);
    expect(managed.eventType.url).toBe(`${SITE}/book/${owner?.slug}/consult`);
    for (const token of ['bkm_' + 'a'.repeat(52), 'nope', tokenOf(booking.links as Links).toUpperCase()]) {
      expect((await api.query('publicBooking.managed', { token })).status).toBe(404);
    }
  });

  it('cancels as the invitee, with a reason, and REST then shows canceledBy: invitee', async () => {
    const booking = await bookPublicly('2026-03-02T12:00:00Z');
    const token = tokenOf(booking.links as Links);
    const res = await api.mutate('publicBooking.cancelManaged', { token, reason: 'Something came up' });
    expect(res.status).toBe(200);
    expect(data<Managed>(res).booking).toMatchObject({ status: 'canceled', canceledBy: 'invitee' });
    const rest = await t.http.get(`/api/v2/bookings/${booking.id}`).set(...bearer(host.token));
    expect(rest.body).toMatchObject({ status: 'canceled', canceledBy: 'invitee', cancelReason: 'Something came up', canceledAt: new Date(NOW).toISOString() });
    // Idempotent, and the time is free again.
    expect((await api.mutate('publicBooking.cancelManaged', { token })).status).toBe(200);
    expect((await bookPublicly('2026-03-02T12:00:00Z')).id).not.toBe(booking.id);
  });

  it('reschedules to a slot the engine offers; a taken one is 409 and the booking keeps its time', async () => {
    await bookPublicly('2026-03-03T09:00:00Z');
    const booking = await bookPublicly('2026-03-03T10:00:00Z');
    const token = tokenOf(booking.links as Links);
    const clash = await api.mutate('publicBooking.rescheduleManaged', { token, start: '2026-03-03T09:00:00Z' });
    expect(clash.status).toBe(409);
    const moved = await api.mutate('publicBooking.rescheduleManaged', { token, start: '2026-03-03T14:00:00Z' });
    expect(moved.status).toBe(200);
    expect(data<Managed>(moved).booking).toMatchObject({ id: booking.id, startAt: '2026-03-03T14:00:00.000Z', status: 'active' });
    const rest = await t.http.get(`/api/v2/bookings/${booking.id}`).set(...bearer(host.token));
    expect(rest.body).toMatchObject({ startAt: '2026-03-03T14:00:00.000Z', status: 'active' });
  });

  it('serves the booking as an .ics file: start, end, time zone, organizer = host, attendee = invitee, stable UID', async () => {
    const booking = await bookPublicly('2026-03-04T15:00:00Z');
    const res = await t.http.get(new URL((booking.links as Links).ics).pathname).buffer(true).parse((response, done) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => done(null, text));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.headers['content-disposition']).toContain('attachment');
    expect(res.headers['cache-control']).toBe('no-store');
    const calendar = new ICAL.Component(ICAL.parse(res.body as string));
    expect(calendar.getFirstPropertyValue('method')).toBe('PUBLISH');
    expect(calendar.getFirstPropertyValue('x-wr-timezone')).toBe('Europe/Paris');
    const event = new ICAL.Event(calendar.getFirstSubcomponent('vevent') as ICAL.Component);
    expect(event.startDate.toJSDate().toISOString()).toBe('2026-03-04T15:00:00.000Z');
    expect(event.endDate.toJSDate().toISOString()).toBe('2026-03-04T15:30:00.000Z');
    expect(event.uid).toBe(`${booking.id}@localhost`);
    expect(event.organizer).toBe(`mailto:${host.email}`);
    expect(event.attendees.map((attendee) => String(attendee.getFirstValue()).toLowerCase())).toEqual([expect.stringContaining('@example.test')]);
    expect(event.summary).toBe('Consultation with Hana Host');
    expect(event.location).toBe('Café Lumen');
    expect((await t.http.get('/book/manage/bkm_unknown/event.ics')).status).toBe(404);
  });
});
