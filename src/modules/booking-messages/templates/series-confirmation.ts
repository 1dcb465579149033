import type { SeriesFacts } from '../message-facts.ts';
import { formatMeetingTime, formatRepeat } from '../message-time.ts';
import { inviteeRows, type MailContent, manageAction, meetingWithHost, type TemplateInput, whereRow } from './template.ts';

/** How often, then each occurrence's time in the recipient's zone (one row each, numbered). */
function seriesRows(series: SeriesFacts, zone: string): MailContent['details'] {
  const rows = [{ label: 'Repeats', value: formatRepeat(series.frequency, series.interval, series.occurrences.length) }];
  series.occurrences.forEach((occurrence, index) => {
    rows.push({ label: `Meeting ${index + 1}`, value: formatMeetingTime(occurrence.startAt, occurrence.endAt, zone) });
  });
  return rows;
}

/**
 * A new series' one confirmation: every occurrence in one message (the invitation holds an event for each), the
 * host's one notice. The invitee's manage link is the first occurrence's: each occurrence is moved or canceled alone.
 */
export function seriesConfirmation(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const dates = seriesRows(series, input.zone);
  if (input.audience === 'host') {
    return {
      subject: `New booking series: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)`,
      heading: 'You have a new booking series',
      paragraphs: [`${facts.invitee.name} booked ${count} meetings of ${facts.eventTypeName} with you.`],
      details: [...dates, ...whereRow(input), ...inviteeRows(facts)],
      action: null,
    };
  }
  const opening =
    input.audience === 'invitee'
      ? `Hello ${facts.invitee.name}, your ${count} meetings of ${facts.eventTypeName} with ${facts.host.name} are booked.`
      : `${facts.invitee.name} invited you to ${count} meetings of ${facts.eventTypeName} with ${facts.host.name}.`;
  const manage = input.audience === 'invitee' && input.manageUrl ? ['The button manages the first meeting; each meeting is rescheduled or canceled on its own.'] : [];
  return {
    subject: `Confirmed: ${meetingWithHost(facts)}, ${formatRepeat(series.frequency, series.interval, count).toLowerCase()}`,
    heading: 'Your meetings are booked',
    paragraphs: [opening, 'The invitation is attached: open it to add every meeting to your calendar.', ...manage],
    details: [...dates, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
}
