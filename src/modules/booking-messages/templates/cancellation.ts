import { meetingWithHost, type Template, type TemplateInput, when, whoseRequest } from './template.ts';

/** Who canceled, in the recipient's words. */
function canceledBy(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  if (input.audience === 'host') return byHost ? 'You canceled' : `${facts.invitee.name} canceled`;
  if (byHost) return `${facts.host.name} canceled`;
  return input.audience === 'invitee' ? 'You canceled' : `${facts.invitee.name} canceled`;
}

/** Which request was canceled, in the recipient's words ("your request for Intro call"). */
function canceledRequest(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  if (input.audience === 'host') return byHost ? `${facts.invitee.name}’s request for ${facts.eventTypeName}` : `their request for ${facts.eventTypeName}`;
  if (byHost) return `${whoseRequest(input)} request for ${facts.eventTypeName}`;
  return `${input.audience === 'invitee' ? 'your' : 'their'} request for ${meetingWithHost(facts)}`;
}

/**
 * A canceled booking: who canceled and why; the invitee's side gets the invitation's cancellation. A canceled
 * request had no invitation, so it has none to withdraw.
 */
export const cancellation: Template = (input) => {
  const { facts } = input;
  const reason = facts.canceled?.reason ? [{ label: 'Reason', value: facts.canceled.reason }] : [];
  const host = input.audience === 'host';
  const meeting = host ? `${facts.eventTypeName} with ${facts.invitee.name}` : meetingWithHost(facts);
  const request = facts.approval === 'pending';
  return {
    subject: `Canceled: ${meeting}`,
    heading: request ? 'A request was canceled' : 'A meeting was canceled',
    paragraphs: [`${canceledBy(input)} ${request ? canceledRequest(input) : meeting}.`, ...(host ? ['Its time is free again.'] : [])],
    details: [{ label: 'Was', value: when(input) }, ...reason],
    action: null,
  };
};
