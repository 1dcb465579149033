import { describe, expect, it } from 'vitest';
import { groupBySeries } from '../../web/src/dashboard/series-groups.ts';

const booking = (id: string, seriesId: string | null = null) => ({ id, seriesId });

describe('the bookings list’s series', () => {
  it('gathers a series’ listed occurrences where its first one is; single bookings and lone occurrences stay rows', () => {
    const entries = groupBySeries([booking('a'), booking('s1', 'S'), booking('b'), booking('s2', 'S'), booking('t1', 'T'), booking('s3', 'S')]);
    expect(entries).toEqual([
      { kind: 'booking', booking: booking('a') },
      { kind: 'series', seriesId: 'S', bookings: [booking('s1', 'S'), booking('s2', 'S'), booking('s3', 'S')] },
      { kind: 'booking', booking: booking('b') },
      { kind: 'booking', booking: booking('t1', 'T') },
    ]);
  });

  it('keeps bookings without a seriesId field (stored before it existed) as rows', () => {
    expect(groupBySeries([{ id: 'x' }, { id: 'y' }])).toEqual([
      { kind: 'booking', booking: { id: 'x' } },
      { kind: 'booking', booking: { id: 'y' } },
    ]);
  });
});
