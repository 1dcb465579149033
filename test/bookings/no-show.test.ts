import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import type { TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { failure, trpcClient } from '../first-party/support.ts';
import { startListeningApp } from '../oauth/support.ts';

const NOW = '2026-06-01T12:00:00.000Z';

let t: TestApp & { siteUrl: string };
let alice: TestUser;
let intro: TestEventType;

beforeAll(async () => {
  t = await startListeningApp({ clock: fixedClock(NOW) });
  alice = await createUserWithToken(t.em());
  intro = await createEventType(t.em(), alice.id, { name: 'Intro call', slug: 'intro' });
});
afterAll(() => t.close());

const mark = (user: TestUser, id: string, body: object = {}) =>
  t.http.post(`/api/v2/bookings/${id}/no-show`).set(...bearer(user.token)).send(body);

async function noShowOf(id: string): Promise<boolean> {
  const [row] = await t.em().execute<{ no_show: boolean }[]>('select no_show from booking where id = ?', [id]);
  return row!.no_show;
}

async function contact(email: string) {
  const res = await t.http.get('/api/v2/contacts').query({ q: email }).set(...bearer(alice.token));
  expect(res.status).toBe(200);
  return res.body.data[0] as { email: string; meetings: number; noShows: number; kind: string };
}

async function listed(id: string) {
  const res = await t.http.get('/api/v2/bookings').set(...bearer(alice.token));
  return res.body.data.find((booking: { id: string }) => booking.id === id);
}

describe('POST /api/v2/bookings/{id}/no-show', () => {
  it('marks a past booking’s invitee as a no-show (the default), counted on the contact and shown as the Booking’s noShow', async () => {
    const email = 'missed.once@example.test';
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-28T09:00:00Z', invitee: { email } });
    const before = await listed(booking.id);
    expect(await contact(email)).toMatchObject({ meetings: 1, noShows: 0 });

    const res = await mark(alice, booking.id);
    expect(res.status).toBe(200);
    expect(before.noShow).toBe(false);
    expect(res.body).toEqual({ ...before, noShow: true });
    expect(await listed(booking.id)).toEqual(res.body);
    expect(await noShowOf(booking.id)).toBe(true);
    expect(await contact(email)).toMatchObject({ kind: 'client', meetings: 1, noShows: 1 });

    const again = await mark(alice, booking.id, { noShow: true });
    expect(again.status).toBe(200);
    expect(await contact(email)).toMatchObject({ noShows: 1 });
  });

  it('takes the mark back with noShow: false', async () => {
    const email = 'came.after.all@example.test';
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-29T09:00:00Z', invitee: { email }, noShow: true });
    expect(await contact(email)).toMatchObject({ noShows: 1 });
    const res = await mark(alice, booking.id, { noShow: false });
    expect(res.status).toBe(200);
    expect(res.body.noShow).toBe(false);
    expect(await noShowOf(booking.id)).toBe(false);
    expect(await contact(email)).toMatchObject({ noShows: 0, meetings: 1 });
  });

  it('counts every marked booking of one person (e-mail in any letter case)', async () => {
    const first = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-20T09:00:00Z', invitee: { email: 'Repeat@Example.test' } });
    const second = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-21T09:00:00Z', invitee: { email: 'repeat@example.test' } });
    await mark(alice, first.id);
    await mark(alice, second.id);
    expect(await contact('repeat@example.test')).toMatchObject({ meetings: 2, noShows: 2 });
  });

  it('answers 409 for a meeting that has not started or was canceled; unmarking them is a no-op', async () => {
    const future = await createBooking(t.em(), { eventType: intro, startAt: '2026-06-01T12:30:00Z' });
    const res = await mark(alice, future.id);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ title: 'Conflict', message: expect.stringContaining('not started') });
    expect(await noShowOf(future.id)).toBe(false);
    expect((await mark(alice, future.id, { noShow: false })).status).toBe(200);

    const startingNow = await createBooking(t.em(), { eventType: intro, startAt: NOW });
    expect((await mark(alice, startingNow.id)).status).toBe(200);

    const canceled = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-25T09:00:00Z', status: 'canceled' });
    const refused = await mark(alice, canceled.id);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('canceled');
    expect(await noShowOf(canceled.id)).toBe(false);
  });

  it('answers 404 for another user’s booking or an unknown one, 403 without write:bookings, 401 without a token', async () => {
    const bob = await createUserWithToken(t.em());
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-26T09:00:00Z' });
    const foreign = await mark(bob, booking.id);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ title: 'Not Found', message: 'Booking not found' });
    expect((await mark(alice, 'no-such-booking')).status).toBe(404);

    const reader = await createUserWithToken(t.em(), { scopes: ['read:bookings', 'read:contacts'] });
    const forbidden = await mark(reader, booking.id);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain('write:bookings');
    expect((await t.http.post(`/api/v2/bookings/${booking.id}/no-show`).send({})).status).toBe(401);
    expect(await noShowOf(booking.id)).toBe(false);
  });

  it('validates the body: 400 with details; a body that is not JSON is 415', async () => {
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-27T09:00:00Z' });
    const wrongType = await mark(alice, booking.id, { noShow: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({
      title: 'Bad Request',
      message: expect.stringContaining('noShow'),
      details: [expect.objectContaining({ path: ['noShow'] })],
    });
    const unknown = await mark(alice, booking.id, { reason: 'late' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([expect.objectContaining({ code: 'unrecognized_keys' })]);
    const noBody = await t.http.post(`/api/v2/bookings/${booking.id}/no-show`).set(...bearer(alice.token));
    expect(noBody.status).toBe(415);
    expect(await noShowOf(booking.id)).toBe(false);
  });

  it('through tRPC: the same procedure and rules', async () => {
    const booking = await createBooking(t.em(), { eventType: intro, startAt: '2026-05-30T09:00:00Z', invitee: { email: 'via.trpc@example.test' } });
    const client = trpcClient(t.siteUrl, { bearer: alice.token });
    const marked = await client.bookings.markNoShow.mutate({ id: booking.id });
    expect(marked.id).toBe(booking.id);
    expect(await contact('via.trpc@example.test')).toMatchObject({ noShows: 1 });
    const future = await createBooking(t.em(), { eventType: intro, startAt: '2026-06-05T09:00:00Z' });
    expect(await failure(client.bookings.markNoShow.mutate({ id: future.id }))).toMatchObject({ status: 409 });
  });
});
