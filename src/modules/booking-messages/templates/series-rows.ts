import type { SeriesFacts, SeriesOccurrence } from '../message-facts.ts';
import { formatMeetingTime, formatRepeat } from '../message-time.ts';
import type { MailContent } from './template.ts';

export interface SeriesRowOptions {
  /** How often the series repeats, first: a new series' messages and its confirmation (a cancellation leaves it out). */
  repeats: boolean;
  /** The reader's own manage link of each occurrence, by booking id (the invitee's copy). */
  manageUrls?: Readonly<Record<string, string>>;
  /** Words after an occurrence's time, if any. */
  note?: (occurrence: SeriesOccurrence) => string | undefined;
}

/**
 * A series' message's rows: how often it repeats, then each occurrence concerned in the recipient's zone (one row
 * each, numbered), with that occurrence's own manage link when the reader has one.
 */
export function seriesRows(series: SeriesFacts, zone: string, options: SeriesRowOptions): MailContent['details'] {
  const count = series.occurrences.length;
  const rows: MailContent['details'] = options.repeats ? [{ label: 'Repeats', value: formatRepeat(series.frequency, series.interval, count) }] : [];
  series.occurrences.forEach((occurrence, index) => {
    const url = options.manageUrls?.[occurrence.bookingId];
    const link = url ? { link: { label: 'reschedule or cancel', url } } : {};
    const note = options.note?.(occurrence);
    const value = `${formatMeetingTime(occurrence.startAt, occurrence.endAt, zone)}${note ? ` ${note}` : ''}`;
    rows.push({ label: `Meeting ${index + 1}`, value, ...link });
  });
  return rows;
}

/** The invitee's manage links of a series' message (none for guests and the host). */
export function readerManageUrls(audience: string, urls: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
  return audience === 'invitee' ? (urls ?? {}) : {};
}

/** The paragraph about managing the meetings, for the invitee: by each date's link, or (an older copy) the button. */
export function manageParagraph(audience: string, linked: boolean, manageUrl: string | null): string[] {
  if (linked) return ['Each meeting is rescheduled or canceled on its own, by the link next to its date.'];
  if (audience === 'invitee' && manageUrl) return ['The button manages the first meeting; each meeting is rescheduled or canceled on its own.'];
  return [];
}
