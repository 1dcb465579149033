import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { MESSAGE_AUDIENCES, MESSAGE_KINDS } from './booking-messages.schemas.ts';
import { composeMessage, manageLinksOf, type StoredMessage } from './compose.ts';
import type { MessageFacts } from './message-facts.ts';

const facts: MessageFacts = {
  bookingId: 'booking-1',
  eventTypeName: 'Intro <call>',
  startAt: '2026-12-01T09:00:00.000Z',
  endAt: '2026-12-01T09:30:00.000Z',
  previous: { startAt: '2026-11-30T09:00:00.000Z', endAt: '2026-11-30T09:30:00.000Z' },
  location: 'https://meet.example.com/x',
  invitee: { name: 'Inês & "Co"', email: 'ines@example.com', timezone: 'Europe/Lisbon' },
  guests: ['rui@example.com'],
  answers: [{ questionId: 'company', value: 'Carvalho <b>Filhos</b>' }],
  notes: 'Line one\nLine two',
  canceled: { by: 'invitee', reason: 'Sick' },
  host: { name: 'Olivia Host', email: 'olivia@example.com', timezone: 'America/New_York' },
};
const settings = { siteUrl: 'https://scheduling.example', from: 'Scheduling <no-reply@scheduling.example>' };

function stored(kind: StoredMessage['kind'], audience: StoredMessage['audience'], more: Partial<MessageFacts> = {}): StoredMessage {
  const host = audience === 'host';
  return {
    id: `m-${kind}-${audience}`,
    kind,
    audience,
    recipient: host ? facts.host.email : audience === 'guest' ? 'rui@example.com' : facts.invitee.email,
    time_zone: host ? facts.host.timezone : facts.invitee.timezone,
    offset_min: kind === 'reminder' ? 1440 : null,
    sequence: 2,
    facts: { ...facts, ...more },
    created_at: '2026-11-24T10:00:00.000Z',
  };
}

describe('every kind of message, for every audience, rendered', () => {
  for (const kind of MESSAGE_KINDS) {
    for (const audience of MESSAGE_AUDIENCES) {
      it(`${kind} to the ${audience}`, async () => {
        const manage = 'https://scheduling.example/book/manage/bkm_secret';
        const mail = await composeMessage(stored(kind, audience), settings, manage);
        expect(mail.to).toBe(stored(kind, audience).recipient);
        expect(mail.from).toBe(settings.from);
        expect(mail.messageId).toBe(`m-${kind}-${audience}@scheduling.example`);
        expect(mail.subject.length).toBeGreaterThan(5);
        // Times in the recipient's zone, the zone named.
        const zone = audience === 'host' ? 'America/New_York' : 'Europe/Lisbon';
        const localStart = audience === 'host' ? '04:00' : '09:00';
        expect(mail.text).toContain(`${localStart}–`);
        expect(mail.text).toContain(`(${zone})`);
        expect(mail.html).toContain(`(${zone})`);
        // What people typed is escaped in the HTML, kept as typed in the text.
        expect(mail.html).not.toMatch(/<call>|<b>Filhos/);
        expect(mail.html).toMatch(/<!doctype html>/i);
        // The manage link only in the invitee's own messages (a cancellation or decline leaves nothing to manage).
        const linked = audience === 'invitee' && kind !== 'cancellation' && kind !== 'decline';
        expect(mail.text.includes(manage)).toBe(linked);
        expect(mail.html.includes(manage)).toBe(linked);
        // The invitation on the invitee's side of confirmations, updates and cancellations.
        const invited = audience !== 'host' && ['confirmation', 'update', 'cancellation'].includes(kind);
        expect(mail.invitation !== null).toBe(invited);
        if (mail.invitation) {
          const calendar = new ICAL.Component(ICAL.parse(mail.invitation.content));
          const event = calendar.getFirstSubcomponent('vevent')!;
          expect(calendar.getFirstPropertyValue('method')).toBe(kind === 'cancellation' ? 'CANCEL' : 'REQUEST');
          expect(event.getFirstPropertyValue('uid')).toBe('booking-1@scheduling.example');
          expect(event.getFirstPropertyValue('sequence')).toBe(2);
          expect(mail.invitation.method).toBe(kind === 'cancellation' ? 'CANCEL' : 'REQUEST');
        }
      });
    }
  }

  it('the host learns the answers, notes and guests; the invitee’s side does not see the answers', async () => {
    const host = await composeMessage(stored('confirmation', 'host'), settings, null);
    expect(host.text).toContain('company: Carvalho <b>Filhos</b>');
    expect(host.text).toContain('Guests: rui@example.com');
    expect(host.html).toContain('Line one<br>Line two');
    const invitee = await composeMessage(stored('confirmation', 'invitee'), settings, null);
    expect(invitee.text).not.toContain('Carvalho');
  });

  it('an update names the old time; a cancellation who canceled and why', async () => {
    expect((await composeMessage(stored('update', 'invitee'), settings, null)).text).toContain('Before: Monday, 30 November 2026, 09:00–09:30 (Europe/Lisbon)');
    const canceled = await composeMessage(stored('cancellation', 'host'), settings, null);
    expect(canceled.text).toContain('Inês & "Co" canceled');
    expect(canceled.text).toContain('Reason: Sick');
  });
});

describe('a booking that waits for the host’s confirmation', () => {
  const manage = 'https://scheduling.example/book/manage/bkm_secret';
  const pending = { approval: 'pending' as const, canceled: null };

  it('the request: the host is asked to confirm or decline in the dashboard; the invitee learns the invitation comes later', async () => {
    const host = await composeMessage(stored('request', 'host', pending), settings, null);
    expect(host.subject).toBe('Request: Inês & "Co", Intro <call>');
    expect(host.text).toContain('Confirm or decline: https://scheduling.example/app/bookings');
    expect(host.text).toContain('company: Carvalho <b>Filhos</b>');
    const invitee = await composeMessage(stored('request', 'invitee', pending), settings, manage);
    expect(invitee.subject).toBe('Requested: Intro <call> with Olivia Host');
    expect(invitee.text).toContain('Olivia Host still has to confirm it');
    expect(invitee.text).toContain(manage);
    expect(invitee.invitation).toBeNull();
  });

  it('a request moved or canceled carries no invitation, and says it is a request', async () => {
    for (const audience of ['invitee', 'guest'] as const) {
      const moved = await composeMessage(stored('update', audience, pending), settings, manage);
      expect(moved.invitation).toBeNull();
      expect(moved.subject).toBe('Request moved: Intro <call> with Olivia Host');
      const canceled = await composeMessage(stored('cancellation', audience, { approval: 'pending', canceled: { by: 'host', reason: null } }), settings, manage);
      expect(canceled.invitation).toBeNull();
    }
    const byHost = await composeMessage(stored('cancellation', 'invitee', { approval: 'pending', canceled: { by: 'host', reason: null } }), settings, null);
    expect(byHost.text).toContain('Olivia Host canceled your request for Intro <call>.');
    const byInvitee = await composeMessage(stored('cancellation', 'host', { approval: 'pending' }), settings, null);
    expect(byInvitee.text).toContain('Inês & "Co" canceled their request for Intro <call>.');
  });

  it('confirmed: the invitee gets the invitation, the host a note', async () => {
    const invitee = await composeMessage(stored('confirmation', 'invitee', { approval: 'confirmed' }), settings, manage);
    expect(invitee.text).toContain('Olivia Host confirmed your Intro <call>.');
    expect(invitee.invitation?.method).toBe('REQUEST');
    const host = await composeMessage(stored('confirmation', 'host', { approval: 'confirmed' }), settings, null);
    expect(host.subject).toBe('Confirmed: Inês & "Co", Intro <call>');
    expect(host.invitation).toBeNull();
  });

  it('declined by the host with a reason, or not confirmed before its start', async () => {
    const declined = await composeMessage(stored('decline', 'invitee', { declined: { reason: 'Away that week', expired: false } }), settings, manage);
    expect(declined.subject).toBe('Declined: Intro <call> with Olivia Host');
    expect(declined.text).toContain('Olivia Host declined your request for Intro <call>.');
    expect(declined.text).toContain('Reason: Away that week');
    expect(declined.text).not.toContain(manage);
    const expired = await composeMessage(stored('decline', 'host', { declined: { reason: 'Not confirmed before the start.', expired: true } }), settings, null);
    expect(expired.text).toContain('Inês & "Co"’s request for Intro <call> is declined: you did not confirm it before its start.');
    expect(expired.text).not.toContain('Reason:');
    const guest = await composeMessage(stored('decline', 'guest', { declined: { reason: null, expired: true } }), settings, null);
    expect(guest.text).toContain('Inês & "Co"’s request for Intro <call> is declined: Olivia Host did not confirm it before its start.');
  });
});

describe('a series’ one confirmation', () => {
  const manage = 'https://scheduling.example/book/manage/bkm_secret';
  const weeks = ['2026-12-01', '2026-12-08', '2026-12-15'];
  const series = {
    id: 'series-1',
    frequency: 'weekly' as const,
    interval: 1,
    occurrences: weeks.map((day, i) => ({ bookingId: `booking-${i + 1}`, startAt: `${day}T09:00:00.000Z`, endAt: `${day}T09:30:00.000Z` })),
  };
  const seriesFacts = { series, previous: null, canceled: null };

  it('lists every date in the reader’s zone and how often it repeats; the invitee’s copy carries the manage link', async () => {
    const invitee = await composeMessage(stored('confirmation', 'invitee', seriesFacts), settings, manage);
    expect(invitee.subject).toBe('Confirmed: Intro <call> with Olivia Host, every week, 3 times');
    expect(invitee.text).toContain('Repeats: Every week, 3 times');
    expect(invitee.text).toContain('Meeting 1: Tuesday, 1 December 2026, 09:00–09:30 (Europe/Lisbon)');
    expect(invitee.text).toContain('Meeting 3: Tuesday, 15 December 2026, 09:00–09:30 (Europe/Lisbon)');
    expect(invitee.html).toContain('Tuesday, 8 December 2026, 09:00–09:30 (Europe/Lisbon)');
    expect(invitee.text).toContain(manage);
    const host = await composeMessage(stored('confirmation', 'host', seriesFacts), settings, manage);
    expect(host.subject).toBe('New booking series: Inês & "Co", Intro <call> (3 meetings)');
    expect(host.text).toContain('Meeting 2: Tuesday, 8 December 2026, 04:00–04:30 (America/New_York)');
    expect(host.text).toContain('company: Carvalho <b>Filhos</b>');
    expect(host.text).not.toContain(manage);
    expect(host.invitation).toBeNull();
    const guest = await composeMessage(stored('confirmation', 'guest', seriesFacts), settings, manage);
    expect(guest.text).toContain('invited you to 3 meetings');
    expect(guest.text).not.toContain(manage);
  });

  it('its invitation: one VEVENT per occurrence, each with that occurrence’s UID and time, one METHOD:REQUEST', async () => {
    for (const audience of ['invitee', 'guest'] as const) {
      const mail = await composeMessage(stored('confirmation', audience, seriesFacts), settings, manage);
      const calendar = new ICAL.Component(ICAL.parse(mail.invitation!.content));
      expect(calendar.getFirstPropertyValue('method')).toBe('REQUEST');
      const events = calendar.getAllSubcomponents('vevent');
      expect(events.map((event) => event.getFirstPropertyValue('uid'))).toEqual(['booking-1', 'booking-2', 'booking-3'].map((id) => `${id}@scheduling.example`));
      expect(events.map((event) => (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString())).toEqual(series.occurrences.map((o) => o.startAt));
      expect(events.map((event) => (event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString())).toEqual(series.occurrences.map((o) => o.endAt));
      expect(events.map((event) => event.getFirstPropertyValue('sequence'))).toEqual([2, 2, 2]);
      expect(calendar.getAllSubcomponents('vtimezone')).toHaveLength(1);
    }
  });

  it('the invitee’s copy gives each meeting its own manage link (text, HTML and its event), the others none', async () => {
    const urls = Object.fromEntries(series.occurrences.map((o, i) => [o.bookingId, `https://scheduling.example/book/manage/bkm_${i + 1}`]));
    const invitee = await composeMessage(stored('confirmation', 'invitee', seriesFacts), settings, urls['booking-1']!, urls);
    expect(invitee.text).toContain(`Meeting 1: Tuesday, 1 December 2026, 09:00–09:30 (Europe/Lisbon) — reschedule or cancel: ${urls['booking-1']}`);
    expect(invitee.text).toContain(`Meeting 2: Tuesday, 8 December 2026, 09:00–09:30 (Europe/Lisbon) — reschedule or cancel: ${urls['booking-2']}`);
    expect(invitee.text).toContain(`Meeting 3: Tuesday, 15 December 2026, 09:00–09:30 (Europe/Lisbon) — reschedule or cancel: ${urls['booking-3']}`);
    for (const url of Object.values(urls)) expect(invitee.html).toContain(`<a href="${url}">reschedule or cancel</a>`);
    // No button for the first meeting alone: every meeting has its link.
    expect(invitee.text).not.toContain('Reschedule or cancel:');
    const events = new ICAL.Component(ICAL.parse(invitee.invitation!.content)).getAllSubcomponents('vevent');
    expect(events.map((event) => String(event.getFirstPropertyValue('description')).split('To cancel or reschedule: ')[1])).toEqual(Object.values(urls));
    for (const audience of ['guest', 'host'] as const) {
      const copy = await composeMessage(stored('confirmation', audience, seriesFacts), settings, urls['booking-1']!, urls);
      for (const url of Object.values(urls)) {
        expect(copy.text).not.toContain(url);
        expect(copy.html).not.toContain(url);
        expect(copy.invitation?.content ?? '').not.toContain(url);
      }
    }
  });

  it('a series’ sealed secret opens to every occurrence’s link, the button its booking’s; any other message’s to one', () => {
    const message = stored('confirmation', 'invitee', seriesFacts);
    const links = manageLinksOf(settings.siteUrl, message, JSON.stringify({ 'booking-1': 'bkm_a', 'booking-2': 'bkm_b' }));
    expect(links).toEqual({
      url: 'https://scheduling.example/book/manage/bkm_a',
      occurrences: { 'booking-1': 'https://scheduling.example/book/manage/bkm_a', 'booking-2': 'https://scheduling.example/book/manage/bkm_b' },
    });
    expect(manageLinksOf(settings.siteUrl, stored('update', 'invitee'), 'bkm_a')).toEqual({ url: 'https://scheduling.example/book/manage/bkm_a', occurrences: {} });
    expect(manageLinksOf(settings.siteUrl, message, null)).toEqual({ url: null, occurrences: {} });
  });

  it('a later message of one occurrence (a reminder, an update) is that occurrence’s alone', async () => {
    const update = await composeMessage(stored('update', 'invitee'), settings, manage);
    const calendar = new ICAL.Component(ICAL.parse(update.invitation!.content));
    expect(calendar.getAllSubcomponents('vevent')).toHaveLength(1);
  });
});

describe('a series’ one request, cancellation, confirmation or decline', () => {
  const weeks = ['2026-12-01', '2026-12-08', '2026-12-15'];
  const occurrences = weeks.map((day, i) => ({ bookingId: `booking-${i + 1}`, startAt: `${day}T09:00:00.000Z`, endAt: `${day}T09:30:00.000Z` }));
  const series = { id: 'series-1', frequency: 'weekly' as const, interval: 1, occurrences };
  const urls = Object.fromEntries(occurrences.map((o, i) => [o.bookingId, `https://scheduling.example/book/manage/bkm_${i + 1}`]));
  const eventsOf = (content: string) => new ICAL.Component(ICAL.parse(content)).getAllSubcomponents('vevent');

  it('the request: the host is asked once for every date; the invitee’s copy has each meeting’s link and no invitation', async () => {
    const pending = { series, previous: null, canceled: null, approval: 'pending' as const };
    const host = await composeMessage(stored('request', 'host', pending), settings, null);
    expect(host.subject).toBe('Request: Inês & "Co", Intro <call> (3 meetings)');
    expect(host.text).toContain('Inês & "Co" asked for 3 meetings of Intro <call> with you.');
    expect(host.text).toContain('Meeting 3: Tuesday, 15 December 2026, 04:00–04:30 (America/New_York)');
    expect(host.text).toContain('Confirm or decline: https://scheduling.example/app/bookings');
    const invitee = await composeMessage(stored('request', 'invitee', pending), settings, urls['booking-1']!, urls);
    expect(invitee.subject).toBe('Requested: Intro <call> with Olivia Host, every week, 3 times');
    expect(invitee.text).toContain(`Meeting 2: Tuesday, 8 December 2026, 09:00–09:30 (Europe/Lisbon) — reschedule or cancel: ${urls['booking-2']}`);
    expect(invitee.invitation).toBeNull();
    const guest = await composeMessage(stored('request', 'guest', pending), settings, urls['booking-1']!, urls);
    expect(guest.text).toContain('asked for 3 meetings of Intro <call> with Olivia Host and added you');
    for (const url of Object.values(urls)) expect(guest.text).not.toContain(url);
  });

  it('the cancellation: every canceled date in the reader’s zone, the reason, one METHOD:CANCEL with each one’s UID and SEQUENCE', async () => {
    const canceled = { series: { ...series, occurrences: occurrences.map((o, i) => ({ ...o, sequence: i === 1 ? 2 : 1 })) }, previous: null, canceled: { by: 'host', reason: 'Project ended' } };
    for (const audience of ['invitee', 'guest'] as const) {
      const mail = await composeMessage(stored('cancellation', audience, canceled), settings, null);
      expect(mail.subject).toBe('Canceled: Intro <call> with Olivia Host (3 meetings)');
      expect(mail.text).toContain('Olivia Host canceled 3 meetings of Intro <call>.');
      expect(mail.text).toContain('Meeting 1: Tuesday, 1 December 2026, 09:00–09:30 (Europe/Lisbon)');
      expect(mail.text).toContain('Meeting 3: Tuesday, 15 December 2026, 09:00–09:30 (Europe/Lisbon)');
      expect(mail.text).toContain('Reason: Project ended');
      expect(mail.invitation?.method).toBe('CANCEL');
      const events = eventsOf(mail.invitation!.content);
      expect(events.map((event) => event.getFirstPropertyValue('uid'))).toEqual(occurrences.map((o) => `${o.bookingId}@scheduling.example`));
      expect(events.map((event) => event.getFirstPropertyValue('sequence'))).toEqual([1, 2, 1]);
      expect(events.map((event) => event.getFirstPropertyValue('status'))).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
    }
    const host = await composeMessage(stored('cancellation', 'host', canceled), settings, null);
    expect(host.subject).toBe('Canceled: Intro <call> with Inês & "Co" (3 meetings)');
    expect(host.text).toContain('You canceled 3 meetings of Intro <call> with Inês & "Co".');
    expect(host.text).toContain('Meeting 2: Tuesday, 8 December 2026, 04:00–04:30 (America/New_York)');
    expect(host.invitation).toBeNull();
  });

  it('a canceled series with requests in it leaves them out of the invitation; all requests: no invitation at all', async () => {
    const mixed = occurrences.map((o, i) => ({ ...o, sequence: 1, ...(i === 0 ? { request: true } : {}) }));
    const some = await composeMessage(stored('cancellation', 'invitee', { series: { ...series, occurrences: mixed }, previous: null, canceled: { by: 'host', reason: null } }), settings, null);
    expect(some.text).toContain('Meeting 1: Tuesday, 1 December 2026, 09:00–09:30 (Europe/Lisbon) (a request, not confirmed yet)');
    expect(eventsOf(some.invitation!.content).map((event) => event.getFirstPropertyValue('uid'))).toEqual(['booking-2@scheduling.example', 'booking-3@scheduling.example']);
    const requests = occurrences.map((o) => ({ ...o, sequence: 1, request: true }));
    const all = await composeMessage(
      stored('cancellation', 'invitee', { series: { ...series, occurrences: requests }, previous: null, canceled: { by: 'host', reason: null }, approval: 'pending' }),
      settings,
      null,
    );
    expect(all.text).toContain('Olivia Host canceled your request for 3 meetings of Intro <call>.');
    expect(all.invitation).toBeNull();
  });

  it('confirmed by the host at once: the invitation an event per meeting, each meeting’s link; the host a note', async () => {
    const confirmed = { series: { ...series, occurrences: occurrences.map((o) => ({ ...o, sequence: 0 })) }, previous: null, canceled: null, approval: 'confirmed' as const };
    const invitee = await composeMessage(stored('confirmation', 'invitee', confirmed), settings, urls['booking-1']!, urls);
    expect(invitee.text).toContain('Olivia Host confirmed your 3 meetings of Intro <call>.');
    expect(invitee.text).toContain(`— reschedule or cancel: ${urls['booking-3']}`);
    const events = eventsOf(invitee.invitation!.content);
    expect(events.map((event) => event.getFirstPropertyValue('uid'))).toEqual(occurrences.map((o) => `${o.bookingId}@scheduling.example`));
    expect(events.map((event) => event.getFirstPropertyValue('sequence'))).toEqual([0, 0, 0]);
    const host = await composeMessage(stored('confirmation', 'host', confirmed), settings, null);
    expect(host.subject).toBe('Confirmed: Inês & "Co", Intro <call> (3 meetings)');
    expect(host.text).toContain('You confirmed Inês & "Co"’s request for 3 meetings of Intro <call>');
  });

  it('declined by the host at once: every date and the reason, no invitation', async () => {
    const declined = { series, previous: null, canceled: null, declined: { reason: 'Away that month', expired: false } };
    const invitee = await composeMessage(stored('decline', 'invitee', declined), settings, null);
    expect(invitee.subject).toBe('Declined: Intro <call> with Olivia Host (3 meetings)');
    expect(invitee.text).toContain('Olivia Host declined your request for 3 meetings of Intro <call>.');
    expect(invitee.text).toContain('Meeting 2: Tuesday, 8 December 2026, 09:00–09:30 (Europe/Lisbon)');
    expect(invitee.text).toContain('Reason: Away that month');
    expect(invitee.invitation).toBeNull();
    const host = await composeMessage(stored('decline', 'host', declined), settings, null);
    expect(host.text).toContain('You declined Inês & "Co"’s request for 3 meetings of Intro <call>.');
  });

  it('not confirmed before the first one started: every date, nobody’s reason', async () => {
    const expired = { series, previous: null, canceled: null, declined: { reason: 'Not confirmed before the start.', expired: true } };
    const invitee = await composeMessage(stored('decline', 'invitee', expired), settings, null);
    expect(invitee.subject).toBe('Declined: Intro <call> with Olivia Host (3 meetings)');
    expect(invitee.text).toContain('Your request for 3 meetings of Intro <call> is declined: Olivia Host did not confirm it before the first one started.');
    expect(invitee.text).toContain('Meeting 2: Tuesday, 8 December 2026, 09:00–09:30 (Europe/Lisbon)');
    expect(invitee.text).toContain('A request was not confirmed');
    expect(invitee.text).not.toContain('Reason:');
    expect(invitee.invitation).toBeNull();
    const host = await composeMessage(stored('decline', 'host', expired), settings, null);
    expect(host.text).toContain('Inês & "Co"’s request for 3 meetings of Intro <call> is declined: you did not confirm it before the first one started.');
  });
});
