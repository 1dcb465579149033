import { describe, expect, it } from 'vitest';
import { formatLeadTime, formatMeetingTime } from './message-time.ts';

describe('times in messages', () => {
  it('are written in the recipient’s zone, with the zone named', () => {
    const start = '2026-12-01T09:00:00Z';
    const end = '2026-12-01T09:30:00Z';
    expect(formatMeetingTime(start, end, 'Europe/Berlin')).toBe('Tuesday, 1 December 2026, 10:00–10:30 (Europe/Berlin)');
    expect(formatMeetingTime(start, end, 'America/New_York')).toBe('Tuesday, 1 December 2026, 04:00–04:30 (America/New_York)');
  });

  it('name the end’s day when the meeting ends on another day there', () => {
    expect(formatMeetingTime('2026-12-01T22:30:00Z', '2026-12-01T23:30:00Z', 'Europe/Berlin')).toBe(
      'Tuesday, 1 December 2026, 23:30–Wednesday, 2 December 2026, 00:30 (Europe/Berlin)',
    );
  });

  it('say how soon a reminder’s meeting starts', () => {
    expect(formatLeadTime(1440)).toBe('in 1 day');
    expect(formatLeadTime(150)).toBe('in 2 hours 30 minutes');
    expect(formatLeadTime(1)).toBe('in 1 minute');
    expect(formatLeadTime(0)).toBe('now');
  });
});
