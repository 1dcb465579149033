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

/** What happened to the series' requests, in the recipient's words (as a single decline says it). */
function whatHappenedToSeries(input: TemplateInput, count: number): string {
  const { facts } = input;
  const host = input.audience === 'host';
  if (facts.declined?.expired) {
    const whose = host ? `${facts.invitee.name}’s` : whoseRequest(input);
    const nobody = host ? 'you did not' : `${facts.host.name} did not`;
    return `${whose[0]!.toUpperCase()}${whose.slice(1)} request for ${count} meetings of ${facts.eventTypeName} is declined: ${nobody} confirm it before the first one started.`;
  }
  if (host) return `You declined ${facts.invitee.name}’s request for ${count} meetings of ${facts.eventTypeName}.`;
  return `${facts.host.name} declined ${whoseRequest(input)} request for ${count} meetings of ${facts.eventTypeName}.`;
}

/**
 * A series' requests declined at once, by the host (with the host's reason) or because nobody confirmed them before
 * the first one started (`expired`): every declined meeting listed.
 */
export function seriesDecline(input: TemplateInput, series: SeriesFacts): MailContent {
  const { facts } = input;
  const count = series.occurrences.length;
  const host = input.audience === 'host';
  const expired = facts.declined?.expired === true;
  const reason = facts.declined?.reason && !expired ? [{ label: 'Reason', value: facts.declined.reason }] : [];
  return {
    subject: host ? `Declined: ${facts.invitee.name}, ${facts.eventTypeName} (${count} meetings)` : `Declined: ${meetingWithHost(facts)} (${count} meetings)`,
    heading: expired ? 'A request was not confirmed' : 'A request was declined',
    paragraphs: [whatHappenedToSeries(input, count), 'Their times are free again.'],
    details: [...seriesRows(series, input.zone, { repeats: false }), ...reason],
    action: null,
  };
}
