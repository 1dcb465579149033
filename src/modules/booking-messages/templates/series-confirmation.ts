import type { SeriesFacts } from '../message-facts.ts';
import { formatRepeat } from '../message-time.ts';
import { manageParagraph, readerManageUrls, seriesRows } from './series-rows.ts';
import { inviteeRows, type MailContent, manageAction, meetingWithHost, type TemplateInput, whereRow } from './template.ts';

/**
 * A series' one confirmation, when it is booked or when the host confirms its requests at once: every occurrence
 * in one message (the invitation holds an event for each), the host's one notice. Each occurrence is moved or
 * canceled alone, so the invitee's copy gives each meeting its own manage link (a copy without them, queued before
 * they were kept, has the first occurrence's as its button).
 */
export function seriesConfirmation(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const confirmed = facts.approval === 'confirmed';
  const perMeeting = readerManageUrls(input.audience, input.occurrenceManageUrls);
  const dates = seriesRows(series, input.zone, { repeats: true, manageUrls: perMeeting });
  const linked = Object.keys(perMeeting).length > 0;
  if (input.audience === 'host') {
    return {
      subject: confirmed
        ? `Confirmed: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)`
        : `New booking series: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)`,
      heading: confirmed ? 'You confirmed a booking series' : 'You have a new booking series',
      paragraphs: [
        confirmed
          ? `You confirmed ${facts.invitee.name}’s request for ${count} meetings of ${facts.eventTypeName}: they have the invitation now.`
          : `${facts.invitee.name} booked ${count} meetings of ${facts.eventTypeName} with you.`,
      ],
      details: [...dates, ...whereRow(input), ...inviteeRows(facts)],
      action: null,
    };
  }
  let opening: string;
  if (input.audience === 'invitee') {
    opening = confirmed
      ? `Hello ${facts.invitee.name}, ${facts.host.name} confirmed your ${count} meetings of ${facts.eventTypeName}.`
      : `Hello ${facts.invitee.name}, your ${count} meetings of ${facts.eventTypeName} with ${facts.host.name} are booked.`;
  } else {
    opening = confirmed
      ? `${facts.host.name} confirmed ${facts.invitee.name}’s ${count} meetings of ${facts.eventTypeName}, to which you are invited.`
      : `${facts.invitee.name} invited you to ${count} meetings of ${facts.eventTypeName} with ${facts.host.name}.`;
  }
  return {
    subject: `Confirmed: ${meetingWithHost(facts)}, ${formatRepeat(series.frequency, series.interval, count).toLowerCase()}`,
    heading: confirmed ? 'Your meetings are confirmed' : 'Your meetings are booked',
    paragraphs: [opening, 'The invitation is attached: open it to add every meeting to your calendar.', ...manageParagraph(input.audience, linked, input.manageUrl)],
    details: [...dates, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: linked ? null : manageAction(input),
  };
}
