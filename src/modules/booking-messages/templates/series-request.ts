import type { SeriesFacts } from '../message-facts.ts';
import { formatRepeat } from '../message-time.ts';
import { manageParagraph, readerManageUrls, seriesRows } from './series-rows.ts';
import { confirmAction, inviteeRows, type MailContent, manageAction, meetingWithHost, type TemplateInput, whereRow } from './template.ts';

/**
 * A new series of requests, asked for once: the host is asked to confirm or decline them (all at once, or one by
 * one); the invitee and guests learn that every time is held and that the invitation comes with the confirmation.
 * The invitee's copy gives each meeting its own manage link, as a series' confirmation does.
 */
export function seriesRequest(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const perMeeting = readerManageUrls(input.audience, input.occurrenceManageUrls);
  const dates = seriesRows(series, input.zone, { repeats: true, manageUrls: perMeeting });
  const linked = Object.keys(perMeeting).length > 0;
  if (input.audience === 'host') {
    return {
      subject: `Request: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)`,
      heading: 'A booking series waits for your confirmation',
      paragraphs: [
        `${facts.invitee.name} asked for ${count} meetings of ${facts.eventTypeName} with you.`,
        'Their times are held until you confirm or decline them, all at once or one by one; a request nobody confirms is declined when it starts.',
      ],
      details: [...dates, ...whereRow(input), ...inviteeRows(facts)],
      action: confirmAction(input),
    };
  }
  const opening =
    input.audience === 'invitee'
      ? `Hello ${facts.invitee.name}, your request for ${count} meetings of ${facts.eventTypeName} with ${facts.host.name} is sent, and their times are held for you.`
      : `${facts.invitee.name} asked for ${count} meetings of ${facts.eventTypeName} with ${facts.host.name} and added you.`;
  return {
    subject: `Requested: ${meetingWithHost(facts)}, ${formatRepeat(series.frequency, series.interval, count).toLowerCase()}`,
    heading: 'Waiting for the host’s confirmation',
    paragraphs: [
      opening,
      `${facts.host.name} still has to confirm them: the invitation for your calendar comes with the confirmation.`,
      ...manageParagraph(input.audience, linked, input.manageUrl),
    ],
    details: [...dates, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: linked ? null : manageAction(input),
  };
}
