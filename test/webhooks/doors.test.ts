import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitee, setSchedule, WEEKDAYS_9_TO_5 } from '../bookings/fixtures.ts';
import { signInClient, trpcClient } from '../first-party/support.ts';
import { BEHIND_PROXY, type TestApp } from '../helpers/app.ts';
import { createBooking, createEventType, type TestEventType } from '../helpers/booking-factories.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { connectWithToken, structured } from '../mcp/support.ts';
import { createPasswordUser, startListeningApp } from '../oauth/support.ts';
import { expectDelivered, futureSlot, type Receiver, startReceiver } from './support.ts';

const ALL_EVENTS = ['booking.created', 'booking.rescheduled', 'booking.canceled', 'booking.no_show', 'lead.created', 'lead.updated', 'lead.converted'];

/** Every door a write can come through emits its events, delivered signed to a real receiver. */
describe('webhook events from every door', () => {
  let t: TestApp & { siteUrl: string };
  let owner: TestUser;
  let eventType: TestEventType;
  let inbox: Receiver;
  let secret: string;

  let pastBookings = 0;
  /** A booking that has started (only those can be no-shows), on a day of its own so they never overlap. */
  const pastBooking = async () =>
    (await createBooking(t.em(), { eventType, startAt: new Date(Date.now() - ++pastBookings * 86_400_000) })).id;
  const publicCall = (path: string, input: unknown) =>
    t.http.post(`/trpc/${path}`).set('X-Forwarded-For', '203.0.113.9').send(superjson.serialize(input) as object);
  const leadOf = async (email: string) =>
    (await t.em().execute<{ id: string }[]>('select id from lead where owner_id = ? and email = ?', [owner.id, email]))[0]!.id;

  beforeAll(async () => {
    t = await startListeningApp({ env: { ...BEHIND_PROXY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' } });
    owner = await createUserWithToken(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), owner.id, WEEKDAYS_9_TO_5);
    eventType = await createEventType(t.em(), owner.id);
    inbox = await startReceiver();
    const res = await t.http.post('/api/v2/webhooks').set(...bearer(owner.token)).send({ url: inbox.url, events: ALL_EVENTS });
    expect(res.status).toBe(201);
    secret = res.body.secret;
  });
  afterAll(async () => {
    await t.close();
    await inbox.close();
  });

  it('/api/v2: booking created, rescheduled, no-show, canceled; lead updated by PATCH /leads/{id}', async () => {
    const created = await t.http.post('/api/v2/bookings').set(...bearer(owner.token))
      .send({ eventTypeId: eventType.id, start: futureSlot(1, 9), durationMin: 30, invitee: invitee() });
    expect(created.status).toBe(201);
    const moved = await t.http.post(`/api/v2/bookings/${created.body.id}/reschedule`).set(...bearer(owner.token)).send({ start: futureSlot(1, 10) });
    expect(moved.status).toBe(200);
    const canceled = await t.http.delete(`/api/v2/bookings/${moved.body.id}`).set(...bearer(owner.token)).send({});
    expect(canceled.status).toBe(200);
    const past = await pastBooking();
    expect((await t.http.post(`/api/v2/bookings/${past}/no-show`).set(...bearer(owner.token)).send({})).status).toBe(200);
    const email = 'rest.lead@example.test';
    await publicCall('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Rest Lead', email, timezone: 'UTC' });
    const lead = await leadOf(email);
    expect((await t.http.patch(`/api/v2/leads/${lead}`).set(...bearer(owner.token)).send({ status: 'qualified' })).status).toBe(200);

    const [createdEvent, , , , updated] = await expectDelivered(inbox, secret, [
      ['booking.created', created.body.id],
      ['booking.rescheduled', moved.body.id],
      ['booking.canceled', moved.body.id],
      ['booking.no_show', past],
      ['lead.updated', lead],
    ]);
    expect(createdEvent!.data).toEqual(created.body);
    expect(updated!.data).toMatchObject({ id: lead, status: 'qualified' });
  });

  it('/trpc with a bearer token: booking created, rescheduled, no-show, canceled; lead updated', async () => {
    const client = trpcClient(t.siteUrl, { bearer: owner.token });
    const created = await client.bookings.create.mutate({ eventTypeId: eventType.id, start: futureSlot(2, 9), durationMin: 30, invitee: invitee() });
    const moved = await client.bookings.reschedule.mutate({ id: created.id, start: futureSlot(2, 11) });
    await client.bookings.cancel.mutate({ id: moved.id });
    const past = await pastBooking();
    await client.bookings.markNoShow.mutate({ id: past });
    const email = 'trpc.lead@example.test';
    await publicCall('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Trpc Lead', email, timezone: 'UTC' });
    const lead = await leadOf(email);
    await client.leads.update.mutate({ id: lead, status: 'contacted' });

    await expectDelivered(inbox, secret, [
      ['booking.created', created.id],
      ['booking.rescheduled', moved.id],
      ['booking.canceled', moved.id],
      ['booking.no_show', past],
      ['lead.updated', lead],
    ]);
  });

  it('/trpc with a session (the web app): booking created and canceled, to the signed-in user\'s own endpoint', async () => {
    const user = await createPasswordUser(t.em(), { timezone: 'UTC' });
    await setSchedule(t.em(), user.id, WEEKDAYS_9_TO_5);
    const ownType = await createEventType(t.em(), user.id);
    const { client } = await signInClient(t, user);
    const ownInbox = await startReceiver();
    try {
      const endpoint = await client.webhooks.create.mutate({ url: ownInbox.url, events: ['booking.created', 'booking.canceled'] });
      const created = await client.bookings.create.mutate({ eventTypeId: ownType.id, start: futureSlot(3, 9), durationMin: 30, invitee: invitee() });
      await client.bookings.cancel.mutate({ id: created.id });
      await expectDelivered(ownInbox, endpoint.secret, [
        ['booking.created', created.id],
        ['booking.canceled', created.id],
      ]);
    } finally {
      await ownInbox.close();
    }
  });

  it('the public booking page: "leave details" is lead.created, a booking is booking.created and lead.converted', async () => {
    const email = 'page.lead@example.test';
    const captured = await publicCall('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Page Lead', email, timezone: 'UTC' });
    expect(captured.status).toBe(200);
    const lead = await leadOf(email);
    const booked = await publicCall('publicBooking.book', {
      eventTypeId: eventType.id,
      start: futureSlot(4, 9),
      durationMin: 30,
      invitee: { name: 'Page Lead', email, timezone: 'UTC' },
    });
    expect(booked.status).toBe(200);
    const [booking] = await t.em().execute<{ id: string }[]>('select id from booking where invitee_email = ?', [email]);
    const [, , converted] = await expectDelivered(inbox, secret, [
      ['lead.created', lead],
      ['booking.created', booking!.id],
      ['lead.converted', lead],
    ]);
    expect(converted!.data).toMatchObject({ id: lead, email });
  });

  it('/mcp tools (official SDK client): booking created, rescheduled, no-show, canceled; lead updated', async () => {
    const client = await connectWithToken(`${t.siteUrl}/mcp`, owner.token);
    try {
      const call = async (name: string, args: Record<string, unknown>) => structured(await client.callTool({ name, arguments: args }));
      const created = await call('create_booking', { eventTypeId: eventType.id, start: futureSlot(5, 9), durationMin: 30, invitee: invitee() });
      const moved = await call('reschedule_booking', { id: created.id, start: futureSlot(5, 12) });
      await call('cancel_booking', { id: moved.id });
      const past = await pastBooking();
      await call('mark_booking_no_show', { id: past });
      const email = 'mcp.lead@example.test';
      await publicCall('publicBooking.captureLead', { eventTypeId: eventType.id, name: 'Mcp Lead', email, timezone: 'UTC' });
      const lead = await leadOf(email);
      await call('update_lead', { id: lead, status: 'lost' });

      await expectDelivered(inbox, secret, [
        ['booking.created', created.id as string],
        ['booking.rescheduled', moved.id as string],
        ['booking.canceled', moved.id as string],
        ['booking.no_show', past],
        ['lead.updated', lead],
      ]);
    } finally {
      await client.close();
    }
  });
});
