import { meetingWithHost, type Template, type TemplateInput, when } from './template.ts';

/** Who canceled, in the recipient's words. */
function canceledBy(input: TemplateInput): string {
  const { facts } = input;
  const byHost = facts.canceled?.by === 'host';
  if (input.audience === 'host') return byHost ? 'You canceled' : `${facts.invitee.name} canceled`;
  if (byHost) return `${facts.host.name} canceled`;
  return input.audience === 'invitee' ? 'You canceled' : `${facts.invitee.name} canceled`;
}

/** A canceled booking: who canceled and why; the invitee's side gets the invitation's cancellation. */
export const cancellation: Template = (input) => {
  const { facts } = input;
  const reason = facts.canceled?.reason ? [{ label: 'Reason', value: facts.canceled.reason }] : [];
  const host = input.audience === 'host';
  const meeting = host ? `${facts.eventTypeName} with ${facts.invitee.name}` : meetingWithHost(facts);
  return {
    subject: `Canceled: ${meeting}`,
    heading: 'A meeting was canceled',
    paragraphs: [`${canceledBy(input)} ${meeting}.`, ...(host ? ['Its time is free again.'] : [])],
    details: [{ label: 'Was', value: when(input) }, ...reason],
    action: null,
  };
};
