import { seriesRequest } from './series-request.ts';
import { confirmAction, inviteeRows, manageAction, meetingWithHost, type Template, when, whereRow } from './template.ts';

/**
 * A booking that waits for the host's confirmation: the host is asked to confirm or decline it; the invitee and
 * guests learn that the time is held and that the invitation comes with the confirmation (none is attached). A
 * series of requests asks once (series-request.ts).
 */
export const request: Template = (input) => {
  const { facts } = input;
  if (facts.series) return seriesRequest(input, facts.series);
  if (input.audience === 'host') {
    return {
      subject: `Request: ${facts.invitee.name}, ${facts.eventTypeName}`,
      heading: 'A booking waits for your confirmation',
      paragraphs: [
        `${facts.invitee.name} asked for ${facts.eventTypeName} with you.`,
        'The time is held until you confirm or decline the request; a request nobody confirms is declined when it starts.',
      ],
      details: [{ label: 'When', value: when(input) }, ...whereRow(input), ...inviteeRows(facts)],
      action: confirmAction(input),
    };
  }
  const opening =
    input.audience === 'invitee'
      ? `Hello ${facts.invitee.name}, your request for ${facts.eventTypeName} with ${facts.host.name} is sent, and the time is held for you.`
      : `${facts.invitee.name} asked for ${facts.eventTypeName} with ${facts.host.name} and added you.`;
  return {
    subject: `Requested: ${meetingWithHost(facts)}`,
    heading: 'Waiting for the host’s confirmation',
    paragraphs: [opening, `${facts.host.name} still has to confirm it: the invitation for your calendar comes with the confirmation.`],
    details: [{ label: 'When', value: when(input) }, ...whereRow(input), { label: 'Host', value: facts.host.name }],
    action: manageAction(input),
  };
};
