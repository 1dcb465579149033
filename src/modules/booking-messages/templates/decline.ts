import { seriesDecline } from './series-endings.ts';
import { meetingWithHost, type Template, type TemplateInput, when, whoseRequest } from './template.ts';

/** What happened to the request, in the recipient's words. */
function whatHappened(input: TemplateInput): string {
  const { facts } = input;
  if (facts.declined?.expired) {
    const whose = input.audience === 'host' ? `${facts.invitee.name}’s` : whoseRequest(input);
    const nobody = input.audience === 'host' ? 'you did not' : `${facts.host.name} did not`;
    return `${whose[0]!.toUpperCase()}${whose.slice(1)} request for ${facts.eventTypeName} is declined: ${nobody} confirm it before its start.`;
  }
  if (input.audience === 'host') return `You declined ${facts.invitee.name}’s request for ${facts.eventTypeName}.`;
  return `${facts.host.name} declined ${whoseRequest(input)} request for ${facts.eventTypeName}.`;
}

/**
 * A declined request (by the host, or nobody confirmed it before its start): no invitation was ever sent for it. A
 * series' requests declined at once are told once (series-endings.ts).
 */
export const decline: Template = (input) => {
  const { facts } = input;
  if (facts.series) return seriesDecline(input, facts.series);
  const host = input.audience === 'host';
  const reason = facts.declined?.reason && !facts.declined.expired ? [{ label: 'Reason', value: facts.declined.reason }] : [];
  return {
    subject: host ? `Declined: ${facts.invitee.name}, ${facts.eventTypeName}` : `Declined: ${meetingWithHost(facts)}`,
    heading: facts.declined?.expired ? 'A request was not confirmed' : 'A request was declined',
    paragraphs: [whatHappened(input), 'Its time is free again.'],
    details: [{ label: 'Was', value: when(input) }, ...reason],
    action: null,
  };
};
