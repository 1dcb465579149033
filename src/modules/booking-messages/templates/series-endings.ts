import type { SeriesFacts } from '../message-facts.ts';
import { seriesRows } from './series-rows.ts';
import { canceledBy, type MailContent, meetingWithHost, type TemplateInput, whoseCanceledRequest, whoseRequest } from './template.ts';

/**
 * A series canceled at once: who canceled which meetings and why, every one listed in the reader's zone; the
 * invitee's side gets one cancellation of the invitation with an event per meeting. Meetings that were still
 * requests are said to be (they had no invitation); when all were, it is a canceled request.
 */
export function seriesCancellation(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const host = input.audience === 'host';
  const requests = series.occurrences.filter((occurrence) => occurrence.request).length;
  const allRequests = requests === count;
  const note = requests > 0 && !allRequests ? (occurrence: { request?: boolean }) => (occurrence.request ? '(a request, not confirmed yet)' : undefined) : undefined;
  // As a single cancellation words it: the host's name is left out where the host is the reader or the one canceling.
  const short = host || facts.canceled?.by === 'host';
  const meetings = `${count} meetings of ${short ? facts.eventTypeName : meetingWithHost(facts)}`;
  const what = allRequests ? `${whoseCanceledRequest(input)} request for ${meetings}` : host ? `${meetings} with ${facts.invitee.name}` : meetings;
  const reason = facts.canceled?.reason ? [{ label: 'Reason', value: facts.canceled.reason }] : [];
  const calendar = !host && !allRequests ? ['The cancellation is attached: open it to take the meetings out of your calendar.'] : [];
  return {
    subject: host ? `Canceled: ${facts.eventTypeName} with ${facts.invitee.name} (${count} meetings)` : `Canceled: ${meetingWithHost(facts)} (${count} meetings)`,
    heading: allRequests ? 'A request was canceled' : 'Meetings were canceled',
    paragraphs: [`${canceledBy(input)} ${what}.`, ...calendar, ...(host ? ['Their times are free again.'] : [])],
    details: [...seriesRows(series, input.zone, { repeats: false, note }), ...reason],
    action: null,
  };
}

/** The host declined a series' requests at once: every declined meeting listed, with the host's reason. */
export function seriesDecline(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const host = input.audience === 'host';
  const reason = facts.declined?.reason ? [{ label: 'Reason', value: facts.declined.reason }] : [];
  return {
    subject: host ? `Declined: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)` : `Declined: ${meetingWithHost(facts)} (${count} meetings)`,
    heading: 'A request was declined',
    paragraphs: [
      host
        ? `You declined ${facts.invitee.name}’s request for ${count} meetings of ${facts.eventTypeName}.`
        : `${facts.host.name} declined ${whoseRequest(input)} request for ${count} meetings of ${facts.eventTypeName}.`,
      'Their times are free again.',
    ],
    details: [...seriesRows(series, input.zone, { repeats: false }), ...reason],
    action: null,
  };
}
