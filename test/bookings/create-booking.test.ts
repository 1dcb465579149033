import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from './fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

// "Now" is Sunday 2026-03-01 12:00 UTC; the owner works Monday to Friday 09:00–17:00 UTC.
const NOW = '2026-03-01T12:00:00Z';
const MONDAY = '2026-03-02';

describe('POST /api/v2/bookings', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let eventTypeId: string;

  const post = (body: unknown, user: TestUser = owner) => t.http.post('/api/v2/bookings').set(...bearer(user.token)).send(body as object);
  const body = (overrides: Record<string, unknown> = {}) => ({
    eventTypeId,
    start: `${MONDAY}T10:00:00Z`,
    durationMin: 30,
    invitee: invitee(),
    ...overrides,
  });

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW) });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC', name: 'Olga Owner' });
    other = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, {
      name: 'Intro call',
      slug: 'intro',
      durationsMin: [30, 60],
      bufferBeforeMin: 10,
      bufferAfterMin: 5,
    })).id;
  });
  afterAll(() => t.close());

  it('creates an active booking: 201 with the Booking, and a busy block holding the buffers', async () => {
    const res = await post(
      body({
        start: `${MONDAY}T11:00:00+00:00`,
        invitee: { ...invitee('ivy@example.test'), textReminderNumber: '+14155550123', smsOptIn: true },
        answers: [{ questionId: 'topic', value: 'Pricing' }],
        guests: ['guest@example.test'],
        notes: 'See you',
        locationInput: 'Office 4',
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      eventType: { id: eventTypeId, name: 'Intro call', slug: 'intro' },
      startAt: `${MONDAY}T11:00:00.000Z`,
      endAt: `${MONDAY}T11:30:00.000Z`,
      durationMin: 30,
      status: 'active',
      location: { kind: 'invitee_input', value: 'Office 4' },
      invitee: { name: 'Ivy Invitee', email: 'ivy@example.test', timezone: 'Europe/London' },
      notes: 'See you',
      answers: [{ questionId: 'topic', value: 'Pricing' }],
      guests: ['guest@example.test'],
      noShow: false,
      canceledAt: null,
      cancelReason: null,
      canceledBy: null,
      declinedAt: null,
      declineReason: null,
      seriesId: null,
      createdAt: new Date(NOW).toISOString(),
      calendarEvents: [],
    });
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    const [row] = await t.em().execute(
      `select b.host_id, b.invitee_phone, b.invitee_sms_opt_in, b.guests, b.answers, b.notes,
              lower(bb.busy) as busy_start, upper(bb.busy) as busy_end, bb.seats_taken, bb.active
         from booking b join booking_busy_block l on l.booking_id = b.id join busy_block bb on bb.id = l.busy_block_id
        where b.id = ?`,
      [res.body.id],
    );
    expect(row).toMatchObject({
      host_id: owner.id,
      invitee_phone: '+14155550123',
      invitee_sms_opt_in: true,
      guests: ['guest@example.test'],
      answers: [{ questionId: 'topic', value: 'Pricing' }],
      notes: 'See you',
      seats_taken: 1,
      active: true,
    });
    expect(new Date(row!.busy_start).toISOString()).toBe(`${MONDAY}T10:50:00.000Z`);
    expect(new Date(row!.busy_end).toISOString()).toBe(`${MONDAY}T11:35:00.000Z`);
  });

  it('validates the body as the spec table says: 400 with details', async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ eventTypeId: undefined }, ['eventTypeId']],
      [{ start: undefined }, ['start']],
      [{ start: '2026-03-02 10:00' }, ['start']],
      [{ start: '2026-03-02T10:00:00' }, ['start']],
      [{ durationMin: undefined }, ['durationMin']],
      [{ durationMin: 30.5 }, ['durationMin']],
      [{ durationMin: '30' }, ['durationMin']],
      [{ invitee: undefined }, ['invitee']],
      [{ invitee: { email: 'a@example.test', timezone: 'UTC' } }, ['invitee', 'name']],
      [{ invitee: { name: 'A', email: 'not-an-email', timezone: 'UTC' } }, ['invitee', 'email']],
      [{ invitee: { name: 'A', email: 'a@example.test', timezone: 'Mars/Olympus' } }, ['invitee', 'timezone']],
      [{ invitee: { name: 'A', email: 'a@example.test' } }, ['invitee', 'timezone']],
      [{ invitee: { ...invitee(), smsOptIn: 'false' } }, ['invitee', 'smsOptIn']],
      [{ invitee: { ...invitee(), textReminderNumber: '0155 555' } }, ['invitee', 'textReminderNumber']],
      [{ answers: [{ questionId: 'q' }] }, ['answers', 0, 'value']],
      [{ guests: ['nope'] }, ['guests', 0]],
      [{ notes: 42 }, ['notes']],
      [{ locationInput: false }, ['locationInput']],
    ];
    for (const [overrides, path] of cases) {
      const res = await post(body(overrides));
      expect(res.status, JSON.stringify(overrides)).toBe(400);
      expect(res.body.title).toBe('Bad Request');
      expect(res.body.details.map((d: { path: unknown }) => d.path)).toContainEqual(path);
    }
  });

  it('answers 404 for an unknown event type and for another user’s', async () => {
    const foreign = (await createEventType(t.em(), other.id)).id;
    await setSchedule(t.em(), other.id, WEEKDAYS_9_TO_5);
    for (const id of ['no-such-event-type', foreign]) {
      const res = await post(body({ eventTypeId: id }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ title: 'Not Found', message: 'Event type not found' });
    }
  });

  it('answers 409 for an inactive event type', async () => {
    const inactive = (await createEventType(t.em(), owner.id, { active: false })).id;
    const res = await post(body({ eventTypeId: inactive }));
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/inactive/);
  });

  it('answers 409 for any slot the engine would not offer', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ durationMin: 45 }, /does not offer 45-minute/],
      [{ start: `${MONDAY}T10:10:00Z` }, /grid/],
      [{ start: `${MONDAY}T08:30:00Z` }, /outside the available hours/],
      [{ start: `${MONDAY}T16:45:00Z` }, /outside the available hours/],
      [{ start: '2026-03-01T13:00:00Z' }, /outside the available hours/], // a Sunday
      [{ start: '2026-02-27T10:00:00Z' }, /past/],
      [{ start: `${MONDAY}T10:00:30Z` }, /grid/],
    ];
    for (const [overrides, message] of cases) {
      const res = await post(body(overrides));
      expect(res.status, JSON.stringify(overrides)).toBe(409);
      expect(res.body).toEqual({ title: 'Conflict', message: expect.stringMatching(message) });
    }
  });

  it('answers 409 for a slot that is taken or whose buffers overlap a booking', async () => {
    expect((await post(body({ start: `${MONDAY}T14:00:00Z` }))).status).toBe(201);
    // Busy now: 13:50–14:35. 13:30 (buffered 13:20–14:05) and 14:30 (buffered 14:20–15:05) overlap it.
    for (const start of [`${MONDAY}T14:00:00Z`, `${MONDAY}T13:30:00Z`, `${MONDAY}T14:30:00Z`]) {
      const res = await post(body({ start }));
      expect(res.status, start).toBe(409);
      expect(res.body.message).toMatch(/taken/);
    }
    // A 60-minute booking at 14:00 overlaps too; 15:00 (buffered 14:50–16:05) is free.
    expect((await post(body({ start: `${MONDAY}T14:00:00Z`, durationMin: 60 }))).status).toBe(409);
    expect((await post(body({ start: `${MONDAY}T15:00:00Z`, durationMin: 60 }))).status).toBe(201);
  });

  it('refuses a slot inside the minimum notice', async () => {
    const soon = (await createEventType(t.em(), owner.id, { minNoticeMin: 24 * 60 })).id;
    // Monday 09:00 is 21 hours after "now": too soon; Tuesday is fine.
    const res = await post(body({ eventTypeId: soon, start: `${MONDAY}T09:00:00Z` }));
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/minimum notice/);
    expect((await post(body({ eventTypeId: soon, start: '2026-03-03T09:00:00Z' }))).status).toBe(201);
  });

  it('needs the write:bookings scope', async () => {
    const reader = await createUserWithToken(t.em(), { scopes: ['read:bookings'] });
    const res = await post(body(), reader);
    expect(res.status).toBe(403);
  });
});
