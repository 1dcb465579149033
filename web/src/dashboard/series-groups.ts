/** One entry of the bookings list: a booking alone, or the occurrences of one series shown as one. */
export type ListEntry<B> = { kind: 'booking'; booking: B } | { kind: 'series'; seriesId: string; bookings: B[] };

/**
 * The list's bookings with each series' occurrences gathered into one entry, placed where its first listed
 * occurrence is; a series with a single listed occurrence stays a plain booking.
 */
export function groupBySeries<B extends { id: string; seriesId?: string | null }>(bookings: readonly B[]): ListEntry<B>[] {
  const bySeries = new Map<string, B[]>();
  for (const booking of bookings) {
    if (booking.seriesId) bySeries.set(booking.seriesId, [...(bySeries.get(booking.seriesId) ?? []), booking]);
  }
  const entries: ListEntry<B>[] = [];
  const placed = new Set<string>();
  for (const booking of bookings) {
    const members = booking.seriesId ? bySeries.get(booking.seriesId)! : [];
    if (!booking.seriesId || members.length < 2) {
      entries.push({ kind: 'booking', booking });
    } else if (!placed.has(booking.seriesId)) {
      placed.add(booking.seriesId);
      entries.push({ kind: 'series', seriesId: booking.seriesId, bookings: members });
    }
  }
  return entries;
}
