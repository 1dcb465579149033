import type { SeriesFacts } from '../message-facts.ts';
import { formatMeetingTime, formatRepeat } from '../message-time.ts';
import { inviteeRows, type MailContent, manageAction, meetingWithHost, type TemplateInput, whereRow } from './template.ts';

/**
 * How often, then each occurrence's time in the recipient's zone (one row each, numbered), with that occurrence's
 * own manage link when the reader has one (`manageUrls`, by booking id).
 */
function seriesRows(series: SeriesFacts, zone: string, manageUrls: Readonly<Record<string, string>>): MailContent['details'] {
  const rows: MailContent['details'] = [{ label: 'Repeats', value: formatRepeat(series.frequency, series.interval, series.occurrences.length) }];
  series.occurrences.forEach((occurrence, index) => {
    const url = manageUrls[occurrence.bookingId];
    const link = url ? { link: { label: 'reschedule or cancel', url } } : {};
    rows.push({ label: `Meeting ${index + 1}`, value: formatMeetingTime(occurrence.startAt, occurrence.endAt, zone), ...link });
  });
  return rows;
}

/**
 * A new series' one confirmation: every occurrence in one message (the invitation holds an event for each), the
 * host's one notice. Each occurrence is moved or canceled alone, so the invitee's copy gives each meeting its own
 * manage link (a copy without them, queued before they were kept, has the first occurrence's as its button).
 */
export function seriesConfirmation(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const perMeeting = input.audience === 'invitee' ? (input.occurrenceManageUrls ?? {}) : {};
  const dates = seriesRows(series, input.zone, perMeeting);
  const linked = Object.keys(perMeeting).length > 0;
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
  const manage = linked
    ? ['Each meeting is rescheduled or canceled on its own, by the link next to its date.']
    : input.audience === 'invitee' && input.manageUrl
      ? ['The button manages the first meeting; each meeting is rescheduled or canceled on its own.']
      : [];
  return {
    subject: `Confirmed: ${meetingWithHost(facts)}, ${formatRepeat(series.frequency, series.interval, count).toLowerCase()}`,
    heading: 'Your meetings are booked',
    paragraphs: [opening, 'The invitation is attached: open it to add every meeting to your calendar.', ...manage],
    details: [...dates, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: linked ? null : manageAction(input),
  };
}
