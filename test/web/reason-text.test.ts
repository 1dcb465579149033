import { describe, expect, it } from 'vitest';
import { durationWords, reasonText, type SlotReason } from '../../web/src/dashboard/availability/reason-text.ts';

const ME = 'user-me';
const context = { userId: ME, formatWhen: (iso: string) => `<${iso}>` };
const say = (reason: SlotReason) => reasonText(reason, context);

describe('the reasons a time is not offered, in plain words', () => {
  it('names a connected calendar of yours, and keeps a co-host’s anonymous', () => {
    expect(say({ kind: 'calendar_busy', hostId: ME, connectionId: 'c1', connectionName: 'Work' })).toBe(
      'Busy in your calendar “Work” (calendar connection).',
    );
    expect(say({ kind: 'calendar_busy', hostId: 'other' })).toBe('Busy in a co-host’s connected calendar.');
  });

  it('says each rule as the host would', () => {
    expect(say({ kind: 'outside_working_hours', hostId: ME })).toBe('Outside your working hours.');
    expect(say({ kind: 'outside_working_hours', hostId: 'other' })).toBe('Outside a co-host’s working hours.');
    expect(say({ kind: 'date_override', hostId: ME, date: '2026-12-24' })).toBe('Your date override for Dec 24, 2026 leaves this time out.');
    expect(say({ kind: 'slot_interval', stepMin: 30 })).toBe('Not on the slot grid: times start every 30 minutes from the start of the working hours.');
    expect(say({ kind: 'booked', hostId: ME, bookingId: 'b1' })).toBe('You already have a booking at this time.');
    expect(say({ kind: 'buffer', hostId: ME })).toBe('Too close to one of your bookings: the buffer time around it would overlap.');
    expect(say({ kind: 'seats_full', hostId: ME })).toBe('Every seat at this time is taken.');
    expect(say({ kind: 'held', hostId: ME })).toBe('Someone is holding this time while they finish booking it; it is free again if they let it go or the hold ends.');
    expect(say({ kind: 'held', hostId: 'other' })).toMatch(/^Someone is holding a co-host’s time/);
    expect(say({ kind: 'inactive' })).toBe('This event type is inactive, so it offers no times.');
    expect(say({ kind: 'minimum_notice', minNoticeMin: 0, earliestStart: '2026-03-01T12:00:00.000Z' })).toBe('This time has already passed.');
    expect(say({ kind: 'minimum_notice', minNoticeMin: 2880, earliestStart: '2026-03-03T12:00:00.000Z' })).toBe(
      'Too soon: this event type needs 2 days of notice (the earliest start now is <2026-03-03T12:00:00.000Z>).',
    );
  });

  it('still says something for a rule it does not know yet', () => {
    expect(say({ kind: 'booking_limit' } as unknown as SlotReason)).toBe('Not offered (booking limit).');
  });

  it('writes durations in the largest whole unit', () => {
    expect([durationWords(1), durationWords(90), durationWords(60), durationWords(120), durationWords(1440)]).toEqual([
      '1 minute',
      '90 minutes',
      '1 hour',
      '2 hours',
      '1 day',
    ]);
  });
});
