import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.ts';
import { BEHIND_PROXY, startTestApp, type TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';

const NOW = '2026-03-01T12:00:00Z';
const ALL_EVENTS = [
  'booking.created',
  'booking.rescheduled',
  'booking.canceled',
  'booking.no_show',
  'lead.created',
  'lead.updated',
  'lead.converted',
];

interface StoredEvent {
  id: string;
  type: string;
  body: string;
  deliveries: number;
}

/** The outbox: every write that changes a booking or a lead writes its event in the same transaction. */
describe('the webhook outbox', () => {
  let t: TestApp;
  let owner: TestUser;
  let eventType: TestEventType;

  const events = async (): Promise<StoredEvent[]> =>
    t.em().execute<StoredEvent[]>(
      `select e.id, e.type, e.body, (select count(*)::int from webhook_delivery d where d.event_id = e.id) as deliveries
         from webhook_event e where e.owner_id = ? order by e.created_at, e.type`,
      [owner.id],
    );
  const eventsAfter = async (write: () => Promise<unknown>): Promise<StoredEvent[]> => {
    const before = new Set((await events()).map((event) => event.id));
    await write();
    return (await events()).filter((event) => !before.has(event.id));
  };
  const dataOf = (event: StoredEvent) => JSON.parse(event.body).data;
  const publicMutation = (path: string, input: unknown) =>
    t.http.post(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.7').send(superjson.serialize(input) as object);

  beforeAll(async () => {
    t = await startTestApp({ clock: fixedClock(NOW), env: { ...BEHIND_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventType = await createEventType(t.em(), owner.id);
    for (const url of ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b']) {
      const res = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url, events: ALL_EVENTS });
      expect(res.status).toBe(201);
    }
    // Neither a disabled endpoint nor one not subscribed gets deliveries.
    await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: 'http://127.0.0.1:9/off', events: ALL_EVENTS, active: false });
    await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: 'http://127.0.0.1:9/ping', events: ['lead.converted'] });
  });
  afterAll(() => t.close());

  it('writes no event at all for an owner with no endpoint subscribed to it', async () => {
    const quiet = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), quiet.id, WEEKDAYS_9_TO_5);
    const quietType = await createEventType(t.em(), quiet.id);
    await t.http.post('/api/v2/webhooks').set(...bearer(quiet.token)).send({ url: 'http://127.0.0.1:9/leads', events: ['lead.updated'] });
    const res = await t.http
      .post('/api/v2/bookings')
      .set(...bearer(quiet.token))
      .send({ eventTypeId: quietType.id, start: '2026-03-02T09:00:00Z', durationMin: 30, invitee: invitee() });
    expect(res.status).toBe(201);
    const [row] = await t.em().execute<{ events: number; deliveries: number }[]>(
      `select (select count(*)::int from webhook_event where owner_id = ?) as events,
              (select count(*)::int from webhook_delivery d join webhook_endpoint w on w.id = d.endpoint_id where w.owner_id = ?) as deliveries`,
      [quiet.id, quiet.id],
    );
    expect(row).toEqual({ events: 0, deliveries: 0 });
  });

  it('writes booking.created, rescheduled, no_show and canceled with the booking as the API returned it', async () => {
    const book = () =>
      t.http
        .post('/api/v2/bookings')
        .set(...bearer(owner.token))
        .send({ eventTypeId: eventType.id, start: '2026-03-02T09:00:00Z', durationMin: 30, invitee: invitee() });
    let created!: { body: unknown };
    const [createdEvent, ...others] = await eventsAfter(async () => (created = await book()));
    expect(others).toEqual([]);
    expect(createdEvent).toMatchObject({ type: 'booking.created', deliveries: 2 });
    expect(dataOf(createdEvent!)).toEqual(created.body);
    const envelope = JSON.parse(createdEvent!.body);
    expect(envelope).toEqual({ id: createdEvent!.id, type: 'booking.created', createdAt: new Date(NOW).toISOString(), data: created.body });
    expect(envelope.id).toMatch(/^evt_/);
    const id = (created.body as { id: string }).id;

    let rescheduled!: { body: unknown };
    const [movedEvent] = await eventsAfter(async () => {
      rescheduled = await t.http.post(`/api/v2/bookings/${id}/reschedule`).set(...bearer(owner.token)).send({ start: '2026-03-02T10:00:00Z' });
    });
    expect(movedEvent?.type).toBe('booking.rescheduled');
    expect(dataOf(movedEvent!)).toEqual(rescheduled.body);

    let canceled!: { body: unknown };
    const [canceledEvent] = await eventsAfter(async () => {
      canceled = await t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(owner.token)).send({});
    });
    expect(canceledEvent?.type).toBe('booking.canceled');
    expect(dataOf(canceledEvent!)).toEqual(canceled.body);
    // Canceling again changes nothing and emits nothing.
    expect(await eventsAfter(() => t.http.delete(`/api/v2/bookings/${id}`).set(...bearer(owner.token)).send({}))).toEqual([]);

    const past = await createBooking(t.em(), { eventType, startAt: '2026-02-27T10:00:00Z' });
    let marked!: { body: unknown };
    const [noShowEvent] = await eventsAfter(async () => {
      marked = await t.http.post(`/api/v2/bookings/${past.id}/no-show`).set(...bearer(owner.token)).send({});
    });
    expect(noShowEvent?.type).toBe('booking.no_show');
    expect(dataOf(noShowEvent!)).toEqual(marked.body);
    let unmarkedBody!: { body: unknown };
    const [unmarked] = await eventsAfter(async () => {
      unmarkedBody = await t.http.post(`/api/v2/bookings/${past.id}/no-show`).set(...bearer(owner.token)).send({ noShow: false });
    });
    expect(unmarked?.type).toBe('booking.no_show');
    expect(dataOf(unmarked!)).toEqual(unmarkedBody.body);
  });

  it('emits nothing for a booking that rolled back (409, the slot is taken)', async () => {
    const body = { eventTypeId: eventType.id, start: '2026-03-03T09:00:00Z', durationMin: 30 };
    expect((await t.http.post('/api/v2/bookings').set(...bearer(owner.token)).send({ ...body, invitee: invitee() })).status).toBe(201);
    const refused = await eventsAfter(async () => {
      const res = await t.http.post('/api/v2/bookings').set(...bearer(owner.token)).send({ ...body, invitee: invitee() });
      expect(res.status).toBe(409);
    });
    expect(refused).toEqual([]);
  });

  it('writes lead.created and lead.updated from the public page, lead.updated from PATCH, lead.converted from a booking', async () => {
    const email = 'lena.lead@example.test';
    const [created] = await eventsAfter(() =>
      publicMutation('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Lena', email, timezone: 'UTC' }),
    );
    expect(created?.type).toBe('lead.created');
    const leadId = dataOf(created!).id as string;
    const listed = await t.http.get('/api/v2/leads').set(...bearer(owner.token));
    expect(dataOf(created!)).toEqual(listed.body.data.find((lead: { id: string }) => lead.id === leadId));

    const [again] = await eventsAfter(() =>
      publicMutation('publicBooking.captureLead', { eventTypeId: eventType.id, email, timezone: 'Europe/Rome' }),
    );
    expect(again).toMatchObject({ type: 'lead.updated' });
    expect(dataOf(again!).timezone).toBe('Europe/Rome');

    let patched!: { body: unknown };
    const [statusChanged] = await eventsAfter(async () => {
      patched = await t.http.patch(`/api/v2/leads/${leadId}`).set(...bearer(owner.token)).send({ status: 'contacted' });
    });
    expect(statusChanged?.type).toBe('lead.updated');
    expect(dataOf(statusChanged!)).toEqual(patched.body);
    expect(await eventsAfter(() => t.http.patch(`/api/v2/leads/${leadId}`).set(...bearer(owner.token)).send({ status: 'contacted' }))).toEqual([]);

    const converted = await eventsAfter(() =>
      publicMutation('publicBooking.book', {
        eventTypeId: eventType.id,
        start: '2026-03-04T09:00:00Z',
        durationMin: 30,
        invitee: { name: 'Lena', email, timezone: 'UTC' },
      }),
    );
    expect(converted.map((event) => [event.type, event.deliveries]).sort()).toEqual([
      ['booking.created', 2],
      ['lead.converted', 3],
    ]);
    const conversion = converted.find((event) => event.type === 'lead.converted')!;
    expect(dataOf(conversion)).toMatchObject({ id: leadId, booked: true, status: 'contacted' });
  });
});
