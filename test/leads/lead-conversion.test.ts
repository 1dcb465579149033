import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { createEventType } from '../helpers/booking-factories.ts';

const NOW = '2026-03-01T12:00:00Z';

describe('a booking converts the matching lead', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventTypeId: string;
  let otherEventTypeId: string;

  async function addLead(eventType: string, email: string, bookingId: string | null = null): Promise<string> {
    const id = newId();
    await t.em().execute(
      `insert into lead (id, owner_id, event_type_id, name, email, timezone, status, booking_id, created_at)
       values (?, ?, ?, 'Lee Lead', ?, 'UTC', 'contacted', ?, '2026-02-01T00:00:00Z')`,
      [id, owner.id, eventType, email, bookingId],
      'run',
    );
    return id;
  }
  const lead = async (id: string) =>
    (await t.em().execute('select booking_id, completed_at, status from lead where id = ?', [id]))[0] as {
      booking_id: string | null;
      completed_at: string | null;
      status: string;
    };

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW) });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventTypeId = (await createEventType(t.em(), owner.id, { recurrence: { maxCount: 4 } })).id;
    otherEventTypeId = (await createEventType(t.em(), owner.id)).id;
  });
  afterAll(() => t.close());

  it('matches the e-mail case-insensitively on the same event type only, and makes the person a client', async () => {
    const matching = await addLead(eventTypeId, 'Lee.Lead@Example.TEST');
    const otherEventType = await addLead(otherEventTypeId, 'lee.lead@example.test');
    const otherPerson = await addLead(eventTypeId, 'someone.else@example.test');
    await t.em().execute(
      `insert into contact (owner_id, email_key, email, name, kind, status, search_text, first_seen_at, last_activity_at)
       values (?, 'lee.lead@example.test', 'Lee.Lead@Example.TEST', 'Lee Lead', 'lead', 'contacted', 'lee', now(), now())`,
      [owner.id],
      'run',
    );

    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({
        eventTypeId,
        start: '2026-03-02T09:00:00Z',
        durationMin: 30,
        invitee: { name: 'Lee Lead', email: 'lee.lead@example.test', timezone: 'UTC' },
      });
    expect(res.status).toBe(201);

    const converted = await lead(matching);
    expect(converted.booking_id).toBe(res.body.id);
    expect(new Date(converted.completed_at!).toISOString()).toBe(new Date(NOW).toISOString());
    expect(converted.status).toBe('contacted');
    expect((await lead(otherEventType)).booking_id).toBeNull();
    expect((await lead(otherPerson)).booking_id).toBeNull();

    const [contact] = await t.em().execute(
      'select kind, status, meetings from contact where owner_id = ? and email_key = ?',
      [owner.id, 'lee.lead@example.test'],
    );
    expect(contact).toEqual({ kind: 'client', status: 'client', meetings: 1 });
  });

  it('leaves an already converted lead alone', async () => {
    const [previous] = await t.em().execute<{ id: string }[]>('select id from booking where owner_id = ? limit 1', [owner.id]);
    const done = await addLead(eventTypeId, 'done@example.test', previous!.id);
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(owner.token))
      .send({
        eventTypeId,
        start: '2026-03-02T10:00:00Z',
        durationMin: 30,
        invitee: { name: 'Done', email: 'DONE@example.test', timezone: 'UTC' },
      });
    expect(res.status).toBe(201);
    expect((await lead(done)).booking_id).toBe(previous!.id);
  });

  it('a series converts the lead with its first occurrence, and the contact counts every occurrence', async () => {
    const matching = await addLead(eventTypeId, 'sam.series@example.test');
    const res = await t.http
      .post('/api/v2/booking-series')
      .set(...bearer(owner.token))
      .send({
        eventTypeId,
        startAt: '2026-03-03T09:00:00Z',
        durationMin: 30,
        invitee: { name: 'Sam Series', email: 'Sam.Series@example.test', timezone: 'UTC' },
        recurrence: { frequency: 'weekly', interval: 1, count: 3 },
      });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await lead(matching)).booking_id).toBe(res.body.bookings[0].id);
    const [contact] = await t.em().execute(
      'select kind, status, meetings from contact where owner_id = ? and email_key = ?',
      [owner.id, 'sam.series@example.test'],
    );
    expect(contact).toEqual({ kind: 'client', status: 'client', meetings: 3 });
  });
});
