/**
 * Where a booking happens: the invitee's choice among the event type's locations on every door (REST, tRPC, MCP,
 * the public page), chosen alone when there is one, a 400 naming the field when wrong; kept by a reschedule; and
 * carried into the invitee's .ics, the e-mails' text and their invitations, parsed back.
 */
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import ical, { type VEvent } from 'node-ical';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, invitationOf, type MailServer, mailsTo, publicTrpc, startMailServer } from '../booking-messages/support.ts';
import type { TestApp } from '../helpers/app.ts';
import { bearer, createUserWithToken, type TestUser } from '../helpers/factories.ts';
import { expectBadRequest } from '../helpers/problems.ts';
import { trpcClient } from '../first-party/support.ts';
import { connectWithToken, errorBody, structured } from '../mcp/support.ts';
import { startListeningApp } from '../oauth/support.ts';
import { invitee, setSchedule } from './fixtures.ts';

const ALL_DAY = [{ start: '00:00', end: '24:00' }];
const EVERY_DAY = { monday: ALL_DAY, tuesday: ALL_DAY, wednesday: ALL_DAY, thursday: ALL_DAY, friday: ALL_DAY, saturday: ALL_DAY, sunday: ALL_DAY };
const OFFICE = 'Torstraße 1, 10119 Berlin';
const STUDIO = 'Rua Augusta 10, Lisboa';
const LINK = 'https://meet.example.com/hana';
const HOST_PHONE = '+49 30 1234567';

let slotCounter = 0;
/** A distinct start on the hour, days ahead. */
function nextStart(): string {
  slotCounter += 1;
  const day = new Date(Date.now() + (2 + Math.floor(slotCounter / 20)) * 86_400_000);
  day.setUTCHours(slotCounter % 20, 0, 0, 0);
  return day.toISOString();
}

/** A property's value as node-ical gives it: the text, or `{params, val}` when the property has parameters. */
const valueOf = (property: unknown): unknown => (typeof property === 'object' && property !== null && 'val' in property ? property.val : property);

/** The VEVENT of an iCalendar text, parsed by node-ical. */
function eventOf(text: string): VEvent {
  return Object.values(ical.sync.parseICS(text)).find((component) => component?.type === 'VEVENT') as VEvent;
}

let t: TestApp & { siteUrl: string };
let mail: MailServer;
let host: TestUser;
let mcp: McpClient;
const eventTypes: Record<'none' | 'office' | 'several' | 'callMe', string> = { none: '', office: '', several: '', callMe: '' };

beforeAll(async () => {
  mail = await startMailServer();
  t = await startListeningApp({ env: { SMTP_URL: mail.url, TRUST_PROXY: 'true' } });
  host = await createUserWithToken(t.em(), { timezone: 'UTC', name: 'Hana Host' });
  await setSchedule(t.em(), host.id, EVERY_DAY);
  mcp = await connectWithToken(`${t.siteUrl}/mcp`, host.token);
  const make = async (name: string, locations: object[]) => {
    const res = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name, durationsMin: [30], reminders: [], locations });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as string;
  };
  eventTypes.none = await make('Anywhere', []);
  eventTypes.office = await make('Office visit', [{ kind: 'in_person', address: OFFICE }]);
  eventTypes.callMe = await make('Callback', [{ kind: 'invitee_phone' }]);
  eventTypes.several = await make('Consultation', [
    { kind: 'in_person', address: OFFICE },
    { kind: 'in_person', address: STUDIO },
    { kind: 'link', url: LINK },
    { kind: 'phone', number: HOST_PHONE },
    { kind: 'invitee_phone' },
    { kind: 'ask_invitee' },
  ]);
});
afterAll(async () => {
  await mcp?.close();
  await t?.close();
  await mail?.close();
});

const book = (eventTypeId: string, extra: object = {}, who = invitee()) =>
  t.http
    .post('/api/v2/bookings')
    .set(...bearer(host.token))
    .send({ eventTypeId, start: nextStart(), durationMin: 30, invitee: who, ...extra });

describe('choosing on POST /bookings', () => {
  it('one location is taken without being named, and every read returns it', async () => {
    const res = await book(eventTypes.office);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.location).toEqual({ kind: 'in_person', value: OFFICE });
    expect((await t.http.get(`/api/v2/bookings/${res.body.id}`).set(...bearer(host.token))).body.location).toEqual(res.body.location);
    const viaTrpc = await trpcClient(t.siteUrl, { bearer: host.token }).bookings.get.query({ id: res.body.id });
    expect(viaTrpc.location).toEqual(res.body.location);
    const listed = await t.http.get('/api/v2/bookings').query({ eventTypeId: eventTypes.office }).set(...bearer(host.token));
    expect(listed.body.data.find((booking: { id: string }) => booking.id === res.body.id).location).toEqual(res.body.location);
  });

  it('among several, the chosen one with its text', async () => {
    expect((await book(eventTypes.several, { location: { kind: 'link' } })).body.location).toEqual({ kind: 'link', value: LINK });
    expect((await book(eventTypes.several, { location: { kind: 'phone' } })).body.location).toEqual({ kind: 'phone', value: HOST_PHONE });
    expect((await book(eventTypes.several, { location: { kind: 'in_person', value: STUDIO } })).body.location).toEqual({ kind: 'in_person', value: STUDIO });
    expect((await book(eventTypes.several, { location: { kind: 'invitee_phone', value: '+351 912 345 678' } })).body.location).toEqual({
      kind: 'invitee_phone',
      value: '+351 912 345 678',
    });
    expect((await book(eventTypes.several, { location: { kind: 'ask_invitee', value: 'Café Lumen' } })).body.location).toEqual({
      kind: 'invitee_input',
      value: 'Café Lumen',
    });
  });

  it('locationInput keeps its meaning: the place itself without locations, the invitee’s number for invitee_phone', async () => {
    expect((await book(eventTypes.none, { locationInput: 'Café Central' })).body.location).toEqual({ kind: 'invitee_input', value: 'Café Central' });
    expect((await book(eventTypes.none)).body.location).toBeNull();
    expect((await book(eventTypes.callMe, { locationInput: '+1 415 555 0123' })).body.location).toEqual({ kind: 'invitee_phone', value: '+1 415 555 0123' });
  });

  it('a wrong choice is a 400 naming the field, and books nothing', async () => {
    const [before] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from booking where owner_id = ?', [host.id]);
    expectBadRequest(await book(eventTypes.several), ['location']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'video' } }), ['location', 'kind']);
    expectBadRequest(await book(eventTypes.office, { location: { kind: 'link' } }), ['location', 'kind']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'in_person' } }), ['location', 'value']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'in_person', value: 'Elsewhere 5' } }), ['location', 'value']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'invitee_phone' } }), ['location', 'value']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'invitee_phone', value: 'ring me' } }), ['location', 'value']);
    expectBadRequest(await book(eventTypes.several, { location: { kind: 'link', extra: 1 } }), ['location']);
    expectBadRequest(await book(eventTypes.callMe), ['location', 'value']);
    expectBadRequest(await book(eventTypes.office, { locationInput: 'My place' }), ['locationInput']);
    expectBadRequest(await book(eventTypes.none, { location: { kind: 'ask_invitee', value: 'x' } }), ['location']);
    const [after] = await t.em().execute<{ n: number }[]>('select count(*)::int as n from booking where owner_id = ?', [host.id]);
    expect(after!.n).toBe(before!.n);
  });

  it('through MCP too', async () => {
    const args = { eventTypeId: eventTypes.several, start: nextStart(), durationMin: 30, invitee: invitee() };
    const booked = structured(await mcp.callTool({ name: 'create_booking', arguments: { ...args, location: { kind: 'link' } } }));
    expect(booked.location).toEqual({ kind: 'link', value: LINK });
    const refused = errorBody(await mcp.callTool({ name: 'create_booking', arguments: { ...args, start: nextStart() } }));
    expect(refused.title).toBe('Bad Request');
    expect(refused.details).toEqual([expect.objectContaining({ path: ['location'] })]);
  });

  it('a reschedule keeps the location, and changing the event type later does not touch it', async () => {
    const created = await book(eventTypes.several, { location: { kind: 'in_person', value: OFFICE } });
    const moved = await t.http.post(`/api/v2/bookings/${created.body.id}/reschedule`).set(...bearer(host.token)).send({ start: nextStart() });
    expect(moved.status).toBe(200);
    expect(moved.body.location).toEqual({ kind: 'in_person', value: OFFICE });
    const other = await t.http.post('/api/v2/event-types').set(...bearer(host.token)).send({ name: 'Temp', durationsMin: [30], locations: [{ kind: 'in_person', address: OFFICE }] });
    const booked = await book(other.body.id);
    await t.http.patch(`/api/v2/event-types/${other.body.id}`).set(...bearer(host.token)).send({ locations: [{ kind: 'ask_invitee' }] });
    expect((await t.http.get(`/api/v2/bookings/${booked.body.id}`).set(...bearer(host.token))).body.location).toEqual({ kind: 'in_person', value: OFFICE });
  });
});

describe('the public booking page, the .ics file and the e-mails', () => {
  it('an online meeting: the link in the booking, LOCATION and URL of the .ics and the invitation, and the e-mails’ text', async () => {
    const who = { name: 'Inês Carvalho', email: 'ines.online@example.test', timezone: 'Europe/Lisbon' };
    const booking = await publicTrpc(t).book({ eventTypeId: eventTypes.several, start: nextStart(), durationMin: 30, invitee: who, location: { kind: 'link' } });
    expect((booking as unknown as { location: unknown }).location).toEqual({ kind: 'link', value: LINK });

    const ics = await t.http.get(`${new URL(booking.links.manage).pathname}/event.ics`);
    expect(ics.status).toBe(200);
    const file = eventOf(ics.text);
    expect(file.location).toBe(LINK);
    expect(valueOf(file.url)).toBe(LINK);

    const [confirmation] = await eventually(() => (mailsTo(mail, who.email).length ? mailsTo(mail, who.email) : undefined));
    expect(confirmation!.parsed.text).toContain(`Where: Online at ${LINK}`);
    expect(confirmation!.parsed.html).toContain(LINK);
    const invitation = invitationOf(confirmation!);
    expect(invitation.event.location).toBe(LINK);
    expect(valueOf(invitation.event.url)).toBe(LINK);

    const [hostMail] = await eventually(() => {
      const mine = mailsTo(mail, host.email).filter((message) => message.parsed.text?.includes(who.name));
      return mine.length ? mine : undefined;
    });
    expect(hostMail!.parsed.text).toContain(`Where: Online at ${LINK}`);
  });

  it('a phone call: who calls whom, in each person’s e-mail; LOCATION names the number', async () => {
    const who = { name: 'Rui Costa', email: 'rui.phone@example.test', timezone: 'Europe/Lisbon' };
    const number = '+351 912 345 678';
    const booking = await publicTrpc(t).book({
      eventTypeId: eventTypes.several,
      start: nextStart(),
      durationMin: 30,
      invitee: who,
      location: { kind: 'invitee_phone', value: number },
    });
    const [confirmation] = await eventually(() => (mailsTo(mail, who.email).length ? mailsTo(mail, who.email) : undefined));
    expect(confirmation!.parsed.text).toContain(`Where: Hana Host calls you at ${number}`);
    expect(invitationOf(confirmation!).event.location).toBe(`Phone: ${number}`);
    expect(String(invitationOf(confirmation!).event.description)).toContain(`Where: Hana Host calls you at ${number}`);
    const [hostMail] = await eventually(() => {
      const mine = mailsTo(mail, host.email).filter((message) => message.parsed.text?.includes(who.name));
      return mine.length ? mine : undefined;
    });
    expect(hostMail!.parsed.text).toContain(`Where: Call Rui Costa at ${number}`);
    const file = eventOf((await t.http.get(`${new URL(booking.links.manage).pathname}/event.ics`)).text);
    expect(file.location).toBe(`Phone: ${number}`);
    expect(file.url).toBeFalsy();
  });

  it('an address, and the public page refuses a wrong choice with a 400 naming the field', async () => {
    const who = { name: 'Ada Address', email: 'ada.address@example.test', timezone: 'UTC' };
    const booking = await publicTrpc(t).book({
      eventTypeId: eventTypes.several,
      start: nextStart(),
      durationMin: 30,
      invitee: who,
      location: { kind: 'in_person', value: OFFICE },
    });
    const file = eventOf((await t.http.get(`${new URL(booking.links.manage).pathname}/event.ics`)).text);
    expect(file.location).toBe(OFFICE);
    const [confirmation] = await eventually(() => (mailsTo(mail, who.email).length ? mailsTo(mail, who.email) : undefined));
    expect(confirmation!.parsed.text).toContain(`Where: In person at ${OFFICE}`);
    expect(invitationOf(confirmation!).event.location).toBe(OFFICE);

    const refused = await t.http
      .post('/trpc/publicBooking.book')
      .set('X-Forwarded-For', '203.0.113.77')
      .send({ json: { eventTypeId: eventTypes.several, start: nextStart(), durationMin: 30, invitee: invitee() } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('choose one of this event type');
  });
});
