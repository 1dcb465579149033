import { describe, expect, it } from 'vitest';
import type { FactsWithoutHost } from './message-facts.ts';
import {
  announcements,
  attendeesOf,
  changeAnnouncements,
  planNewBooking,
  planReminders,
  replanReminders,
  SKIPPED,
  seriesAnnouncements,
  withManageLink,
} from './message-plan.ts';

const facts: FactsWithoutHost = {
  bookingId: 'b1',
  eventTypeName: 'Intro call',
  startAt: '2026-12-01T10:00:00.000Z',
  endAt: '2026-12-01T10:30:00.000Z',
  previous: null,
  location: null,
  invitee: { name: 'Ines', email: 'ines@example.com', timezone: 'Europe/Lisbon' },
  guests: ['rui@example.com', 'INES@example.com', 'Rui@Example.com', 'ana@example.com'],
  answers: [],
  notes: null,
  canceled: null,
};
const now = new Date('2026-11-20T12:00:00Z');

describe('who is written to', () => {
  it('the invitee, then each guest once: none repeats an address in another letter case', () => {
    expect(attendeesOf(facts)).toEqual([
      { audience: 'invitee', email: 'ines@example.com' },
      { audience: 'guest', email: 'rui@example.com' },
      { audience: 'guest', email: 'ana@example.com' },
    ]);
  });

  it('announcements: one message per recipient, due now; the host’s address is left to the statement', () => {
    const messages = announcements('confirmation', facts, now);
    expect(messages.map((m) => [m.audience, m.recipient, m.status, m.scheduled_for])).toEqual([
      ['invitee', 'ines@example.com', 'queued', now.toISOString()],
      ['guest', 'rui@example.com', 'queued', now.toISOString()],
      ['guest', 'ana@example.com', 'queued', now.toISOString()],
      ['host', null, 'queued', now.toISOString()],
    ]);
    expect(messages.filter((m) => m.inherit_link).map((m) => m.audience)).toEqual(['invitee']);
    expect(announcements('cancellation', facts, now).some((m) => m.inherit_link)).toBe(false);
    expect(announcements('decline', facts, now).some((m) => m.inherit_link)).toBe(false);
    expect(announcements('request', facts, now).filter((m) => m.inherit_link).map((m) => m.audience)).toEqual(['invitee']);
  });

  it('the manage link goes to the invitee’s messages only', () => {
    const messages = withManageLink([...announcements('confirmation', facts, now), ...planReminders([{ offsetMin: 60, to: 'both' }], facts, now)], 'v1.sealed');
    expect(messages.filter((m) => m.manage_link).map((m) => [m.kind, m.audience])).toEqual([
      ['confirmation', 'invitee'],
      ['reminder', 'invitee'],
    ]);
  });
});

describe('reminders', () => {
  it('one per recipient at start minus the offset; `both` writes to the invitee, each guest and the host', () => {
    const planned = planReminders([{ offsetMin: 1440, to: 'both' }, { offsetMin: 30, to: 'host' }], facts, now);
    expect(planned.map((m) => [m.offset_min, m.audience, m.status, m.scheduled_for])).toEqual([
      [1440, 'invitee', 'scheduled', '2026-11-30T10:00:00.000Z'],
      [1440, 'guest', 'scheduled', '2026-11-30T10:00:00.000Z'],
      [1440, 'guest', 'scheduled', '2026-11-30T10:00:00.000Z'],
      [1440, 'host', 'scheduled', '2026-11-30T10:00:00.000Z'],
      [30, 'host', 'scheduled', '2026-12-01T09:30:00.000Z'],
    ]);
  });

  it('a request has none: they are planned when the host confirms it', () => {
    expect(planReminders([{ offsetMin: 1440, to: 'both' }], { ...facts, approval: 'pending' }, now)).toEqual([]);
    expect(planReminders([{ offsetMin: 1440, to: 'invitee' }], { ...facts, approval: 'confirmed' }, now)).toHaveLength(3);
  });

  it('one whose time has passed is written skipped, with why', () => {
    const late = new Date('2026-11-30T10:00:00Z');
    const [reminder] = planReminders([{ offsetMin: 1440, to: 'invitee' }], facts, late);
    expect(reminder).toMatchObject({ status: 'skipped', next_attempt_at: null, last_error: SKIPPED.pastAtBooking });
  });

  it('a reschedule moves the waiting ones, adds those already sent for the old time and drops those no longer planned', () => {
    const moved = { ...facts, startAt: '2026-12-03T10:00:00.000Z', endAt: '2026-12-03T10:30:00.000Z' };
    const planned = planReminders([{ offsetMin: 1440, to: 'both' }], moved, now, SKIPPED.pastAtMove);
    const changes = replanReminders(planned, [
      { id: 'r-invitee', offset_min: 1440, audience: 'invitee', recipient: 'INES@example.com' },
      { id: 'r-host', offset_min: 1440, audience: 'host', recipient: 'old-host@example.com' },
      { id: 'r-old', offset_min: 60, audience: 'invitee', recipient: 'ines@example.com' },
    ]);
    expect(changes.moves).toEqual([
      { id: 'r-invitee', status: 'scheduled', scheduled_for: '2026-12-02T10:00:00.000Z', next_attempt_at: '2026-12-02T10:00:00.000Z', last_error: null },
      { id: 'r-host', status: 'scheduled', scheduled_for: '2026-12-02T10:00:00.000Z', next_attempt_at: '2026-12-02T10:00:00.000Z', last_error: null },
    ]);
    expect(changes.added.map((m) => [m.audience, m.recipient])).toEqual([
      ['guest', 'rui@example.com'],
      ['guest', 'ana@example.com'],
    ]);
    expect(changes.dropped).toEqual(['r-old']);
  });

  it('a waiting reminder moved to a time already past is skipped; none is added for a past time', () => {
    const soon = { ...facts, startAt: '2026-11-20T12:30:00.000Z', endAt: '2026-11-20T13:00:00.000Z' };
    const planned = planReminders([{ offsetMin: 60, to: 'invitee' }], { ...soon, guests: [] }, now, SKIPPED.pastAtMove);
    const changes = replanReminders(planned, [{ id: 'r1', offset_min: 60, audience: 'invitee', recipient: 'ines@example.com' }]);
    expect(changes.moves).toEqual([{ id: 'r1', status: 'skipped', scheduled_for: '2026-11-20T11:30:00.000Z', next_attempt_at: null, last_error: SKIPPED.pastAtMove }]);
    expect(replanReminders(planned, []).added).toEqual([]);
  });
});

describe('a series is announced once', () => {
  const reminders = [{ offsetMin: 60, to: 'both' as const }];

  it('a single booking: its confirmation to everyone, then its reminders', () => {
    const messages = planNewBooking(facts, reminders, now);
    expect(messages.map((m) => [m.kind, m.audience])).toEqual([
      ...announcements('confirmation', facts, now).map((m) => [m.kind, m.audience]),
      ...planReminders(reminders, facts, now).map((m) => [m.kind, m.audience]),
    ]);
  });

  it('an occurrence of a series keeps its reminders; its confirmation to the invitee is skipped, never due, and holds its link', () => {
    const messages = planNewBooking(facts, reminders, now, true);
    const [placeholder, ...rest] = messages;
    expect(rest).toEqual(planReminders(reminders, facts, now));
    expect(placeholder).toMatchObject({
      kind: 'confirmation',
      audience: 'invitee',
      recipient: 'ines@example.com',
      status: 'skipped',
      next_attempt_at: null,
      last_error: SKIPPED.inSeries,
      inherit_link: true,
    });
    expect(SKIPPED.inSeries).toBe("not sent: announced in its series' confirmation");
    expect(messages.filter((m) => m.inherit_link).map((m) => [m.kind, m.audience])).toEqual([
      ['confirmation', 'invitee'],
      ['reminder', 'invitee'],
    ]);
    // Each occurrence's own sealed link goes on its skipped confirmation, for its later messages to inherit.
    const linked = withManageLink(messages, 'v1.sealed');
    expect(linked[0]).toMatchObject({ status: 'skipped', manage_link: 'v1.sealed', inherit_link: false });
    // Without reminders it is the occurrence's only row.
    expect(planNewBooking(facts, [], now, true).map((m) => [m.kind, m.status])).toEqual([['confirmation', 'skipped']]);
  });

  it('the series: one confirmation per recipient; a series of requests asks once too, each occurrence a skipped request', () => {
    const series = seriesAnnouncements(facts, now);
    expect(series.map((m) => [m.kind, m.audience, m.recipient])).toEqual([
      ['confirmation', 'invitee', 'ines@example.com'],
      ['confirmation', 'guest', 'rui@example.com'],
      ['confirmation', 'guest', 'ana@example.com'],
      ['confirmation', 'host', null],
    ]);
    const pending = { ...facts, approval: 'pending' as const };
    expect(seriesAnnouncements(pending, now).map((m) => [m.kind, m.audience, m.status])).toEqual([
      ['request', 'invitee', 'queued'],
      ['request', 'guest', 'queued'],
      ['request', 'guest', 'queued'],
      ['request', 'host', 'queued'],
    ]);
    // A request has no reminders: the skipped request, holding the occurrence's link, is its only row.
    expect(planNewBooking(pending, reminders, now, true)).toEqual([
      expect.objectContaining({ kind: 'request', audience: 'invitee', status: 'skipped', last_error: SKIPPED.inSeriesRequest, inherit_link: true }),
    ]);
    expect(SKIPPED.inSeriesRequest).toBe("not sent: announced in its series' request");
  });
});

describe('a series canceled, confirmed or declined at once is announced once', () => {
  it('alone, a change announces itself to everyone', () => {
    for (const kind of ['cancellation', 'decline', 'confirmation'] as const) {
      expect(changeAnnouncements(kind, facts, now)).toEqual(announcements(kind, facts, now));
    }
  });

  it('the occurrence the series’ messages go on gets none of its own; each other keeps a skipped invitee row saying why', () => {
    for (const kind of ['cancellation', 'decline', 'confirmation'] as const) {
      expect(changeAnnouncements(kind, facts, now, 'announces')).toEqual([]);
      const [placeholder, ...rest] = changeAnnouncements(kind, facts, now, 'announced');
      expect(rest).toEqual([]);
      expect(placeholder).toMatchObject({ kind, audience: 'invitee', recipient: 'ines@example.com', status: 'skipped', next_attempt_at: null });
      // An ending leaves nothing to manage: its row holds no link; a confirmation's holds the occurrence's own.
      expect(placeholder!.inherit_link).toBe(kind === 'confirmation');
    }
    expect(changeAnnouncements('cancellation', facts, now, 'announced')[0]!.last_error).toBe("not sent: announced in its series' cancellation");
    expect(changeAnnouncements('decline', facts, now, 'announced')[0]!.last_error).toBe("not sent: announced in its series' decline");
    expect(changeAnnouncements('confirmation', facts, now, 'announced')[0]!.last_error).toBe(SKIPPED.inSeries);
  });
});
