import { describe, expect, it } from 'vitest';
import type { WeeklyHours } from './schedule.ts';
import { type BusyEntry, explainSlot, type ExplainHost } from './slot-reasons.ts';
import type { SlotRules } from './slots.ts';

const MIN = 60_000;
// Monday 2 March 2026, in UTC.
const at = (hhmm: string) => Date.parse(`2026-03-02T${hhmm}:00Z`);
const minute = (hhmm: string) => at(hhmm) / MIN;

const weekdays = (start: string, end: string): WeeklyHours => {
  const day = [{ start, end }];
  return { monday: day, tuesday: day, wednesday: day, thursday: day, friday: day, saturday: [], sunday: [] };
};

function host(hostId: string, hours: WeeklyHours, busy: BusyEntry[] = []): ExplainHost {
  return { hostId, schedule: { weekly: hours, overrides: [], timeZone: 'UTC' }, busy, calendarBusy: [] };
}

/** A booked meeting [from, to) with its event type's buffers around it. */
function booked(from: string, to: string, options: { before?: number; after?: number; ids?: string[]; seats?: 'open' | 'full' } = {}): BusyEntry {
  return {
    busy: [minute(from) - (options.before ?? 0), minute(to) + (options.after ?? 0)],
    meeting: [minute(from), minute(to)],
    bookingIds: options.ids ?? ['booking-1'],
    ...(options.seats ? { seats: options.seats } : {}),
  };
}

function slot(start: string, overrides: Partial<SlotRules> = {}): SlotRules {
  const durationMin = overrides.durationMin ?? 30;
  return {
    durationMin,
    stepMin: 30,
    bufferBeforeMin: 0,
    bufferAfterMin: 0,
    minNoticeMin: 0,
    now: at('00:00'),
    from: at(start),
    to: at(start) + durationMin * MIN,
    ...overrides,
  };
}

describe('explainSlot', () => {
  it('tells the meeting itself from the buffers around it, on either side', () => {
    const owner = host('owner', weekdays('09:00', '17:00'), [booked('10:00', '10:30', { after: 15 })]);
    const explain = (start: string, rules: Partial<SlotRules> = {}) =>
      explainSlot({ rules: slot(start, { stepMin: 15, ...rules }), mode: 'any', active: true, hosts: [owner] }).reasons;
    expect(explain('10:15')).toEqual([{ kind: 'booked', hostId: 'owner', bookingId: 'booking-1' }]);
    // The booking's own buffer after it.
    expect(explain('10:30')).toEqual([{ kind: 'buffer', hostId: 'owner', bookingId: 'booking-1' }]);
    // This event type's buffer after the slot reaches the booking.
    expect(explain('09:30', { bufferAfterMin: 5 })).toEqual([{ kind: 'buffer', hostId: 'owner', bookingId: 'booking-1' }]);
    expect(explain('09:30')).toEqual([]);
    expect(explain('10:45')).toEqual([]);
  });

  it('names no booking the caller may not see, and each one it may', () => {
    const shared = host('colleague', weekdays('09:00', '17:00'), [booked('10:00', '11:00', { ids: [] }), booked('12:00', '13:00', { ids: ['b1', 'b2'] })]);
    const explain = (start: string) => explainSlot({ rules: slot(start), mode: 'any', active: true, hosts: [shared] }).reasons;
    expect(explain('10:00')).toEqual([{ kind: 'booked', hostId: 'colleague' }]);
    expect(explain('12:00')).toEqual([
      { kind: 'booked', hostId: 'colleague', bookingId: 'b1' },
      { kind: 'booked', hostId: 'colleague', bookingId: 'b2' },
    ]);
  });

  it('says a held time is held, never whose, and a slot only near it runs into its buffers', () => {
    const hold: BusyEntry = { busy: [minute('10:00'), minute('10:45')], meeting: [minute('10:00'), minute('10:30')], bookingIds: [], held: true };
    const owner = host('owner', weekdays('09:00', '17:00'), [hold]);
    const explain = (start: string) => explainSlot({ rules: slot(start, { stepMin: 15 }), mode: 'any', active: true, hosts: [owner] });
    expect(explain('10:00')).toMatchObject({ available: false, reasons: [{ kind: 'held', hostId: 'owner' }] });
    expect(explain('10:30')).toMatchObject({ available: false, reasons: [{ kind: 'buffer', hostId: 'owner' }] });
    expect(explain('10:45')).toMatchObject({ available: true, reasons: [] });
  });

  it('lets a group slot with seats left be joined whatever else is busy, and says when it is full', () => {
    const open = host('owner', weekdays('09:00', '17:00'), [booked('10:00', '10:30', { seats: 'open' })]);
    expect(explainSlot({ rules: slot('10:00'), mode: 'any', active: true, hosts: [open] })).toMatchObject({ available: true, reasons: [] });
    const full = host('owner', weekdays('09:00', '17:00'), [booked('10:00', '10:30', { seats: 'full' })]);
    expect(explainSlot({ rules: slot('10:00'), mode: 'any', active: true, hosts: [full] })).toMatchObject({
      available: false,
      reasons: [{ kind: 'seats_full', hostId: 'owner' }],
    });
  });

  it('puts a collective slot on the grid of the hours every host shares, a reason of the team', () => {
    const team = [host('a', weekdays('09:00', '17:00')), host('b', weekdays('09:10', '17:00'))];
    const explain = (start: string) => explainSlot({ rules: slot(start), mode: 'all', active: true, hosts: team });
    expect(explain('09:40')).toMatchObject({ available: true, reasons: [] });
    expect(explain('09:30')).toEqual({
      available: false,
      hosts: [
        { hostId: 'a', available: false },
        { hostId: 'b', available: false },
      ],
      reasons: [{ kind: 'slot_interval', stepMin: 30 }],
    });
    expect(explain('09:00').reasons).toEqual([{ kind: 'outside_working_hours', hostId: 'b' }]);
  });

  it('answers round robin per host: available while one host is free', () => {
    const team = [host('a', weekdays('09:00', '17:00'), [booked('10:00', '10:30')]), host('b', weekdays('09:00', '17:00'))];
    expect(explainSlot({ rules: slot('10:00'), mode: 'any', active: true, hosts: team })).toEqual({
      available: true,
      hosts: [
        { hostId: 'a', available: false },
        { hostId: 'b', available: true },
      ],
      reasons: [{ kind: 'booked', hostId: 'a', bookingId: 'booking-1' }],
    });
  });

  it('counts the minimum notice from now, rounded up to a minute', () => {
    const owner = host('owner', weekdays('09:00', '17:00'));
    const explain = (start: string, now: number) =>
      explainSlot({ rules: slot(start, { now, minNoticeMin: 60 }), mode: 'any', active: true, hosts: [owner] }).reasons;
    expect(explain('10:00', at('09:00'))).toEqual([]);
    expect(explain('10:00', at('09:00') + 1)).toEqual([{ kind: 'minimum_notice', minNoticeMin: 60, earliestStart: '2026-03-02T10:01:00.000Z' }]);
  });
});
