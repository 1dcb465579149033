import { describe, expect, it } from 'vitest';
import { occurrenceDetails, reasonSentence, seriesRefused } from './series-refusals.ts';

const at = (iso: string) => Date.parse(iso);

describe('a refused series', () => {
  it('names each failing occurrence and reason, in the series’ order, with its start', () => {
    const details = occurrenceDetails([
      { index: 3, start: at('2026-12-22T08:00:00Z'), reasons: [{ kind: 'booking_window', hostId: 'h', firstDate: '2026-12-01', lastDate: '2026-12-20' }] },
      {
        index: 1,
        start: at('2026-12-08T08:00:00Z'),
        reasons: [
          { kind: 'booked', hostId: 'h', bookingId: 'b1' },
          { kind: 'daily_limit', hostId: 'h', limit: 1, firstDate: '2026-12-08', lastDate: '2026-12-08' },
        ],
      },
    ]);
    expect(details).toEqual([
      { code: 'booked', path: ['occurrences', 1], startAt: '2026-12-08T08:00:00.000Z', message: '2026-12-08T08:00:00.000Z: The host already has a booking at that time.' },
      {
        code: 'daily_limit',
        path: ['occurrences', 1],
        startAt: '2026-12-08T08:00:00.000Z',
        message: "2026-12-08T08:00:00.000Z: The host's limit of 1 booking per day is reached (2026-12-08, counting this series' earlier occurrences).",
      },
      {
        code: 'booking_window',
        path: ['occurrences', 3],
        startAt: '2026-12-22T08:00:00.000Z',
        message: "2026-12-22T08:00:00.000Z: It is outside the booking window (2026-12-01 to 2026-12-20, in the host's time zone).",
      },
    ]);
    // Nothing names a booking or a calendar: invitees read these.
    expect(JSON.stringify(details)).not.toContain('b1');
  });

  it('counts failing occurrences, not reasons, in its message', () => {
    const refusal = seriesRefused(
      [{ index: 0, start: 0, reasons: [{ kind: 'inactive' }, { kind: 'recurrence_max_count', maxCount: 2 }] }],
      5,
    );
    expect(refusal).toMatchObject({ code: 'conflict', message: expect.stringContaining("1 of the series' 5 occurrences") });
    expect(refusal.details).toHaveLength(2);
  });

  it('has a sentence for every reason kind, and for kinds it does not know yet', () => {
    expect(reasonSentence({ kind: 'recurrence_max_count', maxCount: 4 })).toBe('The event type takes series of at most 4 occurrences.');
    expect(reasonSentence({ kind: 'weekly_limit', hostId: 'h', limit: 3, firstDate: '2026-11-30', lastDate: '2026-12-06' })).toContain('3 bookings per week');
    expect(reasonSentence({ kind: 'held' } as never)).toBe('Someone is holding that time while they book it.');
    expect(reasonSentence({ kind: 'eclipse' } as never)).toBe('It cannot be booked (eclipse).');
  });
});
